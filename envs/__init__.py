"""The environment model: spec and task formats, the SQLite engine, scoring, checker, catalog.

Its rooms, lowest first: ``formats`` (spec, task), ``schemas`` (what a model is shown of a tool),
``engine`` (compiled specs, episodes, the sandbox), ``grading`` (scores and answers) and ``quality``
(catalog measures); beside them ``embeddings`` (text to vectors: documents ranked by meaning, requests
matched to domains), which the engine reaches only through what its server hands it; ``catalog``,
``check`` and ``bench`` join them (docs/architecture.md).

This package imports neither ``mcp`` nor ``fastapi``; servers and clients build on it.

Its public names are loaded on first use (PEP 562): ``import envs.errors`` alone must not pull in the
engine, pydantic models and jsonschema, because ``envfarm mcp`` answers a desktop client's
``initialize`` before it needs any of them (``envfarm bench stdio``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from .formats.spec import EnvSpec, ToolSpec
    from .formats.task import Task, ToolCall
    from .grading.results import Score
    from .grading.scoring import score_episode

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

#: The modules defining the public names, lightest first: a name is looked up in each in turn, so an
#: error class never loads the engine.
_MODULES = ("errors", "formats.task", "formats.spec", "grading.scoring", "engine", "catalog", "check")


def __getattr__(name: str) -> Any:
    if name in __all__:
        for module_name in _MODULES:
            module = importlib.import_module(f".{module_name}", __name__)
            if name in vars(module):
                value = vars(module)[name]
                globals()[name] = value  # later lookups skip this function
                return value
    raise AttributeError(f"module 'envs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
