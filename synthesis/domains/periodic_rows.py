"""Seed rows that say their period, a whole number of periods apart (the quality report's measure 77,
:mod:`envs.quality.periodic_rows`): the dues of one lot due on one day of the month, one
subscription's weekly boxes on one weekday.

:func:`settle_periodic_rows` runs once statuses are final and dates follow them (after
``lapses.settle_lapses``). In each series the row due nearest the clock stays; every other row moves
to the nearest day on its grid (that day a whole number of periods on or back) that is on the same side
of the clock's day as before, so an open invoice still ahead stays ahead and a paid one past stays
past, on the same side of every edge of a time rule on the date (``timeline.time_edges``: a
certification filed within 14 days of its week's end stays within them), and that no other row of the
series holds. A row whose move would turn a pair of its dates backwards stays.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterable
from datetime import date, timedelta

from envs.formats.spec import EnvSpec
from envs.quality.periodic_rows import PERIODS, periodic_tables, series

from .domain import Domain
from .timeline import inverted, time_edges

#: (table, date column) -> the hours from the clock where a time rule on the column switches.
Edges = Callable[[str, str], Iterable[int]]

#: How many periods either way of a row's own the grid is searched.
_REACH = 30


def rule_edges(domain: Domain) -> Edges:
    """Where the time rules on each date of ``domain``'s tables switch, in hours from the clock."""
    edges = {e.table: time_edges(domain, e) for e in domain.entities}
    return lambda table, column: edges.get(table, {}).get(column, ())


def _step(anchor: date, period: str, k: int) -> date:
    """``anchor`` moved ``k`` periods (a month's day clipped to the month's length)."""
    days, months = PERIODS[period]
    if days:
        return anchor + timedelta(days=days * k)
    total = anchor.year * 12 + anchor.month - 1 + months * k
    year, month = divmod(total, 12)
    return date(year, month + 1, min(anchor.day, calendar.monthrange(year, month + 1)[1]))


def _grid_day(anchor: date, period: str, was: date, edges: list[date], taken: set[date]) -> date | None:
    """The day on ``anchor``'s grid nearest ``was``, on its side of every day in ``edges``, not in
    ``taken``."""
    days, months = PERIODS[period]
    span = days or 30 * months
    near = round((was - anchor).days / span)
    options = [_step(anchor, period, k) for k in range(near - _REACH, near + _REACH + 1)]
    fits = [d for d in options if d not in taken and all((d < e) == (was < e) for e in edges)]
    return min(fits, key=lambda d: (abs((d - was).days), d)) if fits else None


def settle_periodic_rows(spec: EnvSpec, edges: Edges | None = None) -> int:
    """Move the schedule dates of ``spec``'s periodic seed rows onto their series' grid (in place);
    returns the number of rows changed (deterministic)."""
    edges = edges or (lambda *_: ())
    today = spec.clock.date()
    changed = 0
    for rule in periodic_tables(spec):
        table = next(t for t in spec.tables if t.name == rule.table)
        kinds = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        sides = [today, *sorted({(spec.clock + timedelta(hours=h)).date() for h in edges(rule.table, rule.column)})]
        for group in series(rule, spec, spec.seed):
            anchor = min(group, key=lambda x: (abs((x[0] - today).days), x[0]))[0]
            taken = {anchor}
            for was, row in sorted(group, key=lambda x: abs((x[0] - anchor).days)):
                if was == anchor:
                    continue
                day = _grid_day(anchor, rule.period, was, sides, taken)
                if day is None:
                    taken.add(was)
                    continue
                before = row[rule.column]
                row[rule.column] = day.isoformat() + str(before)[10:]  # a datetime keeps its time of day
                if inverted(row, kinds):
                    row[rule.column] = before
                    taken.add(was)
                    continue
                taken.add(day)
                changed += day != was
    return changed
