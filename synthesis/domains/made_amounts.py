"""Seed amounts made the way their tools make them (the quality report's measure 66,
:mod:`envs.quality.made_amounts`): miles redeemed are the flight's miles required, a copay charged is
the plan's copay, a parking stay's prepaid amount is its days at the lot's daily rate plus the car care
ordered on it, a deposit paid the sum of the deposits recorded on the event.

:func:`fit_made_amounts` runs last among the amounts (``amounts.fit_amounts``), once statuses, dates and
the parents' own amounts are final: the dependent amount follows its sources, never the other way round.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.agreement import still_due
from envs.quality.made_amounts import CENT, accumulated, accumulated_sums, by_the_day, copied_columns, live_extras
from envs.quality.own_row import status_of
from envs.quality.tool_sql import number


def _as_type(value: float, integer: bool) -> float | int:
    return round(value) if integer else round(value, 2)


def fit_made_amounts(spec: EnvSpec) -> int:
    """Set the amounts that disagree with how their tools make them (in place); returns how many changed."""
    tables = {t.name: t for t in spec.tables}
    integer = {(t.name, c.name) for t in spec.tables for c in t.columns if c.type == "integer"}
    seed, changed = spec.seed, 0
    for rule in copied_columns(spec):
        key = tables[rule.parent].primary_key[0]
        parents = {r.get(key): r for r in seed.get(rule.parent, [])}
        for row in filter(rule.reads, seed.get(rule.table, [])):
            parent = parents.get(row.get(rule.reference))
            if parent is None or still_due(status_of(parent, tables[rule.parent])):
                continue
            value, source = number(row.get(rule.column)), number(parent.get(rule.source))
            if value is not None and source is not None and abs(value - source) > CENT:
                row[rule.column] = _as_type(source, (rule.table, rule.column) in integer)
                changed += 1
    for day_rule in by_the_day(spec):
        key = tables[day_rule.parent].primary_key[0]
        own_key = tables[day_rule.table].primary_key[0]
        parents = {r.get(key): r for r in seed.get(day_rule.parent, [])}
        for row in seed.get(day_rule.table, []):
            parent = parents.get(row.get(day_rule.reference))
            rate, value = number(parent.get(day_rule.rate)) if parent else None, number(row.get(day_rule.column))
            start, end = _day(row.get(day_rule.start)), _day(row.get(day_rule.end))
            if rate is None or value is None or start is None or end is None or end < start:
                continue
            extra = live_extras(spec, seed, day_rule, row.get(own_key))
            days = max((end - start).days, 1)
            lowest, highest = rate * (days - 1), rate * (days + 1) + extra
            if not lowest - CENT <= value <= highest + CENT:
                row[day_rule.column] = _as_type(rate * days + extra, (day_rule.table, day_rule.column) in integer)
                changed += 1
    for sum_rule in accumulated(spec):
        sums = accumulated_sums(spec, seed, sum_rule)
        key = tables[sum_rule.table].primary_key[0]
        for row in seed.get(sum_rule.table, []):
            value, total = number(row.get(sum_rule.column)), round(sums.get(row.get(key), 0.0), 2)
            if status_of(row, tables[sum_rule.table]) in sum_rule.reset or value is None or abs(value - total) <= CENT:
                continue
            row[sum_rule.column] = _as_type(total, (sum_rule.table, sum_rule.column) in integer)
            changed += 1
    return changed


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None
