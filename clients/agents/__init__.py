"""Agents behind one small ``Agent`` protocol: ``oracle``, ``openai`` and ``anthropic``.

Names are imported on first use: ``clients.agents.base`` (``LLMSettings``, ``EpisodeContext``) needs
neither SDK, so a trainer's environment without the agents extra can still use it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .anthropic_agent import AnthropicAgent
    from .base import Agent, AgentTurn, EpisodeContext, LLMSettings
    from .openai_agent import OpenAIAgent
    from .oracle import OracleAgent

_WHERE = {
    "Agent": "base",
    "AgentTurn": "base",
    "AnthropicAgent": "anthropic_agent",
    "EpisodeContext": "base",
    "LLMSettings": "base",
    "OpenAIAgent": "openai_agent",
    "OracleAgent": "oracle",
}
__all__ = ["Agent", "AgentTurn", "AnthropicAgent", "EpisodeContext", "LLMSettings", "OpenAIAgent", "OracleAgent"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
