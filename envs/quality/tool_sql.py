"""What a spec's tools say about the values they write, read from their SQL alone: the row a binding
names, the columns an UPDATE sets, the values an INSERT gives, the states a tool requires its own row
in and the state it moves a row to. Shared by the measures that hold seed rows to the tools that make
and move them (``made_amounts``, ``passed_rules``, ``already``, ``write_rules``, ``event_children``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..formats.spec import EnvSpec, QueryStep, TableSpec, ToolSpec
from .own_row import top_level_items

_INSERT = re.compile(r'INSERT INTO "?(\w+)"? \(([^)]*)\) VALUES \((.*)\)', re.S)
_SELECT_ROW = re.compile(r'^\s*SELECT \* FROM "?(\w+)"? WHERE', re.I)
_UPDATE = re.compile(r'UPDATE "?(\w+)"? SET (.*?) WHERE ', re.S)
_ASSIGNED = re.compile(r'(?:^|,)\s*"?(\w+)"?\s*=')
_REQUIRED = re.compile(r"^\s*SELECT :rec\.(\w+) IN \(([^)]*)\)\s*$")
_SET_LITERAL = re.compile(r"""^\s*UPDATE "?(\w+)"? SET "?(\w+)"? = '(\w+)' WHERE""")
_STATE = re.compile(r"'(\w+)'")
#: A value read from a bound row: ``:ref_award_flight.miles_required``, ``:rec.amount_requested``.
BOUND_VALUE = re.compile(r"^:(\w+)\.(\w+)$")


def bound_tables(tool: ToolSpec) -> dict[str, str]:
    """Binding name -> the table whose one row a ``SELECT *`` query of the tool binds it to."""
    out: dict[str, str] = {}
    for step in tool.steps:
        if isinstance(step, QueryStep) and (m := _SELECT_ROW.match(step.sql or "")):
            out[step.bind] = m[1]
    return out


@dataclass(frozen=True)
class SetState:
    """An UPDATE setting ``column`` of ``table`` to the literal ``state`` (``SET status = 'issued'``)."""

    table: str
    column: str
    state: str


def set_state(sql: str) -> SetState | None:
    """The state an UPDATE step sets by a literal as its first assignment, if it does."""
    m = _SET_LITERAL.match(sql)
    return SetState(m[1], m[2], m[3]) if m else None


def required_states(sql: str) -> tuple[str, frozenset[str]] | None:
    """(column, states) of a check that the tool's own row holds one of ``states``
    (``SELECT :rec.status IN ('approved', 'held')``)."""
    m = _REQUIRED.match(sql)
    return (m[1], frozenset(_STATE.findall(m[2]))) if m else None


def status_moves(tool: ToolSpec, column: str = "status") -> list[SetState]:
    """Every state the tool's steps set ``column`` of some table to by a literal."""
    return [s for step in tool.steps if step.kind == "exec" and (s := set_state(step.sql or "")) and s.column == column]


def required_statuses(tool: ToolSpec, column: str = "status") -> frozenset[str]:
    """The states the tool requires its own row's ``column`` in, over all its checks (empty: any)."""
    return frozenset(
        state
        for step in tool.steps
        if step.kind == "require" and (r := required_states(step.sql or "")) and r[0] == column
        for state in r[1]
    )


def required_moves(spec: EnvSpec) -> Iterator[tuple[ToolSpec, SetState, frozenset[str]]]:
    """(tool, move, the states it requires its own row in) of every status move a tool makes from
    states it requires; a move from any state is left out (an edit, or a reset, is no step of a
    lifecycle)."""
    for tool in spec.tools:
        if froms := required_statuses(tool):
            for move in status_moves(tool):
                yield tool, move, froms


def inserts(sql: str) -> Iterator[tuple[str, dict[str, str]]]:
    """(table, column -> value expression) of every INSERT in ``sql``."""
    for m in _INSERT.finditer(sql):
        columns = [c.strip().strip('"') for c in m[2].split(",")]
        yield m[1], dict(zip(columns, (v.strip() for v in top_level_items(m[3])), strict=False))


def updated_columns(sql: str) -> Iterator[tuple[str, str]]:
    """(table, column) of every column an UPDATE in ``sql`` sets."""
    for m in _UPDATE.finditer(sql):
        for column in _ASSIGNED.findall(_outside_parentheses(m[2])):
            yield m[1], column


def _outside_parentheses(text: str) -> str:
    """``text`` with whatever parentheses hold blanked out (``round(a + b, 2)``'s comma is no list's)."""
    out, depth = [], 0
    for ch in text:
        depth += ch == "("
        out.append(ch if depth == 0 else " ")
        depth -= ch == ")"
    return "".join(out)


def all_updates(spec: EnvSpec) -> dict[tuple[str, str], list[str]]:
    """(table, column) -> the SQL of every step that sets it by an UPDATE."""
    out: dict[tuple[str, str], list[str]] = {}
    for tool in spec.tools:
        for step in tool.steps:
            for key in updated_columns(step.sql or ""):
                out.setdefault(key, []).append(step.sql or "")
    return out


def one_reference(table: TableSpec, parent: str) -> str | None:
    """The one column of ``table`` that references ``parent`` (None for none or several)."""
    found = [fk.columns[0] for fk in table.foreign_keys if fk.table == parent and len(fk.columns) == 1]
    return found[0] if len(found) == 1 else None


def number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
