"""Records caught in a passing state, and dates a tool or a hold moves on from (measure 73,
docs/synthesis.md): a parcel out for delivery since November, seven weeks in ``delivery_attempted``, a
room-service order preparing for six weeks; a redelivery that adds three days to an expected date long
past and lands two months before the clock; a parcel held until a day before it was expected.

Read by column names, status words and the tools' SQL alone, so the measure runs on any catalog; the
seed generator keeps the rules (``synthesis.domains.transient``).

* **Passing states** (:data:`TRANSIENT`: in transit, out for delivery, attempted, dispatched, shipped,
  preparing, processing ...) last days. A row in one whose every date (:func:`state_dates`: what it
  was ordered, expected or requested on; no birth date, deadline or window) is more than
  :data:`MARGIN` before the clock has sat in it for weeks.
* **Dates a tool moves on**: a tool that sets a date to itself plus an argument's days
  (``expected_on = date(expected_on, '+' || :days || ' days')``) on rows in the statuses its checks
  allow computes a day from the stored one; a stored day more than one day before the clock's lands in
  the past even for the shortest move.
* **Money in transit**: a row of a money table (:mod:`.money_rows`: payments, charges, refunds ...)
  pending or processing (:data:`IN_TRANSIT`) moves a sum of more than 0 and has a date within
  :data:`MARGIN` of the clock: a payment pending for two months, or pending on nothing, says nothing
  is under way.
* **Holds ending before what they hold**: a hold's or an extension's end (``hold_until``,
  ``free_storage_until``) is not before the other dates of its row (``expected_on``, ``ready_at``,
  ``arrived_on``): a parcel is not held until a day before it arrives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .money_rows import money_table, nothing, status_word, sum_columns
from .periods import WINDOW_WORDS
from .seed import status_columns
from .text import word_set
from .tool_sql import bound_tables

#: Statuses of a thing under way that lasts days: moving, being made ready, being worked on.
TRANSIENT = word_set(
    """in_transit out_for_delivery delivery_attempted attempted dispatched shipped in_shipment en_route
    preparing picking packed on_scene processing technician_dispatched"""
)
#: Statuses of money on its way: a payment, a charge or a refund not yet through (not an invoice
#: submitted for approval: that waits on a person, for weeks if need be).
IN_TRANSIT = word_set("pending processing authorized initiated in_transit")
#: How long a row may sit in a passing state.
MARGIN = timedelta(days=7)
#: Words of a date that says nothing of when a state began: a birth date, a warranty.
_NOT_STATE = WINDOW_WORDS | word_set(
    "due by until deadline expires expiry expiration renews renewal next valid birth dob born warranty guarantee"
)
#: Words that make an ``until`` column a hold's or an extension's end.
_HOLD = word_set("hold held storage extended extension")

_MOVE = re.compile(
    r"\"?(\w+)\"?\s*=\s*(date|datetime)\(\"?(\w+)\"?,\s*"
    r"'\+'\s*\|\|\s*CAST\(:(\w+) AS INTEGER\)\s*\|\|\s*' (days|hours)'\)"
)
_UPDATE_TABLE = re.compile(r'UPDATE "?(\w+)"? SET', re.I)
_STATUS_CHECK = re.compile(r"^\s*SELECT :(\w+)\.(\w+) IN \(([^)]*)\)\s*$", re.I)


def _word(value: Any) -> str:
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


def transient(value: Any) -> bool:
    """Whether a status value says its row is in a state that lasts days."""
    word = _word(value)
    return word in TRANSIENT or word.endswith("_processing")


def state_dates(table: TableSpec) -> list[str]:
    """The date columns of ``table`` that tell when its current state began or is to end."""
    return [
        c.name
        for c in table.columns
        if c.type in ("date", "datetime") and not set(c.name.lower().split("_")) & _NOT_STATE
    ]


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def stale(row: Mapping[str, Any], columns: list[str], clock: datetime) -> bool:
    """Whether ``row`` has a date among ``columns`` and every one is more than :data:`MARGIN` back."""
    days = [d for c in columns if (d := _day(row.get(c)))]
    return bool(days) and max(days) < (clock - MARGIN).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class DayMove:
    """A tool sets ``column`` of ``table`` to itself plus an argument's ``unit`` (days, hours) on rows
    whose ``status`` is one of ``statuses``."""

    table: str
    column: str
    unit: str
    status: str
    statuses: frozenset[str]


def day_moves(spec: EnvSpec) -> list[DayMove]:
    """The date moves by an argument among ``spec``'s tools, with the statuses their checks allow."""
    out = []
    for tool in spec.tools:
        bound = bound_tables(tool)
        checks: dict[str, tuple[str, frozenset[str]]] = {}
        for step in tool.steps:
            if step.kind == "require" and (m := _STATUS_CHECK.match(step.sql or "")) and m[1] in bound:
                values = frozenset(v.strip().strip("'") for v in m[3].split(","))
                checks[bound[m[1]]] = (m[2], values)
        for step in tool.steps:
            table = _UPDATE_TABLE.search(step.sql or "") if step.kind == "exec" else None
            if table is None or table[1] not in checks:
                continue
            for m in _MOVE.finditer(step.sql or ""):
                if m[1] == m[3]:
                    status, values = checks[table[1]]
                    out.append(DayMove(table[1], m[1], m[5], status, values))
    return list(dict.fromkeys(out))


