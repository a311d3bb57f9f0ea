"""No record used before it begins, none followed up the day it began (the quality report's measure
112, :mod:`envs.quality.in_use`): no solar share starting next week with generation credited, no
loan borrowed this morning open to a renewal.

:func:`settle_in_use` runs once statuses and dates are final. A row counted only for a use number of
its own (a roaming pass still `scheduled` with data used) has used nothing yet: the number is 0. Any
other row's start moves back to :data:`~envs.quality.in_use.FOLLOW_UP_DAYS` or more before the clock,
and before a renewal it records. The start moves alone, or with the row's later dates where a term ties them (a loan due
21 days after it was borrowed), to a day drawn from the two weeks allowed; a move that would break
another measure of dates (a term, an order of dates, a child before its parent, a horizon) is not
made, and a row no move fits is left as drawn.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.awaited import awaited_long_past
from envs.quality.child_dates import children_before_parent
from envs.quality.date_order import rows_out_of_order
from envs.quality.deadlines import deadlines_before_record
from envs.quality.event_children import children_before_event
from envs.quality.event_sides import rows_on_wrong_side
from envs.quality.filled_dates import dates_off_their_move
from envs.quality.horizons import dates_beyond_horizon, day
from envs.quality.in_use import FOLLOW_UP_DAYS, IN_USE, Started, in_use_findings, started_tables, wrong_start
from envs.quality.lapses import lapse_dates_against_status
from envs.quality.money_dates import money_dates_against_record
from envs.quality.own_row import status_of
from envs.quality.periods import rows_outside_period
from envs.quality.status_dates import statuses_against_own_dates
from envs.quality.terms import dates_against_terms
from envs.quality.transient import transient_counts

#: How many days further back than the latest day allowed a start may go: spread over two weeks,
#: not every loan borrowed on one day, and a 21-day loan moved with its due day still out.
REACH_DAYS = 13

_Rows = Mapping[str, list[dict[str, Any]]]
#: The measures of dates a moved start must not break.
_GUARDS: tuple[Callable[[EnvSpec, _Rows], Any], ...] = (
    dates_against_terms,
    rows_out_of_order,
    children_before_parent,
    lapse_dates_against_status,
    dates_off_their_move,
    rows_on_wrong_side,
    rows_outside_period,
    children_before_event,
    deadlines_before_record,
    awaited_long_past,
    transient_counts,
    dates_beyond_horizon,
    statuses_against_own_dates,
    money_dates_against_record,
)


def _broken(spec: EnvSpec) -> int:
    """Rows the guarding measures count as wrong (every count but the ``*_checked`` ones)."""
    return sum(
        value
        for guard in _GUARDS
        for name, value in asdict(guard(spec, spec.seed)).items()
        if not name.endswith("_checked") and isinstance(value, int)
    )


def _shifted(value: str, days: int) -> str:
    moved = datetime.strptime(value[:10], "%Y-%m-%d") + timedelta(days=days)
    return moved.strftime("%Y-%m-%d") + value[10:]


def _latest(found: Started, row: dict[str, Any], clock: datetime) -> datetime:
    """The latest day the row's start may take: a week before the clock, and before a renewal it
    records; a share with generation credited has run a week at least, as a loan open to renewal has."""
    today = clock.replace(hour=0, minute=0, second=0, microsecond=0)
    recorded = [d for c in found.follow_up_days if (d := day(row.get(c)))]
    return min([today, *recorded]) - timedelta(days=FOLLOW_UP_DAYS)


def _moves(row: dict[str, Any], column: str, target: datetime) -> list[dict[str, str]]:
    """The start alone moved to ``target``, then with the row's later dates by the same shift."""
    old = str(row[column])
    start = day(old)
    if start is None:
        return []
    days = (target - start).days
    alone = {column: _shifted(old, days)}
    later = {
        c: _shifted(v, days)
        for c, v in row.items()
        if isinstance(v, str) and day(v) is not None and c != column and v[:10] >= old[:10]
    }
    return [alone, {**alone, **later}] if later else [alone]


def _try(spec: EnvSpec, row: dict[str, Any], change: dict[str, Any], fits: Callable[[], bool], budget: int) -> bool:
    before = {c: row[c] for c in change}
    row.update(change)
    if fits() and _broken(spec) <= budget:
        return True
    row.update(before)
    return False


def settle_in_use(spec: EnvSpec) -> int:
    """Mend the rows measure 112 counts; returns how many were mended."""
    tables = {t.name: t for t in spec.tables}
    wrong = [(table, row) for table, row, off in in_use_findings(spec, spec.seed) if off]
    if not wrong:
        return 0
    founds = {f.table: f for f in started_tables(spec)}
    budget = _broken(spec)
    rng = random.Random(f"in_use:{spec.id}")
    mended = 0
    for table_name, row in wrong:
        found, table = founds[table_name], tables[table_name]

        def fits(found: Started = found, row: dict[str, Any] = row) -> bool:
            used = {r.get(key) for child, key in found.use_children for r in spec.seed.get(child, [])}
            return not wrong_start(found, row, tables[found.table], used, spec.clock)

        own_only = status_of(row, table) not in IN_USE and not any(
            r.get(key) == row.get(table.primary_key[0])
            for child, key in found.use_children
            for r in spec.seed.get(child, [])
        )
        if own_only and _try(spec, row, {c: 0 for c in found.use_counts}, fits, budget):
            mended += 1
            continue
        latest = _latest(found, row, spec.clock)
        targets = [latest - timedelta(days=k) for k in range(REACH_DAYS + 1)]
        rng.shuffle(targets)
        if any(_try(spec, row, change, fits, budget) for t in targets for change in _moves(row, found.start, t)):
            mended += 1
    return mended
