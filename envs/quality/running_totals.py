"""Running totals below their parts (measure 78, docs/synthesis.md): a member's miles balance of 2,870
beside 100,853 miles of flight accruals posted in January and February, and no redemption to explain
where they went.

Read by column names and enum values alone, so the measure runs on any catalog; the seed generator
keeps the rule (``synthesis.domains.running_totals``). A parent's running total (a number column named
balance with a unit: ``miles_balance``, ``points_balance``) and a ledger of it (a child table with a
column named the unit alone, ``miles``, and a kind column whose values say which way each entry goes,
:data:`CREDIT_WORDS` and :data:`DEBIT_WORDS`): a parent with no debit on record — no debit entry, and
no row of another child table spending the unit (``miles_redeemed``, in a state not called off) — holds
at least the sum of its credits.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .event_children import CALLED_OFF
from .seed import status_columns
from .text import word_set

#: Words of a ledger kind that adds to the total.
CREDIT_WORDS = word_set(
    "accrual accrued earn earned earning credit credited deposit bonus reinstatement refund top up in stay claim "
    "purchase receipt"
)
#: Words of a ledger kind that takes from it.
DEBIT_WORDS = word_set(
    "redemption redeem redeemed withdrawal debit spend spent expiry expiration expired out deduction transfer"
)
#: Words of a kind that undoes another: a redemption reversed gives the points back.
_UNDONE = word_set("reversal reversed undo cancelled")
#: Words of another table's column that spends the unit.
_SPENT = word_set("redeemed spent used deducted")


@dataclass(frozen=True)
class Ledger:
    """``parent.total`` runs over ``table.amount`` entries whose ``kind`` is in ``credits`` or ``debits``;
    ``spending`` lists (table, reference, column) of other children that spend the unit."""

    parent: str
    total: str
    table: str
    reference: str
    amount: str
    kind: str
    credits: frozenset[str]
    debits: frozenset[str]
    spending: tuple[tuple[str, str, str], ...]


def _reference(table: TableSpec, parent: str) -> str | None:
    found = [fk.columns[0] for fk in table.foreign_keys if fk.table == parent and len(fk.columns) == 1]
    return found[0] if len(found) == 1 else None


def ledgers(spec: EnvSpec) -> list[Ledger]:
    """The running totals whose ledger is in the spec."""
    out = []
    for parent in spec.tables:
        for total in parent.columns:
            words = total.name.split("_")
            if total.type not in ("integer", "real") or len(words) != 2 or words[1] != "balance":
                continue
            unit = words[0]
            children = [(t, ref) for t in spec.tables if (ref := _reference(t, parent.name)) is not None]
            for table, ref in children:
                amount = next((c.name for c in table.columns if c.name == unit), None)
                if amount is None:
                    continue
                for kind in (c for c in table.columns if c.enum):
                    values = [str(v) for v in kind.enum or ()]
                    undone = {v for v in values if set(v.split("_")) & _UNDONE}
                    debits = frozenset(v for v in values if set(v.split("_")) & DEBIT_WORDS) - undone
                    credits = frozenset(v for v in values if set(v.split("_")) & CREDIT_WORDS or v in undone) - debits
                    spending = tuple(
                        (t.name, r, c.name)
                        for t, r in children
                        if t is not table
                        for c in t.columns
                        if c.name.split("_")[0] == unit and set(c.name.split("_")[1:]) & _SPENT
                    )
                    if credits and (debits or spending):
                        out.append(
                            Ledger(
                                parent.name, total.name, table.name, ref, amount, kind.name, credits, debits, spending
                            )
                        )
    return out


def ledger_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[Ledger, dict[str, Any], float]]:
    """(ledger, parent row with no debit on record and some credit, the sum of its credits)."""
    tables = {t.name: t for t in spec.tables}
    for ledger in ledgers(spec):
        key = tables[ledger.parent].primary_key[0]
        credit: dict[Any, float] = {}
        debited: set[Any] = set()
        for row in rows.get(ledger.table, []):
            value, owner = row.get(ledger.amount), row.get(ledger.reference)
            if row.get(ledger.kind) in ledger.debits:
                debited.add(owner)
            elif row.get(ledger.kind) in ledger.credits and isinstance(value, int | float):
                credit[owner] = credit.get(owner, 0.0) + abs(value)
        for name, ref, column in ledger.spending:
            statuses = status_columns(tables[name])
            for row in rows.get(name, []):
                live = not statuses or row.get(statuses[0].name) not in CALLED_OFF
                if live and isinstance(row.get(column), int | float) and row[column] > 0:
                    debited.add(row.get(ref))
        for parent in rows.get(ledger.parent, []):
            owner = parent.get(key)
            if owner in credit and owner not in debited and isinstance(parent.get(ledger.total), int | float):
                yield ledger, parent, credit[owner]


@dataclass
class RunningTotalCounts:
    """Running totals with credits and no debit on record, and those below their credits."""

    running_totals_checked: int = 0
    running_totals_below_parts: int = 0


def running_totals_below_parts(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> RunningTotalCounts:
    """Measure 78 over ``rows`` (table -> rows; the seed by default)."""
    out = RunningTotalCounts()
    for ledger, parent, credits in ledger_findings(spec, spec.seed if rows is None else rows):
        out.running_totals_checked += 1
        out.running_totals_below_parts += parent[ledger.total] < credits - 0.005
    return out
