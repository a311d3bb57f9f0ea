"""Dates a move fills follow the row's status (the quality report's measure 97,
:mod:`envs.quality.filled_dates`): no draft application with a submission day, no submitted one
without.

:func:`settle_filled_dates` runs where a row's status is final and before its dates are put in order
against each other. A row in a status before the move loses the date where the column may be empty; a
row the move reached and that has none gets the day the move was made, as the tool would have written
it: a recent day for a row still in the move's status, an older one for a row moved on since, shifted
by the days the tool adds (a hearing 21 days after the request, a permit running 180 days from issue).
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta

from envs.formats.spec import EnvSpec
from envs.quality.filled_dates import filled_date_findings
from envs.quality.own_row import status_of

from .domain import Entity

# the days a tool adds to the day it fills: ``CAST(21 AS INTEGER) || ' days'``, ``'+180 days'``
_SHIFT = re.compile(r"CAST\((\d+) AS INTEGER\) \|\| ' days'|'\+(\d+) days'")


def shift_days(spec: EnvSpec, table: str, column: str) -> int:
    """The days the tools filling ``table.column`` add to the day of the move (0 for none)."""
    for tool in spec.tools:
        for step in tool.steps:
            sql = step.sql or ""
            if step.kind == "exec" and f'UPDATE "{table}" SET "{column}"' in sql and (m := _SHIFT.search(sql)):
                return int(m[1] or m[2])
    return 0


def settle_filled_dates(spec: EnvSpec) -> int:
    """Clear or fill each date against its row's status (in place); returns the values changed."""
    rng = random.Random(f"filled-dates:{spec.id}")
    types = {(t.name, c.name): c.type for t in spec.tables for c in t.columns}
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for filled, row, against in list(filled_date_findings(spec, spec.seed)):
        if not against:
            continue
        status = status_of(row, tables[filled.table])
        if status in filled.empty:
            if filled.nullable:  # a column that may not be empty is named in the report, not forced
                row[filled.column] = None
                changed += 1
            continue
        # the move was made lately where the row still sits in its status, weeks ago where it went on
        back = rng.randint(2, 20) if status in filled.moves_to else rng.randint(30, 90)
        day = datetime(spec.clock.year, spec.clock.month, spec.clock.day) - timedelta(days=back)
        day += timedelta(days=shift_days(spec, filled.table, filled.column))
        if types.get((filled.table, filled.column)) == "datetime":
            row[filled.column] = (day + timedelta(hours=rng.randint(9, 16))).strftime("%Y-%m-%d %H:%M:%S")
        else:
            row[filled.column] = day.strftime("%Y-%m-%d")
        changed += 1
    return changed


def transition_dates(e: Entity) -> set[str]:
    """The attributes a move out of the record's first state sets (``submit`` sets ``submitted_on``):
    a new record has not made that move yet, so a create leaves them empty where they may be."""
    lc = e.lifecycle
    if lc is None:
        return set()
    return {
        x.target.removeprefix("field:")
        for t in lc.transitions
        if t.to != lc.initial
        for x in t.effects
        if x.kind == "set" and x.target and x.target.startswith("field:")
    }
