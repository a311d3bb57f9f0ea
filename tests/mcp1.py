"""The mcp 1.x client environment for the tests of what mcp 1.x clients and LangChain show.

LangChain's MCP adapters require mcp < 2 while envfarm uses mcp 2.x, so those clients live in a second
environment, ``.venv-mcp1`` at the repository's root (``ENVFARM_MCP1_VENV`` names another), which
``scripts/setup`` makes. Tests run scripts there by subprocess. Without it they are skipped, unless
``ENVFARM_REQUIRE_CLIENTS=1`` (set by ``scripts/test``), which makes a missing environment a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

VENV = Path(os.environ.get("ENVFARM_MCP1_VENV") or Path(__file__).resolve().parents[1] / ".venv-mcp1")


def mcp1_python() -> Path:
    """The environment's interpreter; skip the test (fail under ENVFARM_REQUIRE_CLIENTS=1) without it."""
    python = VENV / "bin" / "python"
    if not python.exists():
        message = f"no mcp 1.x client environment at {VENV} (scripts/setup makes it)"
        if os.environ.get("ENVFARM_REQUIRE_CLIENTS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return python
