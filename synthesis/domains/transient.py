"""Seed rows in a passing state only days into it, dates a tool moves on from not long past, holds
that end after what they hold (the quality report's measure 73, :mod:`envs.quality.transient`).

:func:`settle_transient` runs once statuses are final (after ``awaited.settle_awaited``) and moves
dates, never statuses. A row sitting in a passing state for weeks has its state's dates moved together,
by one shift that brings the last into the days before the clock (a datetime into the hours before
it). A date a tool adds days to on the rows it acts on (a redelivery's expected date) is brought to the
day before the clock or the clock's day where its shortest move would land in the past. A hold ending
before another date of its row ends a few days after it; where a lifecycle times the hold's end
(``timing.anchored_dates``: "collect only while the hold lasts") the other dates move before it
instead. Money in transit (a payment pending or processing) is a passing state too: its dates move
the same way, and a sum of nothing is redrawn from the positive sums of its column
(``paid_amounts.positive_sum``). A date a lifecycle times never moves, and a move that would turn a
pair of the row backwards is undone.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.money_rows import nothing, status_word
from envs.quality.seed import status_columns
from envs.quality.transient import (
    IN_TRANSIT,
    day_moves,
    ends_before_held,
    held_dates,
    hold_ends,
    in_transit_money,
    lands_past,
    stale,
    state_dates,
    transient,
)

from .paid_amounts import positive_sum
from .timeline import TIME, inverted, parse
from .timing import Anchors


def settle_transient(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Keep ``spec``'s seed rows out of measure 73 (in place); returns the number of rows changed."""
    rng = random.Random(f"transient:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    changed = 0
    for table in spec.tables:
        kinds = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        statuses = [c.name for c in status_columns(table)]
        columns = state_dates(table) if statuses else []
        sums = in_transit_money(table)
        for row in spec.seed.get(table.name, []) if statuses else ():
            moving_money = bool(sums) and any(status_word(row.get(s)) in IN_TRANSIT for s in statuses)
            for column in sums if moving_money else ():
                if nothing(row.get(column)):
                    row[column] = positive_sum(spec.seed[table.name], column, rng)
                    changed += 1
            passing = moving_money or any(transient(row.get(s)) for s in statuses)
            if not passing or not stale(row, columns, spec.clock):
                continue
            held = anchored(table.name, row)
            moving = [c for c in columns if isinstance(row.get(c), str) and c not in held]
            last = max(moving, key=lambda c: parse(row[c]), default=None)
            if last is not None:
                shift = _recent(kinds[last], spec.clock, rng) - parse(row[last])
                changed += _apply(row, {c: parse(row[c]) + shift for c in moving}, kinds)
    for move in day_moves(spec):
        table = next(t for t in spec.tables if t.name == move.table)
        for row in spec.seed.get(move.table, []):
            if lands_past(move, row, spec.clock) and move.column not in anchored(move.table, row):
                day = spec.clock - timedelta(days=rng.randint(0, 1))
                changed += _apply(row, {move.column: day}, {c.name: c.type for c in table.columns})
    for table in spec.tables:
        kinds = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        for end in hold_ends(table):
            dates = held_dates(table, end)
            for row in spec.seed.get(table.name, []):
                if ends_before_held(row, end, dates):
                    changed += _apply(row, _hold_after(row, end, dates, anchored(table.name, row), rng), kinds)
    return changed


def _recent(kind: str, clock: datetime, rng: random.Random) -> datetime:
    """A moment in the days (a date) or hours (a datetime) before ``clock``."""
    if kind == "date":
        return clock.replace(hour=0, minute=0, second=0) - timedelta(days=rng.randint(0, 2))
    return clock - timedelta(minutes=rng.randint(20, 6 * 60))


def _hold_after(
    row: dict[str, Any], end: str, dates: list[str], held: frozenset[str], rng: random.Random
) -> dict[str, datetime]:
    """New values that put ``row``'s hold end after its other dates."""
    set_dates = [c for c in dates if isinstance(row.get(c), str)]
    if end not in held:
        latest = max(parse(row[c]) for c in set_dates)
        return {end: latest + timedelta(days=rng.randint(3, 10))}
    until = parse(row[end])
    return {c: until - timedelta(days=rng.randint(1, 7)) for c in set_dates if c not in held and parse(row[c]) > until}


def _apply(row: dict[str, Any], values: dict[str, datetime], kinds: Mapping[str, str]) -> int:
    """Set ``values`` on ``row`` in its columns' formats; undone (0) where a pair would turn backwards."""
    before = dict(row)
    for column, value in values.items():
        row[column] = value.strftime("%Y-%m-%d") if kinds[column] == "date" else value.strftime(TIME)
    if not values or inverted(row, kinds):
        row.update(before)
        return 0
    return int(row != before)
