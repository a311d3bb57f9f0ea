"""Seed amounts within the record they come from (the quality report's measure 34,
:mod:`envs.quality.amounts`): the refunds of one purchase add up to no more than it cost, the
beneficiaries of one account to no more than 100 %; and in proportion to the amount they are for
(measure 41, :mod:`envs.quality.amount_bands`): an offer near the listing's price, earnest money a
usual part of the offer.

:func:`settle_amounts` runs on the finished seed and scales the children's values down together, in
proportion, so each keeps its part of the whole (cents and whole numbers rounded down).
:func:`fit_amounts` runs before it and redraws an amount out of proportion inside its band
(:func:`proportionate`, which the task generator uses too for the amounts of a new record).
"""

from __future__ import annotations

import math
import random

from envs.formats.spec import EnvSpec
from envs.quality.amount_bands import Pair, amount_pairs, outside, pair_rows
from envs.quality.amounts import excess, sibling_groups

from .bounds import fit_bounds
from .made_amounts import fit_made_amounts
from .own_row import fit_own_rows
from .passed_rules import fit_passed_rules
from .priced_lines import fit_unit_prices
from .status_fields import fit_status_fields


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


def proportionate(pair: Pair, base: float, rng: random.Random) -> float:
    """An amount in the usual part of ``pair``'s band of ``base``, rounded as people state one: an offer
    near the asking price (92-103 %), a deposit in the lower quarter of its band; to three significant
    figures (an offer of 412,000, earnest money of 8,250), never outside the band."""
    lo, hi = pair.band
    if lo == hi:
        return round(base * lo, 2)
    factor = rng.uniform(0.92, 1.03) if lo < 1 < hi else rng.uniform(lo, lo + (hi - lo) / 4)
    value = base * factor
    step = 10 ** max(math.floor(math.log10(value)) - 2, -2) if value > 0 else 0.01
    rounded = round(round(value / step) * step, 2)
    return rounded if not outside(pair, rounded, base) else round(value, 2)


def fit_amounts(spec: EnvSpec) -> int:
    """Redraw the seed amounts out of proportion to the amount they are for (measure 41; in place): an
    offer near its listing's price, a deposit a usual part of what it secures, a deposit record its
    parent's deposit. Offers first, so a deposit follows its offer; then the values bounded by their
    record (:func:`.bounds.fit_bounds`: guests within the room's capacity, a bill still owed paid in
    part) and the columns their row's status reads (:func:`.own_row.fit_own_rows`: a row paid off owes
    nothing), and last the amounts their tools derive (:func:`.made_amounts.fit_made_amounts`: miles
    redeemed are the flight's, a stay is priced by its days). Returns the number of values changed."""
    rng = random.Random(f"amount-bands:{spec.id}")
    changed = 0
    kinds = {(t.name, c.name): c.type for t in spec.tables for c in t.columns}
    for pair, row, base in pair_rows(spec, spec.seed, amount_pairs(spec)):
        if outside(pair, float(row[pair.column]), base):
            value = proportionate(pair, base, rng)
            row[pair.column] = math.floor(value) if kinds[pair.table, pair.column] == "integer" else value
            changed += 1
    changed += fit_unit_prices(spec)  # a line is its units at the unit price, before a cap scales it
    changed += fit_passed_rules(spec)  # before the bounds: a capped amount stays within its maximum
    changed += fit_unit_prices(spec, keep_below=True)  # a scaled line in whole units, within its cap
    changed += fit_status_fields(spec)  # a grade once verified, no guardian for an adult
    return changed + fit_bounds(spec) + fit_own_rows(spec) + fit_made_amounts(spec)
