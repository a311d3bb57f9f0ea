"""Children their parent's state denies (measure 98, docs/synthesis.md): a deposit refund charge on an
account still holding its deposit, a refund on a booking not cancelled.

Measure 91 (:mod:`.moved_parents`) reads a child made in a literal status by a create that moves its
parent; this one reads a child of a literal *kind*. A tool that inserts a child row whose kind column
(an enum column that is no status) it gives a literal (``'deposit_refund'``), referencing the row it
moves in the same call (``UPDATE "customers" SET deposit_status = 'deposit_refunded' WHERE customer_id
= :customer_id``, the value the child's reference is given), says every child of that kind stands
under a parent its move reached: in that status, one past it (``passed_rules.states_past``) or one
a tool moves it on to from those (a deposit's booking cancelled after), and
holding each literal the same call sets on it (``deposit_on_file`` 0) where no other tool writes that
column another way. A child table with no kind column written by a literal is read whole. A kind some
other insert may make (the literal elsewhere without the move, or the column given a parameter), or
that a tool rewrites, says nothing of its parent and is not read. Read from the tools' SQL alone, so
only the moves a customer's tool makes are seen; the seed generator keeps it
(``synthesis.domains.parent_kinds``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec, ToolSpec
from .passed_rules import states_past
from .seed import status_columns
from .tool_sql import all_updates, inserts, one_reference, required_statuses, status_moves, updated_columns

_SET_KEYED = re.compile(
    r"""^\s*UPDATE "?(\w+)"? SET "?(\w+)"? = ('[^']*'|-?\d+(?:\.\d+)?) WHERE "?(\w+)"? = (:\w+(?:\.\w+)?)\s*$"""
)
_LITERAL = re.compile(r"^'(\w+)'$")


@dataclass(frozen=True)
class ParentKind:
    """Rows of ``child`` whose ``column`` holds ``kind`` (``column`` None: every row) stand, through
    ``via``, under a row of ``parent`` whose status ``status`` is in ``states`` and whose columns hold
    ``sets``: the tools that make them move the parent there."""

    child: str
    via: str
    column: str | None
    kind: str | None
    parent: str
    status: str
    to: str
    states: frozenset[str]
    sets: tuple[tuple[str, str], ...]
    tool: str


def literal(sql_value: str) -> str:
    """The value an SQL literal stands for, as text (``'0'`` and ``0`` alike)."""
    return sql_value[1:-1] if sql_value.startswith("'") else sql_value


