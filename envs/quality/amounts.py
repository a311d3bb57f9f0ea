"""Amounts beyond the record they come from: refunds of one purchase that add up to more than it cost,
beneficiaries' shares of one account above 100 % (measure 34, docs/synthesis.md).

Columns are picked by their names and types alone, so the measure runs on any catalog; the seed
generator keeps the rules (``synthesis.domains.amounts``):

* **Money back.** The ``real`` columns of a child row named for money going back (:data:`BACK_WORDS`:
  ``refund_amount``, ``credited``, ``payout``; in a table named for it, ``program_refunds``, its
  ``amount``) add up, over the children of one parent, to no more
  than the parent's price (its first ``real`` column named for what was paid: :data:`PRICE_WORDS`).
* **Shares.** The numeric columns of a child row named for a share (:data:`SHARE_WORDS`:
  ``share_percent``, ``allocation_pct``) add up, over the children of one parent, to no more than 100.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .text import word_set

#: Words of an amount that goes back to the customer.
BACK_WORDS = word_set("refund refunded refundable credit credited reimbursement reimbursed payout")
#: Words of what a record cost, in the order they are preferred.
PRICE_WORDS = ("paid", "price", "total", "amount", "cost", "fare", "fee", "principal")
#: Words of a share of a whole.
SHARE_WORDS = word_set("share shares allocation split")
#: Words that make a column something else than its first word says (a store credit balance).
_NOT = word_set("balance limit available remaining points rate")


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def money_back_columns(table: TableSpec) -> list[str]:
    # a table of refunds calls its money back plain "amount"
    refunds_table = bool({w.removesuffix("s") for w in _words(table.name)} & BACK_WORDS)
    return [
        c.name
        for c in table.columns
        if c.type == "real"
        and not _words(c.name) & _NOT
        and (_words(c.name) & BACK_WORDS or (refunds_table and "amount" in _words(c.name)))
    ]


def price_column(table: TableSpec) -> str | None:
    """The parent's column of what it cost: the first ``real`` column with the most preferred price word."""
    priced = [c.name for c in table.columns if c.type == "real" and not _words(c.name) & (_NOT | BACK_WORDS)]
    for word in PRICE_WORDS:
        found = next((n for n in priced if word in _words(n)), None)
        if found is not None:
            return found
    return None


def share_columns(table: TableSpec) -> list[str]:
    return [c.name for c in table.columns if c.type in ("real", "integer") and _words(c.name) & SHARE_WORDS]


def sibling_groups(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[TableSpec, TableSpec, dict[str, Any], list[dict[str, Any]]]]:
    """(child table, parent table, parent row, its child rows) for each single-column foreign key."""
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or parent is table or len(fk.columns) != 1:
                continue
            by_key = {r.get(fk.references[0]): r for r in rows.get(parent.name, [])}
            groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
            for row in rows.get(table.name, []):
                if row.get(fk.columns[0]) in by_key:
                    groups[row[fk.columns[0]]].append(row)
            for key, children in groups.items():
                yield table, parent, by_key[key], children


def _sum(rows: list[dict[str, Any]], column: str) -> float:
    return sum(v for r in rows if isinstance(v := r.get(column), int | float) and not isinstance(v, bool))


def excess(
    table: TableSpec, parent: TableSpec, parent_row: Mapping[str, Any], children: list[dict[str, Any]]
) -> list[tuple[str, float]]:
    """(column, the most its values may add up to) for each column of ``children`` over its bound."""
    out: list[tuple[str, float]] = []
    price = price_column(parent)
    cost = parent_row.get(price) if price else None
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        out += [(c, float(cost)) for c in money_back_columns(table) if _sum(children, c) > cost + 0.005]
    out += [(c, 100.0) for c in share_columns(table) if _sum(children, c) > 100.005]
    return out


@dataclass
class AmountCounts:
    """Parents whose children's money back or shares add up, and those whose children's go beyond."""

    amount_groups_checked: int = 0
    amounts_beyond_parent: int = 0


def amounts_beyond_parent(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> AmountCounts:
    """Measure 34 over ``rows`` (table -> rows; the seed by default): a parent counts once per child table."""
    rows = spec.seed if rows is None else rows
    out = AmountCounts()
    for table, parent, parent_row, children in sibling_groups(spec, rows):
        price = price_column(parent)
        checks = share_columns(table) or (
            money_back_columns(table) if price and parent_row.get(price) is not None else []
        )
        if not checks:
            continue
        out.amount_groups_checked += 1
        out.amounts_beyond_parent += bool(excess(table, parent, parent_row, children))
    return out
