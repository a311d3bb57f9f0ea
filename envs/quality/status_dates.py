"""Statuses against their own dates (measure 109, docs/synthesis.md): glasses `ready_for_pickup` eight
days before their `ready_by`, an order picked up while its ready day is still ahead, a lab order still
`placed` a month after the day it was to be ready.

Read by column names, status words and the tools' SQL alone, so the measure runs on any catalog; the
seed generator keeps the rule (``synthesis.domains.status_dates``). A date column is named for a status
when its name begins with the status (``picked_up_at`` of ``picked_up``) or, for a status of several
words, with a first word no other status shares (``ready_by`` of ``ready_for_pickup``), and that word
says something has happened (:data:`HAPPENED`: ready, shipped, delivered, checked in). Rows in the
status, or in a later one no tool reaches from before it (measure 67's
:func:`.passed_rules.states_past`: picked up, remake requested), have the day on or before the clock's
day. Rows in a status listed before it are still waiting for it; where every row carries the day (the
column may not be empty), it lies no more than :data:`LATE_DAYS` behind the clock. A day that may be
empty until the status comes is measure 59's (set once in it) and 97's (filled by the move).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .own_row import status_of
from .passed_rules import states_past
from .seed import status_columns
from .text import word_set

#: First words of a status saying its event has happened, and of the date column named for it.
HAPPENED = word_set(
    """ready shipped dispatched delivered completed collected picked installed arrived departed checked
    fulfilled finished boarded activated"""
)
#: How many days a waiting row's date may lie behind the clock: an order a few days late is still an
#: order; one a month late and still at the lab is not believed.
LATE_DAYS = 7


@dataclass(frozen=True)
class StatusDate:
    """``column`` of ``table`` is the day of ``status``: on or before the clock in ``done`` statuses, and,
    where ``waiting_read``, at most :data:`LATE_DAYS` behind it in ``waiting`` ones."""

    table: str
    column: str
    status: str
    done: frozenset[str]
    waiting: frozenset[str]
    waiting_read: bool

    def side(self, status: str | None) -> str | None:
        """'done' or 'waiting' for a row in ``status``, else None (not read)."""
        if status in self.done:
            return "done"
        return "waiting" if self.waiting_read and status in self.waiting else None


def named_status(column: str, statuses: list[str]) -> str | None:
    """The status ``column`` is named for, if its event has happened (:data:`HAPPENED`).

    >>> named_status("ready_by", ["placed", "ready_for_pickup", "picked_up"])
    'ready_for_pickup'
    >>> named_status("checked_in_at", ["booked", "checked_in", "checked_out"])
    'checked_in'
    >>> named_status("checked_at", ["booked", "checked_in", "checked_out"]) is None
    True
    """
    first = column.split("_")[0]
    if first not in HAPPENED:
        return None
    whole = [s for s in statuses if column == s or column.startswith(s + "_")]
    if whole:
        return max(whole, key=len)
    sharing = [s for s in statuses if s.split("_")[0] == first]
    return sharing[0] if len(sharing) == 1 else None


def status_dates(spec: EnvSpec) -> list[StatusDate]:
    """The date columns named for a status that says its event happened."""
    out = []
    for table in spec.tables:
        statuses = status_columns(table)
        values = [v for v in (statuses[0].enum or []) if isinstance(v, str)] if statuses else []
        for col in table.columns:
            status = named_status(col.name, values) if col.type in ("date", "datetime") else None
            if status is None:
                continue
            done = states_past(spec, table.name, status)
            waiting = frozenset(values[: values.index(status)]) - done
            out.append(StatusDate(table.name, col.name, status, done, waiting, not col.nullable))
    return out


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def off_side(found: StatusDate, row: Mapping[str, Any], table: TableSpec, clock: datetime) -> bool | None:
    """Whether ``row``'s day is on the wrong side of the clock for its status; None where not read."""
    side, day = found.side(status_of(row, table)), _day(row.get(found.column))
    if side is None or day is None:
        return None
    today = clock.strftime("%Y-%m-%d")
    if side == "done":
        return day > today
    return day < (clock - timedelta(days=LATE_DAYS)).strftime("%Y-%m-%d")


def status_date_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[StatusDate, dict[str, Any], bool]]:
    """(column, row, on the wrong side) for every row read."""
    tables = {t.name: t for t in spec.tables}
    for found in status_dates(spec):
        for row in rows.get(found.table, []):
            wrong = off_side(found, row, tables[found.table], spec.clock)
            if wrong is not None:
                yield found, row, wrong


@dataclass
class StatusDateSideCounts:
    """Rows read against the day their status names, and those on the wrong side of the clock."""

    status_dates_checked: int = 0
    statuses_against_own_dates: int = 0


def statuses_against_own_dates(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> StatusDateSideCounts:
    """Measure 109 over ``rows`` (table -> rows; the seed by default)."""
    out = StatusDateSideCounts()
    for _, _, wrong in status_date_findings(spec, spec.seed if rows is None else rows):
        out.status_dates_checked += 1
        out.statuses_against_own_dates += wrong
    return out
