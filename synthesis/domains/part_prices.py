"""A repair's cost inside its part's price band (the quality report's measure 99,
:mod:`envs.quality.kind_fits`): no 5,265.30 alternator.

The seed draws a cost from its column's range and a repair's text from its examples apart, so a
starter motor may cost what a transmission does. :func:`settle_part_prices` draws the cost again
inside the band of the one part the text names, and an amount a child row copied from it (a claim's
payment of the repair cost) follows.
"""

from __future__ import annotations

import random
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.kind_fits import PART_BANDS, priced_parts


def settle_part_prices(spec: EnvSpec, seed: int) -> int:
    """Redraw every cost outside its named part's band (in place). Returns the rows changed."""
    rng = random.Random(f"part-prices:{seed}")
    changed = 0
    for table, row, part, column in priced_parts(spec, spec.seed):
        low, high = PART_BANDS[part]
        old = float(row[column])
        if not low <= old <= high:
            row[column] = round(rng.uniform(low, high), 2)
            changed += 1 + _copies_follow(spec, table, row, old, row[column])
    return changed


def _copies_follow(spec: EnvSpec, table: str, row: dict[str, Any], old: float, new: float) -> int:
    """Set every amount of a row pointing to ``row`` of ``table`` that holds ``old`` to ``new``.
    Returns how many."""
    key_column = next(t for t in spec.tables if t.name == table).primary_key[0]
    changed = 0
    for child_table in spec.tables:
        amounts = [c.name for c in child_table.columns if c.type == "real"]
        for fk in (f for f in child_table.foreign_keys if f.table == table and len(f.columns) == 1):
            for child in spec.seed.get(child_table.name, []):
                if child.get(fk.columns[0]) != row.get(key_column):
                    continue
                for column in amounts:
                    if isinstance(child.get(column), int | float) and abs(float(child[column]) - old) < 0.005:
                        child[column] = new
                        changed += 1
    return changed
