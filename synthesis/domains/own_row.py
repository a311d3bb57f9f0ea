"""Seed rows whose status agrees with their own columns (the quality report's measure 59,
:mod:`envs.quality.own_row`): a row paid in full owes nothing and paid its total, a date named for a
status is set on the rows in that status and on none before it, an amount a step adds (a deposit
taken at signing) is 0 before the step, and what is left of a limit is the limit less the balance.

:func:`fit_own_rows` runs with the amounts (``amounts.fit_amounts``), once statuses are final: the
columns follow the status, never the other way round, so the tasks keep the statuses they draw on.
A column an aggregate derives from the row's children (a layaway's amount paid, the sum of its
payments) is set again by the aggregates after it.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from envs.formats.spec import EnvSpec, TableSpec
from envs.quality.own_row import (
    LEFT_WORDS,
    PAID,
    TOTAL_WORDS,
    counts_left,
    created_columns,
    left_after_course,
    left_of_limit,
    limit_columns,
    numeric_columns,
    paid_yet_owing,
    status_dates,
    status_of,
    step_amounts,
)

#: Days from the clock a date named for a status is drawn within: ahead for a status still to come
#: (``disconnect_pending``, ``hearing_scheduled``), behind for one that happened (``cancelled``). Two
#: weeks at most: a tool that sets the date a term after the day it acts (a hearing 21 days after it
#: is requested) acted before the clock.
_DAYS = (3, 14)


def _pay_in_full(table: TableSpec, row: dict[str, Any]) -> None:
    for column in numeric_columns(table, LEFT_WORDS, {"available"}):
        row[column] = 0.0
    totals = [row[c] for c in numeric_columns(table, TOTAL_WORDS, {"paid"}) if isinstance(row.get(c), int | float)]
    for column in (c for c in numeric_columns(table, {"paid"}) if "amount" in c.split("_")):
        if not row.get(column) and totals:
            row[column] = max(totals)


def _still_ahead(status: str) -> bool:
    """Whether a status names an event still to come (pending, scheduled) rather than one done."""
    words = status.lower().split("_")
    return not words[-1].endswith("ed") or words[-1] == "scheduled"


def _date_for(status: str, datetime_type: bool, spec: EnvSpec, rng: random.Random) -> str:
    days = rng.randint(*_DAYS) * (1 if _still_ahead(status) else -1)
    day = spec.clock + timedelta(days=days)
    return f"{day:%Y-%m-%d} {rng.randint(9, 16):02d}:00:00" if datetime_type else f"{day:%Y-%m-%d}"


def fit_own_rows(spec: EnvSpec) -> int:
    """Set the columns that disagree with their row's status (in place); returns how many changed."""
    rng = random.Random(f"own-row:{spec.id}")
    steps, created = step_amounts(spec), created_columns(spec)
    changed = 0
    for table in spec.tables:
        dates = status_dates(table, created)
        limits = limit_columns(table)
        types = {c.name: c.type for c in table.columns}
        stepped = {col: states for (name, col), states in steps.items() if name == table.name}
        for row in spec.seed.get(table.name, []):
            status = status_of(row, table)
            if status in PAID and paid_yet_owing(table, row):
                _pay_in_full(table, row)
                changed += 1
            if left_after_course(table, row):  # a completed arrangement has no installments left
                row.update(dict.fromkeys(counts_left(table), 0))
                changed += 1
            for named in dates:
                if not named.disagrees(row.get(named.column), status):
                    continue
                assert status is not None
                row[named.column] = (
                    _date_for(status, types[named.column] == "datetime", spec, rng) if status in named.named else None
                )
                changed += 1
            for column, states in stepped.items():
                if status in states and isinstance(row.get(column), int | float) and row[column] > 0:
                    row[column] = 0 if types[column] == "integer" else 0.0
                    changed += 1
            if limits is not None:
                available, limit, balance = limits
                if isinstance(row.get(limit), int | float) and isinstance(row.get(balance), int | float):
                    left = left_of_limit(row[limit], row[balance])
                    if row.get(available) != left:
                        row[available] = left
                        changed += 1
    return changed
