"""Children under a parent their making never moved (measure 91, docs/synthesis.md): a pickup still
scheduled on a return still ``authorized``, where scheduling one moves its return to
``pickup_scheduled``.

Read from the tools' SQL alone, so the measure runs on any catalog; the seed generator keeps it
(``synthesis.domains.moved_parents``). A create that inserts a child row with a literal status and,
in the same call, moves the parent that row references to a literal status (``UPDATE
"return_authorizations" SET "status" = 'pickup_scheduled' WHERE return_authorization_id =
:return_authorization_id``, the value the child's reference is given) leaves every child still in its
made status under a parent in that status or one past it (``passed_rules.states_past``: a later
status no tool reaches from one before it). A child some tool makes, or moves back into its made
status, without moving the parent says nothing of it and is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec, ToolSpec
from .passed_rules import states_past
from .seed import status_columns
from .tool_sql import inserts, one_reference, set_state, status_moves

_WHERE_KEY = re.compile(r'WHERE "?(\w+)"? = (:\w+(?:\.\w+)?)\s*$')
_LITERAL = re.compile(r"^'(\w+)'$")


@dataclass(frozen=True)
class MovedParent:
    """Rows of ``child`` in ``made`` sit, through ``via``, under a row of ``parent`` whose status
    ``column`` is in ``states``: the create that makes them moves the parent to ``to``."""

    child: str
    via: str
    made: str
    parent: str
    column: str
    to: str
    states: frozenset[str]
    tool: str


def _made(tool: ToolSpec, tables: Mapping[str, TableSpec]) -> Iterator[tuple[str, str, dict[str, str]]]:
    """(child table, the literal status it is made in, its values) of every row ``tool`` inserts."""
    for step in tool.steps:
        for table, values in inserts(step.sql or "") if step.kind == "exec" else ():
            statuses = status_columns(tables[table]) if table in tables else []
            if statuses and (m := _LITERAL.match(values.get(statuses[0].name, ""))):
                yield table, m[1], values


def _parent_moves(tool: ToolSpec, tables: Mapping[str, TableSpec]) -> dict[tuple[str, str], tuple[str, str]]:
    """(parent table, the expression naming its row) -> (status column, the status set), for each
    UPDATE of ``tool`` setting one row's status, keyed by its primary key, to a literal."""
    out = {}
    for step in tool.steps:
        sql = (step.sql or "").strip()
        move = set_state(sql) if step.kind == "exec" else None
        table = tables.get(move.table) if move else None
        if move is None or table is None or not (m := _WHERE_KEY.search(sql)):
            continue
        statuses = status_columns(table)
        if statuses and move.column == statuses[0].name and table.primary_key == [m[1]]:
            out[table.name, m[2]] = (move.column, move.state)
    return out


def moved_parents(spec: EnvSpec) -> list[MovedParent]:
    """The child rows whose making moves their parent, and the parent statuses that fit them."""
    tables = {t.name: t for t in spec.tables}
    found: dict[tuple[str, str, str], list[MovedParent | None]] = {}
    for tool in spec.tools:
        moves = _parent_moves(tool, tables)
        for child, made, values in _made(tool, tables):
            for fk in tables[child].foreign_keys:
                via = one_reference(tables[child], fk.table)
                if via is None or fk.table == child:
                    continue
                hit = moves.get((fk.table, values.get(via, "")))
                key = (child, via, made)
                if hit is None:
                    found.setdefault(key, []).append(None)  # made under a parent left as it was
                    continue
                column, to = hit
                states = states_past(spec, fk.table, to) or frozenset({to})
                found.setdefault(key, []).append(MovedParent(child, via, made, fk.table, column, to, states, tool.name))
    # a row moved back into its made status by a tool that leaves the parent be says nothing of it
    returned = {(m.table, m.state) for t in spec.tools for m in status_moves(t)}
    out = []
    for (child, _, made), rules in found.items():
        if None in rules or (child, made) in returned:
            continue
        first = rules[0]
        assert first is not None
        states = frozenset().union(*(r.states for r in rules if r is not None))
        if all(r is not None and (r.parent, r.to) == (first.parent, first.to) for r in rules):
            out.append(MovedParent(**{**first.__dict__, "states": states}))
    return out


def unmoved_parents(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[MovedParent, dict[str, Any], dict[str, Any], bool]]:
    """(rule, child row still as made, its parent, whether the parent is not where the making left it)
    for every such child whose parent is on record."""
    tables = {t.name: t for t in spec.tables}
    for rule in moved_parents(spec):
        key = tables[rule.parent].primary_key[0]
        by_key = {r.get(key): r for r in rows.get(rule.parent, [])}
        status = status_columns(tables[rule.child])[0].name
        for row in rows.get(rule.child, []):
            parent = by_key.get(row.get(rule.via)) if row.get(status) == rule.made else None
            if parent is not None and parent.get(rule.column) is not None:
                yield rule, row, parent, parent[rule.column] not in rule.states


@dataclass
class MovedParentCounts:
    """Children still as made, under a parent their making moves, and those whose parent never moved."""

    moved_parent_rows_checked: int = 0
    children_on_unmoved_parents: int = 0


def children_on_unmoved_parents(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> MovedParentCounts:
    """Measure 91 over ``rows`` (table -> rows; the seed by default)."""
    out = MovedParentCounts()
    for *_, unmoved in unmoved_parents(spec, spec.seed if rows is None else rows):
        out.moved_parent_rows_checked += 1
        out.children_on_unmoved_parents += unmoved
    return out
