"""User simulators: ``solo`` (the instruction only), ``llm`` (a tau-bench-style simulated user, with
tools of their own in dual control) and ``oracle`` (the user half of the oracle pair)."""

from __future__ import annotations

from .base import UserSimulator, UserTurn
from .llm import STOP_TOKEN, LLMUser
from .oracle import OracleUser
from .solo import SoloUser

__all__ = ["STOP_TOKEN", "LLMUser", "OracleUser", "SoloUser", "UserSimulator", "UserTurn"]
