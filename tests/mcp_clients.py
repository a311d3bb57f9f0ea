"""The third-party MCP clients the tests drive against a live farm, and what to do when one is missing.

openai-agents and fastmcp install beside envfarm (the ``dev`` extra). LangChain's MCP adapters require
mcp < 2 while envfarm uses mcp 2.x, so the mcp 1.x clients live in a second environment,
``.venv-mcp1`` at the repository's root (``ENVFARM_MCP1_VENV`` names another), which ``scripts/setup``
makes; tests run scripts there by subprocess. A missing client skips its tests, unless
``ENVFARM_REQUIRE_CLIENTS=1`` (set by ``scripts/test``), which makes it a failure.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

MCP1_VENV = Path(os.environ.get("ENVFARM_MCP1_VENV") or Path(__file__).resolve().parents[1] / ".venv-mcp1")


def _missing(message: str) -> NoReturn:
    if os.environ.get("ENVFARM_REQUIRE_CLIENTS") == "1":
        pytest.fail(message)
    pytest.skip(message, allow_module_level=True)


def client_module(name: str) -> ModuleType:
    """Import a client library of this environment, or skip (fail under ENVFARM_REQUIRE_CLIENTS=1)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        _missing(f"{name} is not installed ({exc}; scripts/setup installs it)")


def mcp1_python() -> Path:
    """The mcp 1.x environment's interpreter, or skip (fail under ENVFARM_REQUIRE_CLIENTS=1)."""
    python = MCP1_VENV / "bin" / "python"
    if not python.exists():
        _missing(f"no mcp 1.x client environment at {MCP1_VENV} (scripts/setup makes it)")
    return python
