"""Lines priced by the unit (the quality report's measure 80, :mod:`envs.quality.priced_lines`): a line
of two shifter cables at 115.46 each costs 230.92.

:func:`fit_unit_prices` runs with the amounts (``amounts.fit_amounts``), twice. Before the caps
(``passed_rules.fit_passed_rules``) it prices each line at its quantity times the unit price, keeping the
quantity the seed drew; a cap then scales a group of lines down together, so after the caps a line off
its units keeps the price the cap left it, as near as whole units reach from below: the quantity falls
to the most units that price pays for (at least one), and the line is those units' price.
"""

from __future__ import annotations

import math

from envs.formats.spec import EnvSpec
from envs.quality.priced_lines import CENT, unit_findings


def fit_unit_prices(spec: EnvSpec, *, keep_below: bool = False) -> int:
    """Set the seed lines off their quantity times their unit price (in place); with ``keep_below`` the
    quantity follows the line's price instead. Returns how many lines changed."""
    changed = 0
    for rule, row, price in list(unit_findings(spec, spec.seed)):
        value, quantity = row[rule.amount], row[rule.quantity]
        if abs(value - quantity * price) <= CENT:
            continue
        if keep_below and price > 0:
            # a cap's share of the group, in the whole units it pays for
            quantity = row[rule.quantity] = max(1, math.floor(value / price + 1e-9))
        row[rule.amount] = round(quantity * price, 2)
        changed += 1
    return changed
