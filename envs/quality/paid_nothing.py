"""Money records of nothing in a state that says money moved (measure 107, docs/synthesis.md): a
payment of 0.00 marked paid, a charge of 0.00 captured, a refund of 0.00 issued, an invoice overdue with
0.00 left to pay.

Read by table and column names and status words alone (:mod:`.money_rows`), so the measure runs on any
catalog; the seed generator keeps it (``synthesis.domains.paid_amounts``).

* **Settled**: a row of a money table (payments, charges, invoices, refunds ...) in a state that says
  its sum changed hands (:data:`SETTLED`: paid, settled, completed, posted, captured, issued, refunded
  ...) holds more than 0 in each column naming that sum (``amount``, ``total``, ``refund_amount``).
* **Unpaid**: a row of any table in a state that says money is still owed (:data:`UNPAID`: unpaid,
  overdue, past due, outstanding, delinquent ...) holds more than 0 in each column naming what is owed
  (``balance_due``, ``amount_due``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .money_rows import money_table, nothing, owed_columns, status_word, sum_columns
from .seed import status_columns
from .text import word_set

#: Statuses that say a money record's sum changed hands.
SETTLED = word_set(
    "paid settled completed complete posted captured succeeded successful issued refunded charged processed cleared"
)
#: Statuses that say money is still owed on a record.
UNPAID = word_set("unpaid overdue past_due outstanding delinquent in_arrears partially_paid payment_due")


@dataclass
class PaidNothingCounts:
    """Settled money rows and owed balances read, those of nothing."""

    paid_amounts_checked: int = 0
    paid_amounts_of_nothing: int = 0


def paid_nothing_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[str, dict[str, Any], str, bool]]:
    """(table, row, column, off) for every settled sum and owed balance read."""
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        if not statuses:
            continue
        sums = [c.name for c in sum_columns(table)] if money_table(table) else []
        owed = [c.name for c in owed_columns(table)]
        for row in rows.get(table.name, []):
            states = {status_word(row.get(s)) for s in statuses}
            read = (sums if states & SETTLED else []) + (owed if states & UNPAID else [])
            for column in read:
                if isinstance(row.get(column), int | float):
                    yield table.name, row, column, nothing(row[column])


def paid_amounts_of_nothing(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> PaidNothingCounts:
    """Measure 107 over ``rows`` (table -> rows; the seed by default)."""
    out = PaidNothingCounts()
    for *_, off in paid_nothing_findings(spec, spec.seed if rows is None else rows):
        out.paid_amounts_checked += 1
        out.paid_amounts_of_nothing += off
    return out
