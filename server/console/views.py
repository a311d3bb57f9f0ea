"""What the environment page shows, shaped from the spec: table constraints, a sample of seed rows, the
rules guarding each tool, and tool dependencies as lists per tool (not a graph drawing).

Dependencies come from the environment's ``graph.json`` when the synthesis pipeline stored one (edges
with their kind, ``data`` or ``state``, and the keys that link the tools). The reference environments
have none; for them a tool *needs* another when one of its parameters is named in the other's result
(the ``return`` step's SQL), which is what an agent does: find an id, then pass it on.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs import CatalogEntry, EnvSpec
from envs.formats.spec import TableSpec, ToolSpec

SEED_SAMPLE_ROWS = 5


@dataclass
class TableView:
    """One table: its columns with their constraints, table constraints, and a sample of seed rows."""

    name: str
    description: str
    columns: list[dict[str, str]]
    constraints: list[str]
    seed_rows: int
    sample: list[dict[str, Any]]


def _column_notes(table: TableSpec) -> list[dict[str, str]]:
    out = []
    for c in table.columns:
        notes = []
        if c.name in table.primary_key:
            notes.append("primary key" if len(table.primary_key) == 1 else "in primary key")
        if c.unique:
            notes.append("unique")
        if not c.nullable and c.name not in table.primary_key:
            notes.append("not null")
        if c.enum:
            notes.append("one of " + ", ".join(c.enum))
        if c.default is not None:
            notes.append(f"default {c.default}")
        if c.check:
            notes.append(f"check {c.check}")
        out.append({"name": c.name, "type": c.type, "notes": "; ".join(notes), "description": c.description})
    return out


def _table_constraints(table: TableSpec) -> list[str]:
    out = []
    if len(table.primary_key) > 1:
        out.append("primary key (" + ", ".join(table.primary_key) + ")")
    for fk in table.foreign_keys:
        out.append(
            f"({', '.join(fk.columns)}) references {fk.table} ({', '.join(fk.references)}), on delete {fk.on_delete}"
        )
    out += ["unique (" + ", ".join(u) + ")" for u in table.unique]
    out += [f"check {c}" for c in table.checks]
    return out


def table_views(spec: EnvSpec) -> list[TableView]:
    """Every table of ``spec``, with the first few seed rows."""
    return [
        TableView(
            name=t.name,
            description=t.description,
            columns=_column_notes(t),
            constraints=_table_constraints(t),
            seed_rows=len(spec.seed.get(t.name, [])),
            sample=spec.seed.get(t.name, [])[:SEED_SAMPLE_ROWS],
        )
        for t in spec.tables
    ]


def guards(spec: EnvSpec, tool: ToolSpec) -> list[dict[str, str]]:
    """The rules about ``tool``: the spec's rules (guarded by the tool or stated in the policy only),
    else the messages of its checking steps, which are the rules the tool enforces."""
    rules = [
        {"text": r.text, "by": "tool" if r.enforced_by == "tool" else "policy only"}
        for r in spec.rules
        if r.tool == tool.name
    ]
    if rules:
        return rules
    messages = [s.message for s in tool.steps if s.kind in ("require", "query") and getattr(s, "message", None)]
    return [{"text": str(m), "by": "tool"} for m in dict.fromkeys(messages)]


@dataclass
class Dependency:
    """One tool's place among the others."""

    tool: str
    kind: str
    group: str
    needs: list[tuple[str, str]] = field(default_factory=list)  # (tool, why)
    enables: list[tuple[str, str]] = field(default_factory=list)


def _edges_from_graph(path: Path) -> tuple[list[tuple[str, str, str]], dict[str, str]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    edges = [
        (str(e["source"]), str(e["target"]), f"{e.get('kind', '')}: {e.get('keys', '')}".strip(": "))
        for e in data.get("edges") or data.get("links") or []
        if isinstance(e, dict) and "source" in e and "target" in e
    ]
    groups = {str(n["id"]): str(n.get("entity", "")) for n in data.get("nodes") or [] if isinstance(n, dict)}
    return edges, groups


def _edges_from_names(spec: EnvSpec) -> list[tuple[str, str, str]]:
    returns = {t.name: " ".join(s.sql for s in t.steps if s.kind == "return") for t in spec.tools}
    edges = []
    for user in spec.tools:
        params = (user.parameters.get("properties") or {}).keys()
        for giver in spec.tools:
            if giver.name == user.name or giver.kind != "read":
                continue
            named = [p for p in params if re.search(rf"\b{re.escape(p)}\b", returns[giver.name])]
            if named:
                edges.append((giver.name, user.name, "gives " + ", ".join(named)))
    return edges


def dependencies(entry: CatalogEntry) -> tuple[list[Dependency], str]:
    """Per tool, what it needs and what it enables, grouped (by entity where known, else by kind);
    and where the edges came from."""
    spec = entry.spec
    stored = _edges_from_graph(entry.path / "graph.json") if entry.path else None
    if stored is not None:
        edges, groups = stored
        source = "the dependency graph synthesis stored with this environment"
    else:
        edges, groups = _edges_from_names(spec), {}
        source = "parameter names found in other tools' results (no stored graph for this environment)"
    deps = {t.name: Dependency(t.name, t.kind, groups.get(t.name) or t.kind) for t in spec.tools}
    for a, b, why in edges:
        if a in deps and b in deps:
            deps[b].needs.append((a, why))
            deps[a].enables.append((b, why))
    ordered = sorted(deps.values(), key=lambda d: (d.group, d.kind != "read", d.tool))
    return ordered, source
