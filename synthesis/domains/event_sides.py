"""Rows on their event's side of the clock (the quality report's measure 92,
:mod:`envs.quality.event_sides`): no claim for a treatment still ahead, no shift weeks past still up for
swap.

:func:`settle_event_sides` runs once dates are final. A date on the wrong side is mirrored across the
clock's day, so the row keeps its distance from now and its time of day: a treatment ten weeks ahead
took place ten weeks ago, a shift six weeks past is six weeks ahead (at least a day, as the moves into
a waiting status require the date ahead).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.bounds import DURING_WORDS
from envs.quality.event_sides import rows_off_their_event


def _mirrored(value: str, clock: datetime) -> str:
    """``value`` (a date or a date and time) as far on the other side of the clock's day."""
    day = datetime.strptime(value[:10], "%Y-%m-%d")
    today = datetime(clock.year, clock.month, clock.day)
    days = max(1, abs((today - day).days))
    moved = today + timedelta(days=-days if day > today else days)
    return moved.strftime("%Y-%m-%d") + value[10:]


def settle_event_sides(spec: EnvSpec) -> int:
    """Move each row's event date to the side of the clock its table or status says (in place), but a
    waiting row's where rows under it say something happened during it before the new day (spots of
    a campaign that aired: the campaign began, whatever its status says). Returns the dates moved."""
    changed = 0
    for kind, column, row, wrong in list(rows_off_their_event(spec, spec.seed)):
        if not wrong:
            continue
        moved = _mirrored(str(row[column]), spec.clock)
        if kind == "waiting" and any(day < moved[:10] for day in _children_days(spec, row)):
            continue
        row[column] = moved
        changed += 1
    return changed


def _children_days(spec: EnvSpec, row: dict[str, Any]) -> Iterator[str]:
    """The days the rows referencing ``row`` by a single-column key say something happened during it
    (``air_date``: measure 48's reading); an offer made before a shift starts is no such day."""
    for table in spec.tables:
        dates = [
            c.name for c in table.columns if c.type in ("date", "datetime") and DURING_WORDS & set(c.name.split("_"))
        ]
        for fk in table.foreign_keys if dates else []:
            parent = next(t for t in spec.tables if t.name == fk.table)
            if len(fk.columns) != 1 or fk.references != parent.primary_key or fk.references[0] not in row:
                continue
            key = row[fk.references[0]]
            for child in spec.seed.get(table.name, []):
                if child is not row and child.get(fk.columns[0]) == key:
                    yield from (str(child[c])[:10] for c in dates if isinstance(child.get(c), str))
