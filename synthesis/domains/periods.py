"""Seed rows kept inside the period their status names (the quality report's measure 31,
:mod:`envs.quality.periods`): a checked-in stay has not ended, a parked car entered already, an
active contract has not expired, an expired one has; a cancelled subscription has no next
billing date ahead (it is cleared where it may be empty), a delinquent loan's due date has passed.

:func:`settle_periods` runs once statuses are final (after ``timing.settle_named_dates``) and moves
the dates, never the status: the status is what tasks and limits were drawn for. A date a lifecycle
times (``timing.anchored_dates``) stays, except a running stay's start, which moves only within the
past (a check-in stays before the clock, so its lifecycle's timing holds). A move that would turn a
pair of the row backwards is undone.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.periods import Period, begun_statuses, period_breaches, period_of, phase
from envs.quality.seed import status_columns
from envs.quality.seed_time import names_past_event

from .timeline import date_in, inverted, parse, period_gap
from .timing import Anchors

#: How far back a running record's moved start goes when nothing else bounds it.
_BEGUN = {"date": timedelta(days=14), "datetime": timedelta(hours=6)}
#: How long ago the last due date of an overdue record, or the last event of an ended one, falls.
_LAST_DUE = timedelta(days=45)


def settle_periods(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Move the dates of ``spec``'s seed rows that contradict their status's period (in place).
    Returns the number of dates changed (deterministic)."""
    rng = random.Random(f"periods:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    moved = 0
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        period = period_of((c.name, c.type) for c in table.columns)
        if not statuses or period.empty:
            continue
        kinds: dict[str, str] = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        nullable = {c.name for c in table.columns if c.nullable}
        begun = begun_statuses(table, period)
        for row in spec.seed.get(table.name, []):
            state = phase(row, statuses)
            found = period_breaches(period, row, state, row.get(statuses[0]) in begun, spec.clock)
            if not found:
                continue
            before = dict(row)
            held = anchored(table.name, row)
            for column, what in found:
                _mend(row, column, what, period, kinds, column in nullable, held, spec.clock, rng)
            if inverted(row, kinds):
                row.update(before)
                continue
            moved += sum(row.get(c) != before.get(c) for c in kinds)
    return moved


def _mend(
    row: dict[str, Any],
    column: str,
    what: str,
    period: Period,
    kinds: dict[str, str],
    nullable: bool,
    held: frozenset[str],
    clock: datetime,
    rng: random.Random,
) -> None:
    kind = kinds[column]
    if what == "stamped":
        if nullable:
            row[column] = None
        return
    if period.length and column == period.length[0] and what in ("over", "not_started"):
        units = row.get(period.length[1])
        if isinstance(units, int | float) and units >= 0:
            reach = period.length[2] * units  # a start inside the last `reach` keeps the period running
            row[column] = _at_or_before(kind, clock, max(reach, timedelta(hours=1)), rng) or row[column]
        return
    if column in held and what != "not_due":  # an earlier due date keeps a lifecycle's "passed"
        return
    if what == "upcoming" and nullable:  # nothing comes next of a cancelled subscription
        row[column] = None
    elif what in ("upcoming", "not_due"):  # the last one fell before the clock: the record ended, or fell due
        hi = clock - timedelta(days=1) if kind == "date" else clock - timedelta(hours=1)
        row[column] = date_in(kind, clock - _LAST_DUE, hi, rng) or row[column]
    elif what == "not_started":
        since = max((parse(v) for c in kinds if names_past_event(c) and isinstance(v := row.get(c), str)), default=None)
        lo = clock - _BEGUN[kind]
        row[column] = date_in(kind, max(lo, since) if since and since < clock else lo, clock, rng) or row[column]
    elif what == "ended":
        row[column] = _end_ahead(row, column, period, kinds, held, clock, rng) or row[column]
    elif what == "not_lapsed":
        start = next((parse(v) for s in period.starts if isinstance(v := row.get(s), str)), None)
        lo = clock - timedelta(days=90)
        hi = clock - timedelta(days=1) if kind == "date" else clock
        row[column] = date_in(kind, max(lo, start) if start and start < hi else lo, hi, rng) or row[column]


def _end_ahead(
    row: dict[str, Any],
    column: str,
    period: Period,
    kinds: dict[str, str],
    held: frozenset[str],
    clock: datetime,
    rng: random.Random,
) -> str | None:
    """An end on or after the clock a plausible gap after the row's start; a start too long ago for
    any such gap comes forward first (a travel notice for a trip that began months ago would run for
    months), unless a lifecycle holds it."""
    kind = kinds[column]
    low = clock - timedelta(days=1) if kind == "date" else clock
    start = next((s for s in period.starts if isinstance(row.get(s), str)), None)
    if start is None:
        return date_in(kind, low, clock + timedelta(days=30), rng)
    least, most = period_gap(column, kinds[start], kind)
    begun = parse(row[start])
    if begun + most < clock and start not in held:
        moved = date_in(kinds[start], clock - most + least, clock, rng)
        if moved is not None:
            row[start], begun = moved, parse(moved)
    if kind == "date":
        begun = begun.replace(hour=0, minute=0, second=0)
    return date_in(kind, max(low, begun + least - timedelta(minutes=1)), max(begun + most, clock + least), rng)


def _at_or_before(kind: str, clock: datetime, reach: timedelta, rng: random.Random) -> str | None:
    """A start in the last ``reach`` before ``clock`` (for a date: a day from ``reach`` ago to today)."""
    if kind == "date":
        days = max(reach.days, 0)
        return (clock - timedelta(days=rng.randint(0, days))).strftime("%Y-%m-%d")
    return date_in(kind, clock - reach, clock, rng)
