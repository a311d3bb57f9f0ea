"""envfarm clients: talk to a farm over REST and MCP; evaluate agents; export training data.

This package reaches the server only over HTTP (REST and MCP) and imports neither ``envs`` nor
``server``: it is the ``envfarm-client`` distribution (``clients/pyproject.toml``), which installs beside
a trainer's pinned libraries. Its names are imported on first use, so ``import clients.farm`` needs only
``httpx`` and ``pydantic``; the agents, the MCP session and the reports need their extras.

>>> from clients import EvalConfig, run_eval  # doctest: +SKIP
>>> run_eval(EvalConfig(agent="oracle", server="http://127.0.0.1:8765", out=Path("runs/oracle")))  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agents import Agent, AnthropicAgent, EpisodeContext, LLMSettings, OpenAIAgent, OracleAgent
    from .config import EvalConfig
    from .errors import (
        AgentError,
        ClientError,
        ConfigError,
        FarmAPIError,
        ForeignOriginError,
        LLMAPIError,
        PagingError,
        ResponseTooLarge,
        RunDirError,
        SelectionError,
        TransportError,
    )
    from .evaluate import arun_eval, run_eval
    from .export import export_sft, export_tasks
    from .farm import FarmClient
    from .gym import FarmEnv
    from .metrics import pass_hat_k
    from .records import TrialRecord
    from .report import EvalReport
    from .retry import RetryPolicy
    from .runner import Limits, run_trial
    from .session import EpisodeSession, open_episode
    from .users import LLMUser, SoloUser, UserSimulator

#: Each public name and the module of this package that defines it.
_WHERE = {
    "Agent": "agents",
    "AgentError": "errors",
    "AnthropicAgent": "agents",
    "ClientError": "errors",
    "ConfigError": "errors",
    "EpisodeContext": "agents.base",
    "EpisodeSession": "session",
    "EvalConfig": "config",
    "EvalReport": "report",
    "FarmAPIError": "errors",
    "FarmClient": "farm",
    "FarmEnv": "gym",
    "ForeignOriginError": "errors",
    "LLMAPIError": "errors",
    "LLMSettings": "agents.base",
    "LLMUser": "users",
    "Limits": "runner",
    "OpenAIAgent": "agents",
    "OracleAgent": "agents",
    "PagingError": "errors",
    "ResponseTooLarge": "errors",
    "RetryPolicy": "retry",
    "RunDirError": "errors",
    "SelectionError": "errors",
    "SoloUser": "users",
    "TransportError": "errors",
    "TrialRecord": "records",
    "UserSimulator": "users",
    "arun_eval": "evaluate",
    "export_sft": "export",
    "export_tasks": "export",
    "open_episode": "session",
    "pass_hat_k": "metrics",
    "run_eval": "evaluate",
    "run_trial": "runner",
}

__all__ = [
    "Agent",
    "AgentError",
    "AnthropicAgent",
    "ClientError",
    "ConfigError",
    "EpisodeContext",
    "EpisodeSession",
    "EvalConfig",
    "EvalReport",
    "FarmAPIError",
    "FarmClient",
    "FarmEnv",
    "ForeignOriginError",
    "LLMAPIError",
    "LLMSettings",
    "LLMUser",
    "Limits",
    "OpenAIAgent",
    "OracleAgent",
    "PagingError",
    "ResponseTooLarge",
    "RetryPolicy",
    "RunDirError",
    "SelectionError",
    "SoloUser",
    "TransportError",
    "TrialRecord",
    "UserSimulator",
    "arun_eval",
    "export_sft",
    "export_tasks",
    "open_episode",
    "pass_hat_k",
    "run_eval",
    "run_trial",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
