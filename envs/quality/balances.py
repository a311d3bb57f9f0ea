"""Amounts that do not add up on one row (measure 69, docs/synthesis.md): a custom order of 936.93 with
4,477.29 still due, a cruise fare of 1,652.30 with a balance of 2,367.66.

Read by column names alone, so the measure runs on any catalog; the seed generator keeps the rule
(``synthesis.domains.balances``). A table with one whole (a money column named total, price, fare or
cost, no rate per something) and one balance (named balance, remaining, outstanding or owed, or
``amount_due``) holds, on each row:

* a balance between 0 and the whole: nothing is owed beyond what the thing costs;
* while anything is still owed, the whole less what was paid (the row's columns named paid or
  deposit: ``deposit_paid``, ``amount_paid``). Once the balance is 0 the paid column may count only a
  part (a deposit, where the final payment is recorded as a payment of its own), so it is not read.

The tools keep the same sum: a payment lowers the balance by what it adds to the paid column.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec

_WHOLE = frozenset({"total", "price", "fare", "cost"})
_RATE = frozenset({"per", "monthly", "daily", "weekly", "nightly", "hourly", "unit", "rate", "annual"})
_BALANCE = frozenset({"balance", "remaining", "outstanding", "owed"})
_PAID = frozenset({"paid", "deposit"})
CENT = 0.005


@dataclass(frozen=True)
class Balance:
    """``balance`` of ``table`` is ``whole`` less the ``paid`` columns while anything is owed."""

    table: str
    whole: str
    balance: str
    paid: tuple[str, ...]


def _money(table: TableSpec) -> list[str]:
    return [c.name for c in table.columns if c.type == "real"]


def balances(spec: EnvSpec) -> list[Balance]:
    """The tables with one whole and one balance."""
    out = []
    for table in spec.tables:
        money = _money(table)
        words = {name: set(name.lower().split("_")) for name in money}
        owed = [n for n in money if words[n] & _BALANCE or n == "amount_due"]
        wholes = [n for n in money if words[n] & _WHOLE and not words[n] & (_RATE | _BALANCE | _PAID)]
        if len(owed) != 1 or len(wholes) != 1:
            continue
        paid = tuple(n for n in money if words[n] & _PAID and n not in owed and n not in wholes)
        out.append(Balance(table.name, wholes[0], owed[0], paid))
    return out


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def owed_from(balance: Balance, row: Mapping[str, Any]) -> float | None:
    """What ``row`` should owe by its whole and what it paid; None where the row cannot be read."""
    whole = _number(row.get(balance.whole))
    left = _number(row.get(balance.balance))
    if whole is None or left is None:
        return None
    if not balance.paid:
        return min(max(left, 0.0), whole)
    if left <= CENT:
        return max(left, 0.0)
    paid = [_number(row.get(c)) for c in balance.paid]
    if any(p is None for p in paid):
        return None
    return round(max(whole - sum(p for p in paid if p is not None), 0.0), 2)


def does_not_add_up(balance: Balance, row: Mapping[str, Any]) -> bool | None:
    """Whether ``row``'s balance is off its whole and what it paid; None where it cannot be read."""
    owed = owed_from(balance, row)
    if owed is None:
        return None
    left = _number(row.get(balance.balance))
    assert left is not None  # owed_from read it
    return abs(left - owed) > 2 * CENT


@dataclass
class BalanceCounts:
    """Rows with a whole and a balance, and those whose parts do not add up (measure 69)."""

    balance_rows_checked: int = 0
    balances_not_adding_up: int = 0


def balance_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(table, off) for every row read."""
    for balance in balances(spec):
        for row in rows.get(balance.table, []):
            if (off := does_not_add_up(balance, row)) is not None:
                yield balance.table, off


def balances_not_adding_up(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> BalanceCounts:
    """Measure 69 over ``rows`` (table -> rows; the seed by default)."""
    out = BalanceCounts()
    for _, off in balance_findings(spec, spec.seed if rows is None else rows):
        out.balance_rows_checked += 1
        out.balances_not_adding_up += off
    return out
