"""Imports follow the layers in DESIGN.md: envs <- synthesis, server <- clients (HTTP only) <- envfarm."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# package -> top-level packages it must never import
FORBIDDEN = {
    "envs": {"mcp", "fastapi", "starlette", "uvicorn", "synthesis", "server", "clients", "envfarm"},
    "synthesis": {"server", "clients", "envfarm", "mcp", "fastapi"},
    "server": {"synthesis", "clients", "envfarm"},
    "clients": {"server", "synthesis", "envfarm"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_lower_layers(package):
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imports(p) & FORBIDDEN[package])
        for p in (ROOT / package).rglob("*.py")
        if _imports(p) & FORBIDDEN[package]
    }
    assert offenders == {}


def test_no_module_exceeds_600_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for pkg in (*FORBIDDEN, "envfarm")
        for p in (ROOT / pkg).rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
