"""Seed amounts within the record they come from (the quality report's measure 34,
:mod:`envs.quality.amounts`): the refunds of one purchase add up to no more than it cost, the
beneficiaries of one account to no more than 100 %.

:func:`settle_amounts` runs on the finished seed and scales the children's values down together, in
proportion, so each keeps its part of the whole (cents and whole numbers rounded down).
"""

from __future__ import annotations

import math

from envs.formats.spec import EnvSpec
from envs.quality.amounts import excess, sibling_groups


def settle_amounts(spec: EnvSpec) -> int:
    """Scale down the children's amounts that go beyond their parent (in place). Returns the number of
    groups of siblings scaled."""
    scaled = 0
    for table, parent, parent_row, children in sibling_groups(spec, spec.seed):
        kinds = {c.name: c.type for c in table.columns}
        for column, bound in excess(table, parent, parent_row, children):
            total = sum(v for r in children if isinstance(v := r.get(column), int | float))
            for row in children:
                value = row.get(column)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    part = value * bound / total
                    row[column] = math.floor(part) if kinds[column] == "integer" else math.floor(part * 100) / 100
            scaled += 1
    return scaled
