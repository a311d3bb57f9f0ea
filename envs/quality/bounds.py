"""Counts, amounts and dates beyond the record they belong to: 194 guests in a room for 118, a rebate
asked above its program's maximum, a program paid above its list price, an expense receipt dated
before the trip it was bought on (measure 48, docs/synthesis.md).

A *bound* pairs a column of a child row with a column of the record it belongs to (its parent, or
for a date the parent's parent too). Columns are picked by their names and types alone, so the
measure runs on any catalog; the seed generator keeps the rules (``synthesis.domains.bounds``):

* **At most the parent's capacity or maximum.** A child ``integer`` column counting people
  (:data:`COUNT_WORDS`: ``guest_count``, ``party_size``, ``occupants``) is at most its parent's
  ``integer`` column named for a capacity (:data:`CAPACITY_WORDS`: ``capacity``, ``max_guests``);
  a child ``real`` column of an amount asked or granted (:data:`ASKED_WORDS`: ``amount_requested``)
  is at most its parent's ``real`` maximum (``max_rebate``). A limit that runs down (``remaining``)
  or a rate is no such bound.
* **Paid at most the list price.** A child ``real`` column named for what was paid
  (``amount_paid``, ``fee_paid``) is at most its parent's one list price or fee (:data:`LIST_WORDS`),
  where the child counts no quantity.
* **Not before the span it happened in.** A child date named for something that happened during
  its record's span (:data:`DURING_WORDS`: ``incident_date``, ``receipt_date``, ``air_date``) is
  not before the day the span started (:data:`START_WORDS`: ``arrived_on``, ``trip_start``,
  ``start_date``), on the parent or on the parent's parent.
* **A balance is what is still owed.** A parent's ``<thing>_balance`` (``fine_balance``) equals the
  ``amount`` of its children of that thing (``fines``) in a status still owed (:data:`STILL_OWED`).
* **A part within its whole.** An amount named for a part of another on the same row
  (:data:`PART_WHOLE`: ``net_pay``) is at most it (``gross_pay``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, TableSpec
from .one_off import singular
from .seed import status_columns
from .text import word_set

#: Words of a parent's bound on a count or an amount of its children.
CAPACITY_WORDS = word_set("capacity max maximum")
#: Words that make such a column something else than a fixed bound (a limit that runs down, a rate).
_NOT_BOUND = word_set("remaining left used available rate per daily weekly monthly nightly hourly price")
#: Words of a child's count of people.
COUNT_WORDS = word_set(
    """guest guests party attendee attendees headcount occupants occupant passengers participants riders
    travelers travellers persons people seats"""
)
#: Words of an amount asked for or granted.
ASKED_WORDS = word_set("requested claimed approved asked")
#: Words of a list price or fee a parent is sold at.
LIST_WORDS = word_set("price fee tuition")
#: Words of a child's count of the things it is for (a line of three units pays three prices).
_QUANTITY = word_set("quantity qty units count")
#: A word of a part of an amount and the word of its whole, on one row (net pay within gross pay).
PART_WHOLE = {"net": "gross"}
#: Statuses of a thing still owed, which a balance of such things adds up.
STILL_OWED = word_set("open unpaid outstanding owed due overdue past_due billed assessed")
#: Words of a child's date of something that happens during its record's span.
DURING_WORDS = word_set("incident occurred incurred receipt loss accident air aired")
#: Words of the date a record's span starts.
START_WORDS = word_set("arrived arrival start starts started begins began effective commenced departure departed")
#: Words of a date that is not when something happened (a deadline, an end, a birth).
_NOT_DURING = word_set("deadline due expires expiry expiration until end ends birth dob")


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


@dataclass(frozen=True)
class Bound:
    """``table.column`` is at most (``at_most``) or not before (``not before``) ``limit`` of the row
    reached through ``path`` (one or two foreign keys, the child's first; none: the row itself)."""

    table: str
    column: str
    path: tuple[ForeignKey, ...]
    parent: str
    limit: str
    kind: str


def _columns(table: TableSpec, types: tuple[str, ...]) -> list[str]:
    return [c.name for c in table.columns if c.type in types]


def _at_most(child: TableSpec, parent: TableSpec) -> Iterator[tuple[str, str]]:
    bounds = [
        n for n in _columns(parent, ("integer", "real")) if _words(n) & CAPACITY_WORDS and not _words(n) & _NOT_BOUND
    ]
    kinds = {c.name: c.type for c in parent.columns}
    for c in child.columns:
        wanted = COUNT_WORDS if c.type == "integer" else ASKED_WORDS
        if c.type in ("integer", "real") and _words(c.name) & wanted:
            yield from ((c.name, b) for b in bounds if kinds[b] == c.type)
    prices = [
        n for n in _columns(parent, ("real",)) if _words(n) & LIST_WORDS and not _words(n) & (_NOT_BOUND - {"price"})
    ]
    counted = any(_words(n) & _QUANTITY for n in _columns(child, ("integer",)))
    if len(prices) == 1 and not counted:
        yield from ((c, prices[0]) for c in _columns(child, ("real",)) if "paid" in _words(c))


def is_start(name: str) -> bool:
    """Whether a date column's name says it is when its record's span started (``trip_start``)."""
    return bool(_words(name) & START_WORDS) and not _words(name) & _NOT_DURING


def is_during(name: str) -> bool:
    """Whether a date column's name says something happened during its record's span (``incident_date``)."""
    return bool(_words(name) & DURING_WORDS) and not _words(name) & _NOT_DURING


def _starts(table: TableSpec) -> list[str]:
    return [n for n in _columns(table, ("date", "datetime")) if is_start(n)]


def _during(table: TableSpec) -> list[str]:
    return [n for n in _columns(table, ("date", "datetime")) if is_during(n)]


def _parts(table: TableSpec) -> Iterator[tuple[str, str]]:
    """(part, whole) amounts of one row: ``net_pay`` and ``gross_pay``."""
    amounts = set(_columns(table, ("real", "integer")))
    for name in sorted(amounts):
        words = name.lower().split("_")
        for i, word in enumerate(words):
            whole = "_".join([*words[:i], PART_WHOLE.get(word, ""), *words[i + 1 :]])
            if word in PART_WHOLE and whole in amounts:
                yield name, whole


def bounds(spec: EnvSpec) -> list[Bound]:
    """Every bound of ``spec`` (see the module docstring)."""
    tables = {t.name: t for t in spec.tables}
    out: list[Bound] = []
    for table in spec.tables:
        out += [Bound(table.name, part, (), table.name, whole, "at most") for part, whole in _parts(table)]
        during = _during(table)
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or parent is table or len(fk.columns) != 1:
                continue
            out += [Bound(table.name, c, (fk,), parent.name, b, "at most") for c, b in _at_most(table, parent)]
            if not during:
                continue
            out += [Bound(table.name, c, (fk,), parent.name, s, "not before") for c in during for s in _starts(parent)]
            for up in parent.foreign_keys:
                grand = tables.get(up.table)
                if grand is None or grand in (parent, table) or len(up.columns) != 1:
                    continue
                out += [
                    Bound(table.name, c, (fk, up), grand.name, s, "not before") for c in during for s in _starts(grand)
                ]
    return out


def limit_rows(
    bound: Bound, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(child row, the row it is bounded by) for each child row of ``bound`` whose path leads to a row."""
    by_table: dict[tuple[str, str], dict[Any, dict[str, Any]]] = {}

    def keyed(table: str, column: str) -> dict[Any, dict[str, Any]]:
        if (table, column) not in by_table:
            by_table[table, column] = {r.get(column): r for r in rows.get(table, [])}
        return by_table[table, column]

    for row in rows.get(bound.table, []):
        current: dict[str, Any] | None = row
        for fk in bound.path:
            if current is None:
                break
            current = keyed(fk.table, fk.references[0]).get(current.get(fk.columns[0]))
        if current is not None:
            yield row, current


def beyond(bound: Bound, value: Any, limit: Any) -> bool:
    """Whether ``value`` breaks ``bound`` against ``limit`` (a missing value breaks nothing)."""
    if value is None or limit is None or isinstance(value, bool) or isinstance(limit, bool):
        return False
    if bound.kind == "at most":
        numbers = isinstance(value, int | float) and isinstance(limit, int | float)
        return numbers and limit > 0 and value > limit + 0.005
    return isinstance(value, str) and isinstance(limit, str) and value[:10] < limit[:10]


@dataclass(frozen=True)
class Balance:
    """``parent.column`` is what its ``child`` rows (through ``fk``) still owe: their ``amount`` summed
    over those in a status still due."""

    parent: str
    column: str
    child: str
    fk: ForeignKey
    statuses: tuple[str, ...]


def balances(spec: EnvSpec) -> list[Balance]:
    """A parent's ``<thing>_balance`` over its one child table of those things (``fine_balance`` over
    ``fines``) that have an ``amount`` and a status."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for child in spec.tables:
        statuses = tuple(c.name for c in status_columns(child))
        if not statuses or not any(c.name == "amount" and c.type == "real" for c in child.columns):
            continue
        thing = singular(child.name.lower().split("_")[-1])
        for fk in child.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or parent is child or len(fk.columns) != 1:
                continue
            out += [
                Balance(parent.name, c.name, child.name, fk, statuses)
                for c in parent.columns
                if c.type == "real" and c.name.lower() == f"{thing}_balance"
            ]
    return out


def still_owed(balance: Balance, rows: Mapping[str, list[dict[str, Any]]]) -> dict[Any, float]:
    """Parent key -> what its children in a status still due add up to."""
    owed: dict[Any, float] = {}
    for row in rows.get(balance.child, []):
        key = row.get(balance.fk.columns[0])
        if any(str(row.get(s) or "").lower() in STILL_OWED for s in balance.statuses):
            amount = row.get("amount")
            owed[key] = owed.get(key, 0.0) + (amount if isinstance(amount, int | float) else 0.0)
    return owed


@dataclass
class BoundCounts:
    """Child values with a bound on their record, and those beyond it."""

    bounded_values_checked: int = 0
    values_beyond_their_record: int = 0


def values_beyond_record(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> BoundCounts:
    """Measure 48 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = BoundCounts()
    for bound in bounds(spec):
        for row, parent in limit_rows(bound, rows):
            value, limit = row.get(bound.column), parent.get(bound.limit)
            if value is None or limit is None:
                continue
            out.bounded_values_checked += 1
            out.values_beyond_their_record += beyond(bound, value, limit)
    for balance in balances(spec):
        owed = still_owed(balance, rows)
        key = balance.fk.references[0]
        for parent in rows.get(balance.parent, []):
            value = parent.get(balance.column)
            if isinstance(value, int | float):
                out.bounded_values_checked += 1
                out.values_beyond_their_record += abs(value - owed.get(parent.get(key), 0.0)) > 0.005
    return out
