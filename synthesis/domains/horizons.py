"""Seed dates within the distance from the clock their kind has (measure 106, docs/synthesis.md): a
parcel expected within weeks, not four months out; a membership begun within ten years.

The horizons are the quality report's (:mod:`envs.quality.horizons`). They act twice: the seed
generator draws a date no further than its kind's horizon (``timeline.ahead_span``, ``timeline.far_reach``),
and :func:`settle_horizons`, once the other fixes have placed every date, brings back a record whose
dates a pair's gap or a later move pushed beyond: all its dates on that side of the clock move by one
shift, so their order and their side of the clock stay.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.horizons import dated_columns, reach
from envs.quality.seed import status_columns

from .timeline import TIME, inverted, parse
from .timing import Anchors


def settle_horizons(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Keep ``spec``'s seed rows out of measure 106 (in place); returns the number of rows changed."""
    rng = random.Random(f"horizons:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    today = spec.clock.replace(hour=0, minute=0, second=0, microsecond=0)
    changed = 0
    for table in spec.tables:
        columns = dated_columns(table)
        kinds = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        statuses = [c.name for c in status_columns(table)]
        for row in spec.seed.get(table.name, []) if columns else ():
            held = anchored(table.name, row)
            for ahead in (True, False):
                limits = {}
                for column, kind in columns:
                    value = row.get(column.name)
                    if not isinstance(value, str) or column.name in held:
                        continue
                    when = parse(value)
                    if (when >= today + timedelta(days=1)) == ahead:
                        behind, coming = reach(kind, row, statuses)
                        limits[column.name] = (when, today + coming if ahead else today - behind)
                if limits:
                    changed += _bring_within(row, limits, ahead, today, kinds, rng)
    return changed


def _bring_within(
    row: dict[str, Any],
    limits: dict[str, tuple[datetime, datetime]],
    ahead: bool,
    today: datetime,
    kinds: Mapping[str, str],
    rng: random.Random,
) -> int:
    """Shift the dates of ``limits`` (column -> (value, furthest allowed)) by one amount that brings
    each within its limit without crossing the clock's day; 0 where none is needed or none fits."""
    if ahead:
        needed = max(when - limit for when, limit in limits.values())  # how far the furthest must come back
        room = min(when for when, _ in limits.values()) - (today + timedelta(days=1))  # before any crosses
        if needed <= timedelta(0) or needed > room:
            return 0
        shift = -(needed + timedelta(days=rng.randint(0, max(0, (room - needed).days))))
    else:
        needed = max(limit - when for when, limit in limits.values())
        room = today - max(when for when, _ in limits.values())
        if needed <= timedelta(0) or needed > room:
            return 0
        shift = needed + timedelta(days=rng.randint(0, max(0, (room - needed).days)))
    before = dict(row)
    for column, (when, _) in limits.items():
        row[column] = (when + shift).strftime("%Y-%m-%d" if kinds[column] == "date" else TIME)
    if inverted(row, kinds):
        row.update(before)
        return 0
    return 1
