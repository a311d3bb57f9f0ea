"""A record's status against the rows that belong to it: a bill paid in full (payments of its whole
amount due) yet still overdue, a vehicle marked available while a live hold sits on it (measure 49,
docs/synthesis.md).

Tables and columns are picked by their names alone, so the measure runs on any catalog; the seed
generator keeps the rules (``synthesis.domains.bounds`` for payments, ``synthesis.domains.one_off``
for holds):

* **Paid in full is not due.** A parent with a status and one ``real`` column of the amount it is
  owed (:data:`DUE_WORDS`: ``amount_due``, ``duty_owed``; not a balance that runs down), whose child
  payments (a table named for payments or receipts, its ``amount``) add up to that amount, is not in
  a status that says it is still owed (:data:`STILL_DUE`: open, unpaid, overdue, past due ...).
* **Taken is not free.** A parent that is one thing a person takes at a time (it has a flag saying it
  is free: :func:`free_flag`, ``vacant``, ``is_available``, ``availability``) is not free while a
  child that takes it (:data:`.one_off.TAKING`: a hold, a lease, a rental, a permit) is live (a held status:
  :data:`.one_off.HELD`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, TableSpec
from .one_off import free_flag, held, says_free, singular, takes_one_thing
from .periods import OVERDUE
from .seed import status_columns
from .text import word_set

#: Words of the amount a record is owed (a balance that payments run down is another thing).
DUE_WORDS = word_set("due owed")
_NOT_DUE = word_set("balance remaining left")
#: Words of a table of money paid towards its parent.
PAYMENT_WORDS = word_set("payment receipt")
#: Statuses of a record still owed.
STILL_DUE = OVERDUE | word_set("open unpaid due outstanding billed issued_unpaid payment_due awaiting_payment")


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def due_column(table: TableSpec) -> str | None:
    """The parent's one column of the amount it is owed, if it has exactly one."""
    found = [
        c.name
        for c in table.columns
        if c.type == "real" and _words(c.name) & DUE_WORDS and not _words(c.name) & _NOT_DUE
    ]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class Link:
    """Rows of ``child`` belong to rows of ``parent`` through ``fk``."""

    child: TableSpec
    fk: ForeignKey
    parent: TableSpec


def links(spec: EnvSpec) -> Iterator[Link]:
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is not None and parent is not table and len(fk.columns) == 1:
                yield Link(table, fk, parent)


def paid_links(spec: EnvSpec) -> list[Link]:
    """The payments tables whose parent has an amount due and a status."""
    return [
        link
        for link in links(spec)
        if {singular(w) for w in _words(link.child.name)} & PAYMENT_WORDS
        and any(c.name == "amount" for c in link.child.columns)
        and due_column(link.parent) is not None
        and status_columns(link.parent)
    ]


def paid_towards(link: Link, rows: Mapping[str, list[dict[str, Any]]]) -> dict[Any, float]:
    """Parent key -> the amount its payments add up to."""
    out: dict[Any, float] = defaultdict(float)
    for row in rows.get(link.child.name, []):
        if isinstance(amount := row.get("amount"), int | float) and not isinstance(amount, bool):
            out[row.get(link.fk.columns[0])] += amount
    return out


def still_due(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower().replace(" ", "_") in STILL_DUE


def paid_yet_due(link: Link, parent: dict[str, Any], paid: float) -> bool:
    """Whether ``parent`` has been paid its whole amount due and still says it is owed."""
    due = parent.get(due_column(link.parent) or "")
    statuses = [c.name for c in status_columns(link.parent)]
    owed = isinstance(due, int | float) and due > 0 and paid >= due - 0.005
    return owed and any(still_due(parent.get(s)) for s in statuses)


def taken_links(spec: EnvSpec) -> list[Link]:
    """The tables whose live rows take their parent for one holder."""
    return [
        link for link in links(spec) if takes_one_thing(link.child.name, link.parent) and status_columns(link.child)
    ]


def live_takers(link: Link, rows: Mapping[str, list[dict[str, Any]]]) -> dict[Any, int]:
    """Parent key -> its live rows of ``link.child``."""
    statuses = [c.name for c in status_columns(link.child)]
    out: dict[Any, int] = defaultdict(int)
    for row in rows.get(link.child.name, []):
        if any(held(row.get(s)) for s in statuses):
            out[row.get(link.fk.columns[0])] += 1
    return out


@dataclass
class AgreementCounts:
    """Parents whose status can be read against their children, and those that disagree with them."""

    parent_states_checked: int = 0
    parent_states_against_children: int = 0


def parents_against_children(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> AgreementCounts:
    """Measure 49 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = AgreementCounts()
    for link in paid_links(spec):
        paid = paid_towards(link, rows)
        for parent in rows.get(link.parent.name, []):
            key = parent.get(link.fk.references[0])
            if key in paid:
                out.parent_states_checked += 1
                out.parent_states_against_children += paid_yet_due(link, parent, paid[key])
    for link in taken_links(spec):
        flag = free_flag(link.parent) or ""
        taken = live_takers(link, rows)
        for parent in rows.get(link.parent.name, []):
            if taken.get(parent.get(link.fk.references[0])):
                out.parent_states_checked += 1
                out.parent_states_against_children += says_free(parent.get(flag))
    return out
