"""Imports follow the layers in DESIGN.md: envs <- synthesis, server <- clients (HTTP only) <- envfarm."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
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


# -- modules --------------------------------------------------------------------------------------
PACKAGES = ("envs", "synthesis", "server", "clients", "envfarm")
# synthesis's stages, in pipeline order: a stage imports only stages before it (see synthesis/__init__.py)
SYNTHESIS_STAGES = (
    "domains",
    "seeds",
    "tools",
    "gate",
    "sources",
    "tasks",
    "dual",
    "knowledge",
    "catalog",
    "tau2",
    "bench",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _project_modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _module_imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules that ``path`` imports anywhere (in functions and under TYPE_CHECKING too)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # "from package import module" imports the module; "from module import name" the module
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _import_graph() -> nx.DiGraph:
    modules = _project_modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        graph.add_edges_from((name, target) for target in _module_imports(path, modules))
    return graph


def test_no_import_cycles():
    graph = _import_graph()
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert cycles == []


def test_synthesis_stages_import_only_earlier_stages():
    def stage(module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if parts[0] == "synthesis" and len(parts) > 2 else None

    late = sorted(
        f"{a} -> {b}"
        for a, b in _import_graph().edges
        if (sa := stage(a)) and (sb := stage(b)) and SYNTHESIS_STAGES.index(sb) > SYNTHESIS_STAGES.index(sa)
    )
    assert late == []


def test_synthesis_has_no_modules_at_its_top_level():
    top = sorted(p.name for p in (ROOT / "synthesis").glob("*.py") if p.name != "__init__.py")
    stages = sorted(p.name for p in (ROOT / "synthesis").iterdir() if (p / "__init__.py").exists())
    assert top == []
    assert stages == sorted(SYNTHESIS_STAGES)


# envs/'s rooms (see envs/__init__.py): each subpackage and what it may import of envs, lowest first
ENVS_SUBPACKAGES = {
    "formats": set(),
    "schemas": {"formats", "errors"},
    "engine": {"formats", "schemas", "errors"},
    "grading": {"formats", "engine", "errors"},
    "quality": {"formats", "engine", "grading", "catalog", "errors"},
    "embeddings": {"errors", "paths", "cache_files"},
}
# the modules envs/ keeps at its top level: errors, where files live, and what joins the rooms
ENVS_TOP_MODULES = ("__init__", "errors", "paths", "cache_files", "catalog", "check", "bench")


def test_envs_keeps_only_the_allowed_modules_at_its_top_level():
    top = sorted(p.stem for p in (ROOT / "envs").glob("*.py"))
    packages = sorted(p.name for p in (ROOT / "envs").iterdir() if (p / "__init__.py").exists())
    assert top == sorted(ENVS_TOP_MODULES)
    assert packages == sorted(ENVS_SUBPACKAGES)


def test_envs_subpackages_import_only_their_declared_neighbours():
    def room(module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if parts[0] == "envs" and len(parts) > 1 else None

    undeclared = sorted(
        f"{a} -> {b}"
        for a, b in _import_graph().edges
        if (ra := room(a)) in ENVS_SUBPACKAGES and (rb := room(b)) is not None and rb != ra
        if rb not in ENVS_SUBPACKAGES[ra]
    )
    assert undeclared == []
