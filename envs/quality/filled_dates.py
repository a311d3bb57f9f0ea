"""Dates a move fills, against the row's status (measure 97, docs/synthesis.md): a study-abroad
application still a `draft` with a `submitted_on` day, an offered one with none.

Read from the tools' SQL alone, so the measure runs on any catalog; the seed generator keeps the rule
(``synthesis.domains.filled_dates``). A tool that requires its own row in some states and moves it
on to a status, setting a date column of the row to the day of the call in the same call
(``UPDATE "applications" SET "submitted_on" = :today``, then ``SET status = 'submitted'``), fills
that date by that move. The rows in a status no path through the move reaches (listed before its
target, or reached only from those: measure 68's :func:`.status_fields.before_reached`) have it
empty, and the column may be empty; the rows in a status reached only through it (its target and the
later ones no tool reaches from before it: measure 67's :func:`.passed_rules.states_past`) have it
set. A date to come that may not be empty (a renewal day a pause moves) is moved, not filled, and
is not read; one of something done (``submitted_on``) is, and its rows before the move count against
it even where the column may not be empty. A column some tool also sets in a state before the move
(a reschedule, an edit) is not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .own_row import status_of
from .passed_rules import states_past
from .seed import status_columns
from .seed_time import names_past_event
from .status_fields import before_reached, moved_from
from .tool_sql import required_statuses, status_moves, updated_columns

# a value of the day the tool runs: ``:today``, ``datetime(:now)``, ``date(:today, '+365 days')``
_CLOCK = re.compile(r":(?:today|now)\b")
_ASSIGN = re.compile(r'^\s*UPDATE "?(\w+)"? SET "?(\w+)"? = (.+?) WHERE ', re.S)


@dataclass(frozen=True)
class FilledDate:
    """``column`` of ``table`` is filled by a move into ``moves_to``: empty in ``empty`` statuses, set in
    ``filled`` ones; ``nullable`` says whether the column may be empty at all."""

    table: str
    column: str
    moves_to: frozenset[str]
    empty: frozenset[str]
    filled: frozenset[str]
    nullable: bool

    def disagrees(self, value: Any, status: str | None) -> bool | None:
        """Set before the move, or missing after it; None where the row's status says neither."""
        if status in self.empty:
            return value is not None and value != ""
        if status in self.filled:
            return value is None or value == ""
        return None


def filled_dates(spec: EnvSpec) -> list[FilledDate]:
    """The date columns a status move fills with the day it is made."""
    tables = {t.name: t for t in spec.tables}
    fills: dict[tuple[str, str], set[str]] = {}
    # the from-states of every tool setting a column that does not fill it by a move
    others: dict[tuple[str, str], list[frozenset[str]]] = {}
    for tool in spec.tools:
        froms = required_statuses(tool)
        moved = {(m.table, m.state) for m in status_moves(tool)}
        filling: set[tuple[str, str]] = set()
        for step in tool.steps:
            if step.kind != "exec":
                continue
            sql = (step.sql or "").strip()
            m = _ASSIGN.match(sql)
            targets = {state for table, state in moved if m and table == m[1]}
            if m is not None and m[2] != "status" and _CLOCK.search(m[3]) and froms and targets:
                fills.setdefault((m[1], m[2]), set()).update(targets)
                filling.add((m[1], m[2]))
                continue
            # the filling tool moving the day on (a hearing 21 days after the request) still fills it
            for key in set(updated_columns(sql)) - filling:
                others.setdefault(key, []).append(froms)
    out = []
    for (name, column), targets in sorted(fills.items()):
        table = tables.get(name)
        col = next((c for c in table.columns if c.name == column), None) if table else None
        statuses = status_columns(table) if table else []
        values = [v for v in (statuses[0].enum or []) if isinstance(v, str)] if statuses else []
        if col is None or col.type not in ("date", "datetime") or not set(targets) <= set(values):
            continue
        # a date to come every row carries (a renewal day a pause moves) is moved, not filled; a day of
        # something done (``submitted_on``) is filled once, even where the column wrongly may not be empty
        if not col.nullable and not names_past_event(column):
            continue
        empty = before_reached(values, targets, moved_from(spec, table)) if table else frozenset()
        # set in a state before the move too (an edit, a reschedule): no step of the lifecycle fills it
        if any(not f or f & empty for f in others.get((name, column), [])):
            continue
        filled = frozenset().union(*(states_past(spec, name, t) for t in targets)) - empty
        out.append(FilledDate(name, column, frozenset(targets), empty, filled, col.nullable))
    return out


@dataclass
class FilledDateCounts:
    """Rows read against a date a move fills, and those that disagree (measure 97)."""

    filled_dates_checked: int = 0
    dates_off_their_move: int = 0


def filled_date_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[FilledDate, dict[str, Any], bool]]:
    """(column, row, disagrees) for every row read."""
    tables = {t.name: t for t in spec.tables}
    for filled in filled_dates(spec):
        for row in rows.get(filled.table, []):
            against = filled.disagrees(row.get(filled.column), status_of(row, tables[filled.table]))
            if against is not None:
                yield filled, row, against


def dates_off_their_move(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> FilledDateCounts:
    """Measure 97 over ``rows`` (table -> rows; the seed by default)."""
    out = FilledDateCounts()
    for _, _, against in filled_date_findings(spec, spec.seed if rows is None else rows):
        out.filled_dates_checked += 1
        out.dates_off_their_move += against
    return out
