"""Seed dates as the tool that makes their record would have written them (the quality report's
measure 52, :mod:`envs.quality.terms`): a 30-day guarantee ending 30 days after the install, a
21-day loan due 21 days after it was lent (or 14 days later for each renewal), a three-year warranty
made on a day its order allowed, an application made before its posting closed.

:func:`settle_terms` runs on the finished seed dates (from ``child_dates.settle_child_dates``). It
first moves the day a record was made into the window its create's checks allow (and not after the
clock), then sets each term's other end from its start, or the start from its end where the end is
the date a lifecycle times. A moved date stays on its side of the clock, so a row's status still
fits its dates, and a move that would turn the row's dates backwards is not made.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.periods import breaches, period_of, phase
from envs.quality.seed import status_columns
from envs.quality.seed_time import date_columns, names_past_event
from envs.quality.terms import (
    MadeCheck,
    Term,
    breaks_term,
    broken_checks,
    gaps,
    made_checks,
    made_column,
    parse_day,
    terms,
)

from .timeline import TIME, inverted
from .timing import Anchors

_LOOKBACK = 45  # days before its latest possible day a record is made, where nothing else bounds it


def _text(day: datetime, kind: str, like: Any) -> str:
    """``day`` written as the column writes it (a datetime keeps the time of the value it replaces)."""
    if kind == "date":
        return day.strftime("%Y-%m-%d")
    old = parse_day(like)
    if old is not None and day.time() == datetime.min.time():
        day = day.replace(hour=old.hour, minute=old.minute, second=0)
    return day.strftime(TIME)


def _side(value: Any, clock: datetime) -> bool | None:
    day = parse_day(value)
    if day is None:
        return None
    return day.date() <= clock.date() if day.time() == datetime.min.time() else day <= clock


#: How many of a row's dates its status's period finds outside it (measure 31), per table.
Outside = Callable[[str, Mapping[str, Any]], int]


def period_breaches(spec: EnvSpec) -> Outside:
    """The dates of a row outside the period its status names (``envs.quality.periods``)."""
    periods = {
        t.name: (period_of((c.name, c.type) for c in t.columns), [c.name for c in status_columns(t)])
        for t in spec.tables
    }

    def outside(table: str, row: Mapping[str, Any]) -> int:
        period, statuses = periods[table]
        if not statuses or period.empty:
            return 0
        return len(breaches(period, row, phase(row, statuses), spec.clock))

    return outside


def _try(
    row: dict[str, Any],
    moves: dict[str, str],
    kinds: dict[str, str],
    clock: datetime,
    held: frozenset[str],
    outside: Callable[[Mapping[str, Any]], int],
) -> bool:
    """Make ``moves`` on ``row`` if a date a lifecycle times (``held``) stays on its side of the clock,
    a date of what has happened stays by it, the row's dates keep their order, and no more of them
    fall outside the period its status names; returns whether they were made."""
    for column, value in moves.items():
        if column in held and _side(row.get(column), clock) != _side(value, clock):
            return False
        if names_past_event(column) and not _side(value, clock):
            return False
    before = {c: row.get(c) for c in moves}
    was_outside = outside(row)
    row.update(moves)
    if inverted(row, kinds) or outside(row) > was_outside:
        row.update(before)
        return False
    return True


def _window(check: MadeCheck, value: datetime) -> tuple[datetime | None, datetime | None]:
    """(earliest, latest) day a record may be made for ``check`` to hold on the parent's ``value``."""
    edge = (value - timedelta(hours=check.hours)).replace(hour=0, minute=0, second=0, microsecond=0)
    if check.op == ">":
        return None, edge - timedelta(days=1)
    if check.op == ">=":
        return None, edge
    if check.op == "<":
        return edge + timedelta(days=1), None
    return edge, None


