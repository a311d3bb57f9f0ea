"""User simulators: ``solo`` (the instruction only) and ``llm`` (a tau-bench-style simulated user)."""

from __future__ import annotations

from .base import UserSimulator, UserTurn
from .llm import STOP_TOKEN, LLMUser
from .solo import SoloUser

__all__ = ["STOP_TOKEN", "LLMUser", "SoloUser", "UserSimulator", "UserTurn"]
