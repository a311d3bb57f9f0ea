"""Seed records awaited no longer than a plausible margin after their event (the quality report's measure
42, :mod:`envs.quality.awaited`): no benefits election pending three months after it took effect, no
stay's points pending nine weeks after checkout.

:func:`settle_awaited` runs once statuses are final (beside ``periods.settle_periods``) and moves the
dates, never the status. A row's event dates move together, by one shift that brings the last of them
inside the margin and keeps it before the clock: the side of the clock a lifecycle's time rule reads
stays (a leave that has begun still cannot be cancelled), the record is only recent. An end recorded
on a record still awaited (``ended_on``) is cleared where the column may be empty. A shift that
would turn a pair of the row backwards is undone.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from envs.formats.spec import EnvSpec
from envs.quality.awaited import MARGIN, awaiting, event_dates, long_past
from envs.quality.seed import status_columns
from envs.quality.seed_time import names_past_event

from .timeline import TIME, inverted, parse


def settle_awaited(spec: EnvSpec) -> int:
    """Bring the event dates of ``spec``'s awaited seed rows inside the margin (in place). Returns the
    number of rows changed (deterministic)."""
    rng = random.Random(f"awaited:{spec.id}")
    changed = 0
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        columns = event_dates(table) if statuses else []
        if not columns:
            continue
        kinds = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        nullable = {c.name for c in table.columns if c.nullable}
        for row in spec.seed.get(table.name, []):
            stamps = [c for c in columns if names_past_event(c)]
            # a row is judged without the ends it may lose (here or when filled dates follow the
            # status): an end inside the margin must not keep an event date long past from moving
            judged = [c for c in columns if c not in stamps or c not in nullable]
            if not any(awaiting(row.get(s)) for s in statuses) or not long_past(row, judged, spec.clock):
                continue
            before = dict(row)
            for column in stamps:
                if column in nullable:
                    row[column] = None
            moving = [c for c in columns if isinstance(row.get(c), str)]
            if moving:
                last = max(parse(row[c]) for c in moving)
                target = spec.clock - timedelta(days=rng.randint(1, MARGIN.days - 2))
                shift = timedelta(days=(target.date() - last.date()).days)
                for column in moving:
                    row[column] = _shifted(row[column], shift, kinds[column])
            if inverted(row, kinds) or long_past(row, columns, spec.clock):
                row.update(before)
                continue
            changed += 1
    return changed


def _shifted(value: str, shift: timedelta, kind: str) -> str:
    moved: datetime = parse(value) + shift
    return moved.strftime("%Y-%m-%d") if kind == "date" else moved.strftime(TIME)
