"""What a spec's tools say about the values they write, read from their SQL alone: the row a binding
names, the columns an UPDATE sets, the values an INSERT gives. Shared by the measures that hold seed
rows to the tools that make and move them (``made_amounts``, ``passed_rules``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..formats.spec import EnvSpec, QueryStep, TableSpec, ToolSpec
from .own_row import top_level_items

_INSERT = re.compile(r'INSERT INTO "?(\w+)"? \(([^)]*)\) VALUES \((.*)\)', re.S)
_SELECT_ROW = re.compile(r'^\s*SELECT \* FROM "?(\w+)"? WHERE', re.I)
_UPDATE = re.compile(r'UPDATE "?(\w+)"? SET (.*?) WHERE ', re.S)
_ASSIGNED = re.compile(r'(?:^|,)\s*"?(\w+)"?\s*=')
#: A value read from a bound row: ``:ref_award_flight.miles_required``, ``:rec.amount_requested``.
BOUND_VALUE = re.compile(r"^:(\w+)\.(\w+)$")


def bound_tables(tool: ToolSpec) -> dict[str, str]:
    """Binding name -> the table whose one row a ``SELECT *`` query of the tool binds it to."""
    out: dict[str, str] = {}
    for step in tool.steps:
        if isinstance(step, QueryStep) and (m := _SELECT_ROW.match(step.sql or "")):
            out[step.bind] = m[1]
    return out


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
