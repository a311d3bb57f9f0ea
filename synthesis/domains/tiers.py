"""Seed prices that rise with the tier they are for (the quality report's measure 75,
:mod:`envs.quality.tiers`): no extra-large box cheaper than a small one, no premium plan below basic.

:func:`settle_tiers` runs before the amounts that follow a price (a fee copied into a payment, a share
of it) and keeps each group's prices as drawn, handing them out again in the order of the rungs: the
cheapest to the lowest rung, rows of one rung in the order they were drawn.
"""

from __future__ import annotations

from envs.formats.spec import EnvSpec
from envs.quality.tiers import groups, rank, tiers, undercut


def settle_tiers(spec: EnvSpec) -> int:
    """Reorder the prices of every group with a row a lower rung undercuts (in place); returns the
    number of rows whose price changed."""
    changed = 0
    for tiers_of in tiers(spec):
        for group in groups(tiers_of, spec.seed.get(tiers_of.table, [])).values():
            if not any(undercut(tiers_of, group)):
                continue
            prices = sorted(row[tiers_of.price] for row in group)
            ranked = sorted(range(len(group)), key=lambda i: (rank(group[i][tiers_of.tier]), i))
            for i, price in zip(ranked, prices, strict=True):
                changed += group[i][tiers_of.price] != price
                group[i][tiers_of.price] = price
    return changed
