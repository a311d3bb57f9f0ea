"""User simulators: ``solo`` (the instruction only), ``llm`` (a tau-bench-style simulated user, with
tools of their own in dual control) and ``oracle`` (the user half of the oracle pair). Names are
imported on first use (``llm`` needs the agents extra)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import UserSimulator, UserTurn
    from .llm import LLMUser
    from .oracle import OracleUser
    from .prompt import STOP_TOKEN
    from .solo import SoloUser

_WHERE = {
    "STOP_TOKEN": "prompt",
    "LLMUser": "llm",
    "OracleUser": "oracle",
    "SoloUser": "solo",
    "UserSimulator": "base",
    "UserTurn": "base",
}
__all__ = ["STOP_TOKEN", "LLMUser", "OracleUser", "SoloUser", "UserSimulator", "UserTurn"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
