"""Agents behind one small ``Agent`` protocol: ``oracle``, ``openai`` and ``anthropic``."""

from __future__ import annotations

from .anthropic_agent import AnthropicAgent
from .base import Agent, AgentTurn, EpisodeContext, LLMSettings
from .openai_agent import OpenAIAgent
from .oracle import OracleAgent

__all__ = ["Agent", "AgentTurn", "AnthropicAgent", "EpisodeContext", "LLMSettings", "OpenAIAgent", "OracleAgent"]