def lands_past(move: DayMove, row: Mapping[str, Any], clock: datetime) -> bool | None:
    """Whether the shortest move of ``row``'s date lands before the clock; None where it is not read."""
    if row.get(move.status) not in move.statuses or not isinstance(value := row.get(move.column), str):
        return None
    moved = datetime.fromisoformat(value[:19].replace(" ", "T")) + timedelta(**{move.unit: 1})
    if len(value) == 10 or move.unit == "days":
        return moved.strftime("%Y-%m-%d") < clock.strftime("%Y-%m-%d")
    return moved < clock


def in_transit_money(table: TableSpec) -> list[str]:
    """The columns of the sum a money record of ``table`` moves, where its status may say it is under way."""
    return [c.name for c in sum_columns(table)] if money_table(table) and status_columns(table) else []


def hold_ends(table: TableSpec) -> list[str]:
    """The ``until`` columns of ``table`` that end a hold or an extension."""
    out = []
    for c in table.columns:
        words = set(c.name.lower().split("_"))
        if c.type in ("date", "datetime") and "until" in words and words & _HOLD:
            out.append(c.name)
    return out


def held_dates(table: TableSpec, end: str) -> list[str]:
    """The dates of ``table`` a hold ending at ``end`` comes after."""
    return [c for c in state_dates(table) if c != end]


def ends_before_held(row: Mapping[str, Any], end: str, dates: list[str]) -> bool | None:
    """Whether ``row``'s hold ends on a day before another of its dates; None where it is not read."""
    until = _day(row.get(end))
    days = [d for c in dates if (d := _day(row.get(c)))]
    if until is None or not days:
        return None
    return until < max(days)


@dataclass
class TransientCounts:
    """Rows in a passing state with a date, those sitting in it for weeks; rows a tool moves a date of,
    those whose shortest move lands in the past; holds read, those ending before what they hold."""

    transient_rows_checked: int = 0
    transient_rows_stale: int = 0
    moved_dates_checked: int = 0
    moved_dates_landing_past: int = 0
    holds_checked: int = 0
    holds_ending_before: int = 0
    transit_money_checked: int = 0
    transit_money_off: int = 0


def transient_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, str, bool]]:
    """(kind, table, off) for every row read: kind is ``stale``, ``moved``, ``money`` or ``hold``."""
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        columns = state_dates(table) if statuses else []
        for row in rows.get(table.name, []) if columns else ():
            if any(transient(row.get(s)) for s in statuses) and any(_day(row.get(c)) for c in columns):
                yield "stale", table.name, stale(row, columns, spec.clock)
        if sums := in_transit_money(table):
            for row in rows.get(table.name, []) if statuses else ():
                if any(status_word(row.get(s)) in IN_TRANSIT for s in statuses):
                    idle = any(nothing(row.get(c)) for c in sums) or stale(row, columns, spec.clock)
                    yield "money", table.name, idle
        for end in hold_ends(table):
            dates = held_dates(table, end)
            for row in rows.get(table.name, []):
                if (off := ends_before_held(row, end, dates)) is not None:
                    yield "hold", table.name, off
    for move in day_moves(spec):
        for row in rows.get(move.table, []):
            if (past := lands_past(move, row, spec.clock)) is not None:
                yield "moved", move.table, past


def transient_counts(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> TransientCounts:
    """Measure 73 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    out = TransientCounts()
    fields = {"stale": "transient_rows", "moved": "moved_dates", "hold": "holds", "money": "transit_money"}
    off_fields = {
        "stale": "transient_rows_stale",
        "moved": "moved_dates_landing_past",
        "hold": "holds_ending_before",
        "money": "transit_money_off",
    }
    for kind, _, off in transient_findings(spec, spec.seed if rows is None else rows):
        checked = f"{fields[kind]}_checked"
        setattr(out, checked, getattr(out, checked) + 1)
        setattr(out, off_fields[kind], getattr(out, off_fields[kind]) + off)
    return out
