"""Periodic rows at the wrong spacing (measure 77, docs/synthesis.md): "monthly" dues of one lot due
ten days apart, two weekly boxes of one subscription three days apart.

Read by column and table names and values alone, so the measure runs on any catalog; the seed
generator keeps the rule (``synthesis.domains.periodic_rows``). A row says its period where

* its table's name holds a period word (:data:`PERIODS`: ``weekly_boxes``, ``monthly_bills``): its
  series is the rows sharing every single-column reference it holds (one subscriber's boxes of one
  plan); or
* one of its money columns repeats its parent's amount named for a period (a dues invoice of
  ``lots.monthly_dues``, a charge of ``memberships.monthly_price``): its series is the rows of that
  parent that repeat it.

The date that schedules such a row (:func:`schedule_column`: a due date, a charge, bill, statement or
delivery date, a week's end; never when it was paid, which the payer picks) falls a whole number of
periods after the one before it in its series: a monthly due date on the same day of a later month
(the last days of a month read alike), a weekly one a multiple of seven days on.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from itertools import pairwise
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .text import word_set

#: A period word -> (days, months) of one period.
PERIODS: dict[str, tuple[int, int]] = {
    "weekly": (7, 0),
    "biweekly": (14, 0),
    "fortnightly": (14, 0),
    "monthly": (0, 1),
    "quarterly": (0, 3),
    "annual": (0, 12),
    "yearly": (0, 12),
}
#: Words of a date column that schedules a periodic row.
SCHEDULE_WORDS = word_set("due charged billed bill billing statement week ending period delivery cycle invoiced")
#: Words of a date the payer or someone else picks, whatever the schedule.
_PICKED = word_set("paid payment requested reported filed created submitted")


@dataclass(frozen=True)
class Periodic:
    """Rows of ``table`` in one series (by ``keys``) fall ``period`` apart by ``column``; where
    ``amount`` is set, only rows whose ``amount`` repeats the parent's ``parent_amount`` are read."""

    table: str
    column: str
    keys: tuple[str, ...]
    period: str
    amount: str | None = None
    parent: str | None = None
    parent_amount: str | None = None


def schedule_column(table: TableSpec) -> str | None:
    """The first date column of ``table`` that schedules its rows (:data:`SCHEDULE_WORDS`)."""
    for c in table.columns:
        words = set(c.name.split("_"))
        if c.type in ("date", "datetime") and words & SCHEDULE_WORDS and not words & _PICKED:
            return c.name
    return None


def periodic_tables(spec: EnvSpec) -> list[Periodic]:
    """The tables whose rows say their period, and how each is read."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        column = schedule_column(table)
        if column is None:
            continue
        refs = [fk for fk in table.foreign_keys if len(fk.columns) == 1 and fk.table in tables]
        named = [w for w in table.name.split("_") if w in PERIODS]
        if named and refs:
            out.append(Periodic(table.name, column, tuple(fk.columns[0] for fk in refs), named[0]))
            continue
        money = [c.name for c in table.columns if c.type == "real"]
        for fk in refs:
            parent = tables[fk.table]
            for c in parent.columns:
                word = c.name.split("_")[0]
                if c.type == "real" and word in PERIODS and money:
                    for amount in money:
                        out.append(Periodic(table.name, column, (fk.columns[0],), word, amount, fk.table, c.name))
    return out


def day_of(value: Any) -> date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def month_end(d: date) -> bool:
    return d.day == calendar.monthrange(d.year, d.month)[1]


def whole_periods(a: date, b: date, period: str) -> bool:
    """Whether ``b`` is a whole number (one or more) of ``period`` after ``a``."""
    days, months = PERIODS[period]
    if days:
        return (b - a).days > 0 and (b - a).days % days == 0
    apart = (b.year - a.year) * 12 + b.month - a.month
    same_day = a.day == b.day or (month_end(a) and month_end(b)) or (month_end(b) and b.day < a.day)
    return apart > 0 and apart % months == 0 and same_day


def series(
    rule: Periodic, spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[list[tuple[date, dict[str, Any]]]]:
    """The rows of each series of ``rule`` with a schedule date, in date order."""
    parents: dict[Any, Mapping[str, Any]] = {}
    if rule.parent is not None:
        table = next(t for t in spec.tables if t.name == rule.parent)
        parents = {r.get(table.primary_key[0]): r for r in rows.get(rule.parent, [])}
    groups: dict[tuple[Any, ...], list[tuple[date, dict[str, Any]]]] = {}
    for row in rows.get(rule.table, []):
        day = day_of(row.get(rule.column))
        key = tuple(row.get(k) for k in rule.keys)
        if day is None or any(k is None for k in key):
            continue
        if rule.amount is not None:
            parent = parents.get(key[0])
            value, whole = row.get(rule.amount), parent.get(rule.parent_amount or "") if parent else None
            if not isinstance(value, int | float) or not isinstance(whole, int | float) or abs(value - whole) > 0.005:
                continue
        groups.setdefault(key, []).append((day, row))
    for group in groups.values():
        if len(group) > 1:
            yield sorted(group, key=lambda x: x[0])


def periodic_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(table, off its period) for every row after the first of its series; each row once."""
    seen: set[tuple[str, int]] = set()
    for rule in periodic_tables(spec):
        for group in series(rule, spec, rows):
            for (a, _), (b, row) in pairwise(group):
                if (rule.table, id(row)) not in seen:
                    seen.add((rule.table, id(row)))
                    yield rule.table, not whole_periods(a, b, rule.period)


@dataclass
class PeriodicCounts:
    """Rows after the first of a periodic series, and those not a whole number of periods on."""

    periodic_rows_checked: int = 0
    periodic_rows_off: int = 0


def periodic_rows_off(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> PeriodicCounts:
    """Measure 77 over ``rows`` (table -> rows; the seed by default)."""
    out = PeriodicCounts()
    for _, off in periodic_findings(spec, spec.seed if rows is None else rows):
        out.periodic_rows_checked += 1
        out.periodic_rows_off += off
    return out
