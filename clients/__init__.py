"""envfarm clients: talk to a farm over REST and MCP; evaluate agents; export training data.

This package reaches the server only over HTTP (REST and MCP) and imports ``envs`` data models,
never ``server``.

>>> from clients import EvalConfig, run_eval  # doctest: +SKIP
>>> run_eval(EvalConfig(agent="oracle", server="http://127.0.0.1:8765", out=Path("runs/oracle")))  # doctest: +SKIP
"""

from __future__ import annotations

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
