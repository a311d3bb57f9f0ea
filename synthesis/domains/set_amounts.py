"""Seed amounts the tools set at a fixed value (the quality report's measure 70,
:mod:`envs.quality.set_amounts`): a transcript order's fee is the 15.00 ordering one costs, plus the
20.00 expediting adds where it was expedited; a confirmation deposit is recorded once per application.

:func:`fit_set_amounts` runs once statuses and flags are final, before the aggregates: an amount set
when made is computed from the steps its row passed, and a second row a one-time move records is
dropped (where no table references the rows), so the sums over them follow.
"""

from __future__ import annotations

from envs.formats.spec import EnvSpec
from envs.quality.own_row import status_of
from envs.quality.set_amounts import made_amounts, posted_once, surplus
from envs.quality.tool_sql import number


def fit_set_amounts(spec: EnvSpec) -> int:
    """Set the amounts the tools fix and drop the rows a one-time move records twice (in place);
    returns how many rows changed or went."""
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for made in made_amounts(spec):
        for row in spec.seed.get(made.table, []):
            expected = made.expected(row, status_of(row, tables[made.table]))
            if (value := number(row.get(made.column))) is not None and abs(value - expected) > 0.005:
                row[made.column] = expected
                changed += 1
    referenced = {fk.table for t in spec.tables for fk in t.foreign_keys}
    for once in posted_once(spec):
        if once.table in referenced:
            continue
        extra = {id(r) for r in surplus(spec, once, spec.seed)}
        if extra:
            spec.seed[once.table] = [r for r in spec.seed[once.table] if id(r) not in extra]
            changed += len(extra)
    return changed
