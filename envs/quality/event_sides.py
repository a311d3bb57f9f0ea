"""Rows on the wrong side of their event's date (measure 92, docs/synthesis.md): claims for a treatment
ten weeks ahead, already submitted; a shift six weeks past still up for swap.

Read by table and column names, the policy's rules and the tools' SQL alone, so the measure runs on
any catalog; the seed generator keeps both (``synthesis.domains.event_sides``). Measure 7 reads the
statuses whose word names the event's side (``completed``, ``scheduled``); these are the ones whose
word does not:

* **A record of an event ahead.** A table named for what is written after an event (:data:`AFTER_NOUNS`:
  a claim, a reimbursement, an incident) holds it in every status: its own event date
  (``seed.event_column``: ``treatment_date``, ``stay_date``) is on or before the clock's day.
* **Waiting for an event long past.** A status every tool moving a row into requires the row's own
  event date ahead (``SELECT :rec.starts_at > datetime(:now, '+12 hours')``, or the rule "the shift's
  start time must be more than 12 hours away"), and that a tool moves rows on from, waits for that
  date (a shift ``up_for_swap``); a row in it whose date is more than :data:`MARGIN` before the clock
  would have been moved on (worked, called out) since. A state at rest (cancelled) waits for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .event_children import names_table
from .seed import event_column, status_columns, status_phase
from .text import column_words, word_set
from .tool_sql import bound_tables, inserts, required_moves, status_moves

#: Nouns of a table whose rows are written once the event they are about has happened.
AFTER_NOUNS = word_set("claim claims reimbursement reimbursements incident incidents expense expenses")
#: How long past its date a row may still wait for it (the staff's move on comes within days).
MARGIN = timedelta(days=7)

_AHEAD_SQL = re.compile(r"^SELECT :rec\.(\w+) >=? (?:datetime|date)?\(?:(?:now|today)\b")
_AHEAD_RULE = re.compile(r"^the (.+?)'s (.+?) must be (?:more than \d+ (?:hours?|days?) away|in the future)$")


@dataclass(frozen=True)
class Waiting:
    """Rows of ``table`` in ``status`` wait for ``column``: every move into it requires that date ahead."""

    table: str
    status: str
    column: str


def after_tables(spec: EnvSpec) -> list[tuple[TableSpec, str]]:
    """(table, its own event date column) of every table named for a record of an event past."""
    out = []
    for table in spec.tables:
        if not AFTER_NOUNS & set(table.name.split("_")) or not status_columns(table):
            continue
        where = event_column(spec, table)
        if where is not None and where[0] is None:
            out.append((table, where[1].name))
    return out


def _ahead_columns(spec: EnvSpec, tool_name: str, sql: list[str], table: TableSpec) -> set[str]:
    """The date columns of the tool's own row it requires ahead of the clock, by its SQL or its rules."""
    dates = {c.name for c in table.columns if c.type in ("date", "datetime")}
    out = {m[1] for q in sql if (m := _AHEAD_SQL.match(q)) and m[1] in dates}
    for rule in spec.rules:
        if rule.tool == tool_name and (m := _AHEAD_RULE.match(rule.text.strip())) and names_table(m[1], table.name):
            out |= {c for c in dates if column_words(c) == m[2].strip().lower()}
    return out


def waiting_states(spec: EnvSpec) -> list[Waiting]:
    """The statuses that wait for their row's own date, read from every tool moving rows into them."""
    tables = {t.name: t for t in spec.tables}
    into: dict[tuple[str, str], list[set[str]]] = {}  # (table, status) -> the columns each move requires ahead
    for tool in spec.tools:
        own = bound_tables(tool).get("rec")
        sql = [(s.sql or "").strip() for s in tool.steps if s.kind == "require"]
        for move in status_moves(tool):
            if move.table not in tables:
                continue
            ahead = _ahead_columns(spec, tool.name, sql, tables[move.table]) if move.table == own else set()
            into.setdefault((move.table, move.state), []).append(ahead)
    made = {
        (table, values.get("status", "").strip("'"))
        for t in spec.tools
        for s in t.steps
        if s.kind == "exec"
        for table, values in inserts(s.sql or "")
    }
    left = {(m.table, state) for _, m, froms in required_moves(spec) for state in froms}
    out = []
    for (table, status), requires in sorted(into.items()):
        where = event_column(spec, tables[table])
        if where is None or where[0] is not None or where[1].name not in set.intersection(*requires):
            continue  # no move into it requires the row's own event ahead
        if (table, status) in made or (table, status) not in left or status_phase(status) is not None:
            continue  # made so, a state at rest (cancelled), or one measure 7 reads by its word
        out.append(Waiting(table, status, where[1].name))
    return out


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def rows_off_their_event(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[str, str, dict[str, Any], bool]]:
    """(kind, the date column, row, whether the row is on the wrong side of it) for every row read:
    kind ``record`` for a record of an event ahead, ``waiting`` for a row waiting on one long past."""
    clock: datetime = spec.clock
    today = clock.strftime("%Y-%m-%d")
    for table, column in after_tables(spec):
        for row in rows.get(table.name, []):
            if (day := _day(row.get(column))) is not None:
                yield "record", column, row, day > today
    long_ago = (clock - MARGIN).strftime("%Y-%m-%d")
    for w in waiting_states(spec):
        for row in rows.get(w.table, []):
            if row.get("status") == w.status and (day := _day(row.get(w.column))) is not None:
                yield "waiting", w.column, row, day < long_ago


@dataclass
class EventSideCounts:
    """Records of an event and rows waiting for one, and those on the wrong side of its date."""

    event_records_checked: int = 0
    records_of_events_ahead: int = 0
    waiting_rows_checked: int = 0
    waiting_for_events_past: int = 0


def rows_on_wrong_side(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> EventSideCounts:
    """Measure 92 over ``rows`` (table -> rows; the seed by default)."""
    out = EventSideCounts()
    for kind, _, _, wrong in rows_off_their_event(spec, spec.seed if rows is None else rows):
        if kind == "record":
            out.event_records_checked += 1
            out.records_of_events_ahead += wrong
        else:
            out.waiting_rows_checked += 1
            out.waiting_for_events_past += wrong
    return out