def _keyed_sets(tool: ToolSpec, tables: Mapping[str, TableSpec]) -> dict[tuple[str, str], dict[str, str]]:
    """(table, the expression naming its row) -> column -> the literal ``tool`` sets it to, for each
    UPDATE of one row, keyed by its primary key."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for step in tool.steps:
        m = _SET_KEYED.match((step.sql or "").strip()) if step.kind == "exec" else None
        table = tables.get(m[1]) if m else None
        if m is not None and table is not None and table.primary_key == [m[4]]:
            out.setdefault((table.name, m[5]), {})[m[2]] = literal(m[3])
    return out


def _kinds(table: TableSpec, values: Mapping[str, str]) -> list[tuple[str | None, str | None]]:
    """(kind column, kind) of an inserted row: each enum column that is no status given a literal, or
    (None, None) where none is; a column given anything else is (column, None), any kind at all."""
    statuses = {c.name for c in status_columns(table)}
    out: list[tuple[str | None, str | None]] = []
    for c in table.columns:
        if c.enum and c.name not in statuses and c.name in values:
            m = _LITERAL.match(values[c.name])
            out.append((c.name, m[1] if m else None))
    return out or [(None, None)]


def parent_kinds(spec: EnvSpec) -> list[ParentKind]:
    """The child kinds whose making moves their parent, with the parent statuses and values that fit."""
    tables = {t.name: t for t in spec.tables}
    rules: dict[tuple[str, str | None, str | None], list[ParentKind | None]] = {}
    for tool in spec.tools:
        sets = _keyed_sets(tool, tables)
        for step in tool.steps:
            for child, values in inserts(step.sql or "") if step.kind == "exec" else ():
                if child not in tables:
                    continue
                moved = _moved_parent(spec, tables[child], values, sets, tool.name)
                for column, kind in _kinds(tables[child], values):
                    rule = None if moved is None else ParentKind(**{**moved.__dict__, "column": column, "kind": kind})
                    rules.setdefault((child, column, kind), []).append(rule)
    rewritten = set(all_updates(spec))
    out = []
    for (child, column, kind), made in rules.items():
        if kind is None and column is not None:
            continue  # a kind given by a parameter: any kind may come without the move
        if None in made or rules.get((child, column, None)) or (child, column) in rewritten:
            continue
        found = [r for r in made if r is not None]
        first = found[0]
        if any((r.parent, r.via) != (first.parent, first.via) for r in found):
            continue
        common = set.intersection(*(set(r.sets) for r in found))
        kept = sorted((c, v) for c, v in common if _only_set_to(spec, first.parent, c, v))
        states = frozenset().union(*(r.states for r in found))
        out.append(ParentKind(**{**first.__dict__, "states": states, "sets": tuple(kept)}))
    return out


def _moved_parent(
    spec: EnvSpec, child: TableSpec, values: Mapping[str, str], sets: dict[tuple[str, str], dict[str, str]], tool: str
) -> ParentKind | None:
    """The parent the inserted row references that the same call moves to a literal status."""
    tables = {t.name: t for t in spec.tables}
    for fk in child.foreign_keys:
        via = one_reference(child, fk.table)
        if via is None or fk.table == child.name or fk.table not in tables:
            continue
        statuses = status_columns(tables[fk.table])
        written = sets.get((fk.table, values.get(via, "")), {})
        if not statuses or statuses[0].name not in written:
            continue
        status = statuses[0].name
        to = written[status]
        states = _onward(spec, fk.table, status, states_past(spec, fk.table, to) or frozenset({to}))
        others = tuple(sorted((c, v) for c, v in written.items() if c != status))
        return ParentKind(child.name, via, None, None, fk.table, status, to, states, others, tool)
    return None


def _onward(spec: EnvSpec, table: str, column: str, states: frozenset[str]) -> frozenset[str]:
    """``states`` and every status a tool moves a row of ``table`` on to from them: a refund's booking
    may be cancelled after, a deposit's too."""
    out = set(states)
    grew = True
    while grew:
        grew = False
        for tool in spec.tools:
            froms = required_statuses(tool, column)
            for move in status_moves(tool, column):
                if move.table == table and froms & out and move.state not in out:
                    out.add(move.state)
                    grew = True
    return frozenset(out)


def _only_set_to(spec: EnvSpec, table: str, column: str, value: str) -> bool:
    """Whether every tool step writing ``table.column`` sets it to ``value`` by a literal."""
    for tool in spec.tools:
        for step in tool.steps:
            sql = (step.sql or "").strip()
            if (table, column) not in set(updated_columns(sql)):
                continue
            m = _SET_KEYED.match(sql)
            if m is None or m[2] != column or literal(m[3]) != value:
                return False
    return True


def agrees(held: Any, value: str) -> bool:
    if isinstance(held, bool):
        return str(int(held)) == value or str(held).lower() == value.lower()
    if isinstance(held, int | float):
        try:
            return float(held) == float(value)
        except ValueError:
            return False
    return str(held) == value


def denied_children(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[ParentKind, dict[str, Any], dict[str, Any], list[str]]]:
    """(rule, child row of the kind, its parent, what of the parent denies it: its status column and
    each column off the literal the move sets) for every such child whose parent is on record."""
    tables = {t.name: t for t in spec.tables}
    for rule in parent_kinds(spec):
        key = tables[rule.parent].primary_key[0]
        by_key = {r.get(key): r for r in rows.get(rule.parent, [])}
        for row in rows.get(rule.child, []):
            parent = by_key.get(row.get(rule.via))
            if parent is None or parent.get(rule.status) is None:
                continue
            if rule.column is not None and row.get(rule.column) != rule.kind:
                continue
            off = [] if parent[rule.status] in rule.states else [rule.status]
            off += [c for c, v in rule.sets if parent.get(c) is not None and not agrees(parent[c], v)]
            yield rule, row, parent, off


@dataclass
class ParentKindCounts:
    """Children of a kind their parent's move makes, and those whose parent's state denies them."""

    parent_kind_rows_checked: int = 0
    children_parent_denies: int = 0


def children_parent_denies(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> ParentKindCounts:
    """Measure 98 over ``rows`` (table -> rows; the seed by default)."""
    denied: dict[tuple[int, int], bool] = {}  # a row of two kinds a move makes is one child of its parent
    for _, row, parent, off in denied_children(spec, spec.seed if rows is None else rows):
        denied[id(row), id(parent)] = denied.get((id(row), id(parent)), False) or bool(off)
    return ParentKindCounts(len(denied), sum(denied.values()))
