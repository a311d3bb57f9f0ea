"""Which tables hold money moving between two parties and which of their columns say how much, by
names alone: shared by measure 107 (nothing paid in a settled state) and measure 73's money in transit.
"""

from __future__ import annotations

from typing import Any

from ..formats.spec import ColumnSpec, TableSpec
from .text import word_set

#: Table name words of records of money changing hands.
MONEY_TABLES = word_set(
    """payment payments charge charges invoice invoices refund refunds transaction transactions bill bills
    receipt receipts payout payouts remittance remittances settlement settlements"""
)
#: Column name words of the sum a record moves.
SUM_WORDS = word_set("amount total paid charge charged refund refunded payment sum")
#: Column name words of something other than the sum moved: a tip, a discount, a running balance.
_NOT_SUM = word_set("tip discount credit difference balance budget limit deposit tax points miles")
#: Column name words of what is still owed.
OWED_WORDS = word_set("balance due outstanding owed owing remaining")


def words(name: str) -> set[str]:
    """The lower-case words of a snake-case name."""
    return set(name.lower().split("_"))


def status_word(value: Any) -> str:
    """A status value as one snake-case word ("Past due" -> ``past_due``)."""
    return value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""


def money_table(table: TableSpec) -> bool:
    """Whether ``table``'s rows are sums paid, charged, invoiced or refunded."""
    return bool(words(table.name) & MONEY_TABLES)


def sum_columns(table: TableSpec) -> list[ColumnSpec]:
    """The number columns of ``table`` that hold the sum a money record moves."""
    return [
        c
        for c in table.columns
        if c.type == "real" and words(c.name) & SUM_WORDS and not words(c.name) & (_NOT_SUM | OWED_WORDS)
    ]


def owed_columns(table: TableSpec) -> list[ColumnSpec]:
    """The number columns of ``table`` that hold what is still owed (``balance_due``, ``amount_due``)."""
    return [c for c in table.columns if c.type == "real" and words(c.name) & OWED_WORDS]


def nothing(value: Any) -> bool:
    """Whether ``value`` is a sum of nothing (0 or less)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and value <= 0
