"""Seed balances that add up on their row (the quality report's measure 69,
:mod:`envs.quality.balances`): what is still owed is the whole less what was paid, never below 0 nor
above the whole.

:func:`settle_balances` runs last among the amounts, after the aggregates have set what was paid from
the payments recorded: the balance follows the whole and the paid columns, which are left as drawn.
"""

from __future__ import annotations

from envs.formats.spec import EnvSpec
from envs.quality.balances import balances, does_not_add_up, owed_from


def settle_balances(spec: EnvSpec) -> int:
    """Set every balance that does not add up to its whole less what was paid (in place); returns how
    many changed."""
    changed = 0
    for balance in balances(spec):
        for row in spec.seed.get(balance.table, []):
            if does_not_add_up(balance, row) and (owed := owed_from(balance, row)) is not None:
                row[balance.balance] = owed
                changed += 1
    return changed
