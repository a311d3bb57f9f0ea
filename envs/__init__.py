"""The environment model: spec and task formats, the SQLite engine, scoring, checker, catalog.

This package imports neither ``mcp`` nor ``fastapi``; servers and clients build on it.
"""

from __future__ import annotations

from .catalog import Catalog, CatalogEntry, load_env
from .check import CheckReport, check_env
from .engine import Environment, Episode, ToolResult
from .errors import (
    EnvFarmError,
    InvalidEnvironment,
    ResultError,
    SandboxError,
    SpecError,
    StateError,
    ToolArgumentError,
    ToolError,
    UnknownEnvironment,
    UnknownTask,
    UnknownTool,
)
from .scoring import Score, score_episode
from .spec import EnvSpec, ToolSpec
from .task import Task, ToolCall

__all__ = [
    "Catalog",
    "CatalogEntry",
    "CheckReport",
    "EnvFarmError",
    "EnvSpec",
    "Environment",
    "Episode",
    "InvalidEnvironment",
    "ResultError",
    "SandboxError",
    "Score",
    "SpecError",
    "StateError",
    "Task",
    "ToolArgumentError",
    "ToolCall",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "UnknownEnvironment",
    "UnknownTask",
    "UnknownTool",
    "check_env",
    "load_env",
    "score_episode",
]
