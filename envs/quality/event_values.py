"""Values an event makes, on rows its status says have not been through it (measure 90,
docs/synthesis.md): an exam registration still ``registered``, or a ``no_show``, that already has four
score recipients, when only a scored registration takes one.

Read from the tools' SQL alone, so the measure runs on any catalog; the seed generator keeps it
(``synthesis.domains.status_fields``). A column every tool making the table's rows sets to one literal
(``score_recipients`` 0), and that only tools requiring their row in statuses an event leaves behind
(measure 7's words: ``scored``) write after, holds that literal on a row in a status before those
(``status_fields.before_reached``: listed before them, a no-show, or one the tools reach only from
before them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed import status_columns, status_phase
from .status_fields import before_reached, moved_from
from .tool_sql import inserts, required_states, updated_columns

_LITERAL = re.compile(r"^'?(-?[\w.]+)'?$")


@dataclass(frozen=True)
class EventValue:
    """``column`` of ``table`` is ``made`` (as a literal of the SQL) on rows in ``earlier`` statuses."""

    table: str
    column: str
    made: str
    reached: frozenset[str]
    earlier: frozenset[str]

    def disagrees(self, value: Any, status: Any) -> bool | None:
        if status not in self.earlier:
            return None
        return value is not None and str(value) != self.made and _number(value) != _number(self.made)


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def event_values(spec: EnvSpec) -> list[EventValue]:
    """The columns only tools past an event write after their row is made."""
    out: list[EventValue] = []
    for table in spec.tables:
        statuses = status_columns(table)
        if not statuses or not statuses[0].enum:
            continue
        made: dict[str, set[str]] = {}
        makers = 0
        writers: dict[str, list[set[str] | None]] = {}  # column -> each writing tool's own-row statuses
        for tool in spec.tools:
            own: set[str] | None = None
            for step in tool.steps:
                if step.kind == "require" and (req := required_states(step.sql or "")) and req[0] == "status":
                    own = set(req[1])
            for step in tool.steps:
                if step.kind != "exec":
                    continue
                for name, values in inserts(step.sql or ""):
                    if name == table.name:
                        makers += 1
                        for column, expr in values.items():
                            made.setdefault(column, set()).add(expr if _LITERAL.match(expr) else "?")
                for name, column in updated_columns(step.sql or ""):
                    if name == table.name:
                        writers.setdefault(column, []).append(own)
        out.extend(_rules(table, list(statuses[0].enum), made, makers, writers, spec))
    return out


def _rules(
    table: TableSpec,
    values: list[str],
    made: dict[str, set[str]],
    makers: int,
    writers: dict[str, list[set[str] | None]],
    spec: EnvSpec,
) -> Iterator[EventValue]:
    for column, owns in writers.items():
        literal = made.get(column, set())
        col = next((c for c in table.columns if c.name == column), None)
        if col is None or col.type not in ("integer", "real") or len(literal) != 1 or "?" in literal or not makers:
            continue  # a count or an amount a record starts at
        if not all(own and all(status_phase(v) == "after" for v in own) for own in owns):
            continue
        reached = {v for own in owns for v in own or ()} & set(values)
        if reached and len(reached) < len(values):
            earlier = before_reached(values, reached, moved_from(spec, table))
            yield EventValue(table.name, column, next(iter(literal)).strip("'"), frozenset(reached), earlier)


def event_value_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[EventValue, dict[str, Any], bool]]:
    """(rule, row, holding a value its status has not been through) for every row in an earlier status."""
    tables = {t.name: t for t in spec.tables}
    for rule in event_values(spec):
        status = status_columns(tables[rule.table])[0].name
        for row in rows.get(rule.table, []):
            found = rule.disagrees(row.get(rule.column), row.get(status))
            if found is not None:
                yield rule, row, found


@dataclass
class EventValueCounts:
    """Rows in a status before an event, and those holding a value only the event writes."""

    event_values_checked: int = 0
    values_before_event: int = 0


def values_before_event(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> EventValueCounts:
    """Measure 90 over ``rows`` (table -> rows; the seed by default)."""
    out = EventValueCounts()
    for _, _, found in event_value_findings(spec, spec.seed if rows is None else rows):
        out.event_values_checked += 1
        out.values_before_event += found
    return out
