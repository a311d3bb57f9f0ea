"""No money record of nothing in a state that says money moved or is owed (measure 107,
docs/synthesis.md): a payment marked paid moved a sum, an overdue invoice has something left to pay.

The value generator draws 0 for some money columns on purpose (guards such as "the balance must be 0"
need settled balances), without knowing the row's status; :func:`settle_paid_amounts` redraws the sum
of a settled payment, charge or refund, and what is owed on an unpaid record, from the positive values
its column holds elsewhere. It runs before the amount fixes, so sums within wholes and balances that
add up follow the new value.
"""

from __future__ import annotations

import random
from statistics import median
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.paid_nothing import paid_nothing_findings

#: A sum to start from where a column holds no positive value anywhere.
_FALLBACK = 25.0


def settle_paid_amounts(spec: EnvSpec) -> int:
    """Keep ``spec``'s seed rows out of measure 107 (in place); returns the number of values changed."""
    rng = random.Random(f"paid-amounts:{spec.id}")
    changed = 0
    for table, row, column, off in list(paid_nothing_findings(spec, spec.seed)):
        if not off:
            continue
        row[column] = positive_sum(spec.seed.get(table, []), column, rng)
        changed += 1
    return changed


def positive_sum(rows: list[dict[str, Any]], column: str, rng: random.Random) -> float:
    """A sum for ``column`` near the middle of the positive ones ``rows`` hold."""
    held = [v for r in rows if isinstance(v := r.get(column), int | float) and v > 0]
    typical = median(held) if held else _FALLBACK
    return round(typical * rng.uniform(0.5, 1.5), 2)