def _settle_made(
    spec: EnvSpec,
    all_terms: list[Term],
    kinds: dict[str, dict[str, str]],
    rng: random.Random,
    anchored: Anchors,
    outside: Outside,
) -> int:
    """Move the day each record was made into the window its create's checks allow."""
    checks = made_checks(spec)
    broken: dict[int, tuple[str, dict[str, Any], list[tuple[datetime | None, datetime | None]]]] = {}
    parents = {c: {r.get(c.key): r for r in spec.seed.get(c.parent, [])} for c in checks}
    for check, row, bad in broken_checks(spec, spec.seed, all_terms, checks):
        entry = broken.setdefault(id(row), (check.table, row, []))
        value = parse_day(parents[check].get(row.get(check.via), {}).get(check.column))
        if value is not None:
            entry[2].append(_window(check, value))
        if bad:
            entry[2].append((None, None))  # marks the row as needing a move
    moved = 0
    clock_day = spec.clock.replace(hour=0, minute=0, second=0, microsecond=0)
    for table, row, windows in broken.values():
        if (None, None) not in windows:
            continue
        lows = [lo for lo, _ in windows if lo is not None]
        highs = [hi for _, hi in windows if hi is not None] + [clock_day]
        hi = min(highs)
        lo = max(lows) if lows else hi - timedelta(days=_LOOKBACK)
        if lo > hi:
            continue
        made = lo + timedelta(days=rng.randint(0, min((hi - lo).days, _LOOKBACK)))
        column = made_column(spec, table)
        moves: dict[str, str] = {}
        if column is not None:
            moves[column] = _text(made, kinds[table][column], row.get(column))
        else:
            term = next((t for t in all_terms if t.table == table and t.start is None and not t.moves), None)
            if term is None:
                continue
            end = made + timedelta(days=term.days)
            moves[term.end] = _text(end, kinds[table][term.end], row.get(term.end))
        moved += _try(row, moves, kinds[table], spec.clock, anchored(table, row), partial(outside, table))
    return moved


def _settle_term(
    term: Term,
    row: dict[str, Any],
    kinds: dict[str, str],
    clock: datetime,
    rng: random.Random,
    held: frozenset[str],
    outside: Callable[[Mapping[str, Any]], int],
) -> bool:
    """Meet ``term`` on ``row`` by the shortest gap it allows: the end moved from the start (which
    another term may have set: glasses ready 10 days after the order, their warranty 30 days later),
    or the start from the end, or, for a span still running, both moved to start lately."""
    end = parse_day(row.get(term.end))
    assert end is not None
    today = clock.replace(hour=0, minute=0, second=0, microsecond=0)
    if term.start is None:  # made after the clock: made in the last days instead, the end on its side
        made = today - timedelta(days=rng.randint(0, max(0, min(20, term.days - 1))))
        new = made + timedelta(days=term.days)
        return _try(row, {term.end: _text(new, kinds[term.end], row.get(term.end))}, kinds, clock, held, outside)
    start = parse_day(row.get(term.start))
    assert start is not None
    for gap in sorted(gaps(term)):
        later = start + timedelta(days=gap)
        if end.time() != datetime.min.time() and kinds[term.start] == "date":
            later = later.replace(hour=end.hour, minute=end.minute)
        earlier = end - timedelta(days=gap)
        options = [
            {term.end: _text(later, kinds[term.end], row.get(term.end))},
            {term.start: _text(earlier, kinds[term.start], row.get(term.start))},
        ]
        if _side(row.get(term.end), clock) is False and _side(row.get(term.start), clock):
            begun = today - timedelta(days=rng.randint(0, gap - 1))
            options.append(
                {
                    term.start: _text(begun, kinds[term.start], row.get(term.start)),
                    term.end: _text(begun + timedelta(days=gap), kinds[term.end], row.get(term.end)),
                }
            )
        if any(_try(row, move, kinds, clock, held, outside) for move in options):
            return True
    return False


def settle_terms(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Move seed dates that disagree with the tool making their record (in place); returns how many
    rows moved. A date a lifecycle times (``anchored``) stays on its side of the clock."""
    rng = random.Random(f"terms:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    kinds: dict[str, dict[str, str]] = {t.name: {c.name: str(c.type) for c in date_columns(t)} for t in spec.tables}
    all_terms = terms(spec)
    outside = period_breaches(spec)
    moved = _settle_made(spec, all_terms, kinds, rng, anchored, outside)
    ordered = sorted(all_terms, key=lambda t: t.start is not None)  # a made day before what runs from it
    for term in ordered + ordered:  # again: a start moved back from its end may break the term it ends
        for row in spec.seed.get(term.table, []):
            if breaks_term(term, row, spec.clock):
                held = anchored(term.table, row)
                moved += _settle_term(term, row, kinds[term.table], spec.clock, rng, held, partial(outside, term.table))
    return moved
