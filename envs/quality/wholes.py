"""Amounts above the whole they are part of (measure 113, docs/synthesis.md): a tour booking for one at
2,445.20 a person owing 6,473.45, 1,526.77 paid on a pair of glasses priced 200.71.

Read by column names alone, so the measure runs on any catalog; the seed generator keeps the rule
(``synthesis.domains.wholes``). A record's *whole* is its own total (one money column named total,
price, fare or cost, qualified at most by words of what is priced: ``order_total``, ``contract_price``,
not ``parts_total``), or, where it has none, a count of its own (``party_size``, ``guests``,
``nights``) times the price of one of them, its own or of the one record it references that has one
(``price_per_person``, ``fare``, ``nightly_rate``). Then:

* **Parts on the row.** Each money column of the record named for a part of it (a balance, what is
  owed or due, a deposit, what was paid) is at most the whole. A balance measure 69 reads against its
  row's whole, and a column with a stated share (``ColumnSpec.ratio``, measure 103), are left to those.
* **Payments.** The sums of the rows of a money table (measure 107's) referencing the record, less
  those undone (a refund, a reversal, a failed or voided payment, whose own measures read them), add up
  to at most the whole.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .balances import balances
from .money_rows import money_table, sum_columns, words
from .text import word_set
from .tool_sql import number

#: Words of a whole's name, and the words that may qualify it (what is priced, not a part of it).
WHOLE_WORDS = word_set("total price fare cost")
_WHOLE_QUALIFIERS = word_set(
    """order contract quoted final grand amount trip booking package purchase sale repair job list agreed
    tour cruise stay rental"""
)
#: Words of a money column that is a part of the record's whole.
PART_WORDS = word_set("balance owed outstanding remaining deposit paid due")
#: Words of a price of one unit, not of the whole.
_RATE_WORDS = word_set("per monthly daily weekly nightly hourly unit rate annual")
#: A count of people and the words of a price of one of them.
_PERSON_COUNTS = word_set("party guests guest seats passengers travelers tickets attendees headcount people")
_PERSON_PRICES = word_set("person guest seat passenger traveler ticket attendee head")
#: A count of nights and the words of a night's price.
_NIGHT_COUNTS = word_set("nights")
_NIGHT_PRICES = word_set("nightly night")
#: Words of a count that is not of what the record bought (``seats_left`` of a flight).
_NOT_BOUGHT = word_set("left available remaining capacity max min open")
#: Words of a payment row's kind or status that say its sum did not stay paid.
UNDONE_WORDS = word_set(
    "refund refunded reversed reversal void voided failed declined cancelled canceled chargeback returned"
)
#: Words of a table of money going back, whose sums measure 34 holds to what they are of.
_BACK = word_set("refunds reversals chargebacks credits")
CENT = 0.005


def _own_whole(table: TableSpec) -> str | None:
    found = [
        c.name
        for c in table.columns
        if c.type == "real" and words(c.name) & WHOLE_WORDS and words(c.name) <= WHOLE_WORDS | _WHOLE_QUALIFIERS
    ]
    return found[0] if len(found) == 1 else None


def _count_kind(name: str) -> frozenset[str] | None:
    """The price words a count column is priced by (None: it counts nothing bought by the unit)."""
    said = words(name)
    if said & _NOT_BOUGHT:
        return None
    if said & _PERSON_COUNTS:
        return _PERSON_PRICES
    return _NIGHT_PRICES if said & _NIGHT_COUNTS else None


def _prices_one(name: str, prices: frozenset[str]) -> bool:
    """Whether a money column ``name`` is the price of one thing ``prices`` names (a fare is a seat's)."""
    said = words(name)
    if said & PART_WORDS:
        return False
    if name == "fare":
        return prices == _PERSON_PRICES
    return bool(said & prices and said & _RATE_WORDS)


def _unit_price(table: TableSpec, prices: frozenset[str]) -> str | None:
    found = [c.name for c in table.columns if c.type == "real" and _prices_one(c.name, prices)]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class Whole:
    """``table``'s whole: its ``total`` column, or ``count`` times ``unit`` (of the row, or of the row
    ``reference`` points to in ``parent``)."""

    table: str
    total: str | None = None
    count: str | None = None
    unit: str | None = None
    reference: str | None = None
    parent: str | None = None


def whole_of(spec: EnvSpec, table: TableSpec) -> Whole | None:
    """How ``table``'s whole is read, or None where it has none."""
    counts = [(c.name, kind) for c in table.columns if c.type == "integer" and (kind := _count_kind(c.name))]
    total = _own_whole(table)
    # a plain fare beside a count of passengers is one seat's price, not the booking's
    if total is not None and not (total == "fare" and len(counts) == 1 and counts[0][1] == _PERSON_PRICES):
        return Whole(table.name, total=total)
    if len(counts) != 1:
        return None
    count, prices = counts[0]
    if (unit := _unit_price(table, prices)) is not None:
        return Whole(table.name, count=count, unit=unit)
    tables = {t.name: t for t in spec.tables}
    priced = [
        (fk.columns[0], fk.table, unit)
        for fk in table.foreign_keys
        if len(fk.columns) == 1 and fk.table in tables and (unit := _unit_price(tables[fk.table], prices))
    ]
    if len(priced) != 1:
        return None
    reference, parent, unit = priced[0]
    return Whole(table.name, count=count, unit=unit, reference=reference, parent=parent)


def _keyed(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], table: str) -> dict[Any, dict[str, Any]]:
    key = next(t.primary_key for t in spec.tables if t.name == table)
    return {r.get(key[0]): r for r in rows.get(table, [])} if len(key) == 1 else {}


def whole_value(whole: Whole, row: Mapping[str, Any], parents: Mapping[Any, Mapping[str, Any]]) -> float | None:
    """``row``'s whole (None where it cannot be read); ``parents`` are the rows of ``whole.parent`` by key."""
    if whole.total is not None:
        return number(row.get(whole.total))
    count = number(row.get(whole.count or ""))
    priced = parents.get(row.get(whole.reference or "")) if whole.parent else row
    unit = number(priced.get(whole.unit or "")) if priced is not None else None
    return None if count is None or unit is None else round(count * unit, 2)


def _parts(spec: EnvSpec, table: TableSpec, whole: Whole) -> list[str]:
    read_by_balances = {b.balance for b in balances(spec) if b.table == table.name}
    return [
        c.name
        for c in table.columns
        if c.type == "real"
        and words(c.name) & PART_WORDS
        and not words(c.name) & _RATE_WORDS
        and c.name not in (whole.total, whole.unit)
        and c.name not in read_by_balances
        and c.ratio is None
    ]


@dataclass(frozen=True)
class Paid:
    """Rows of ``table`` paying ``amount`` toward the row of ``whole.table`` their ``reference`` names."""

    table: str
    amount: str
    reference: str
    whole: Whole


def _undone(table: TableSpec, row: Mapping[str, Any]) -> bool:
    said = set()
    for column in table.columns:
        if column.enum and isinstance(value := row.get(column.name), str):
            said |= words(value.replace(" ", "_").replace("-", "_"))
    return bool(said & UNDONE_WORDS)


def payments(spec: EnvSpec) -> list[Paid]:
    """The money tables whose one sum pays toward a record with a whole."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        sums = sum_columns(table)
        if not money_table(table) or len(sums) != 1 or words(table.name) & (UNDONE_WORDS | _BACK):
            continue
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if len(fk.columns) != 1 or parent is None or money_table(parent):
                continue
            if (whole := whole_of(spec, parent)) is not None:
                out.append(Paid(table.name, sums[0].name, fk.columns[0], whole))
    return out


@dataclass(frozen=True)
class Finding:
    """An amount held to a whole: ``column`` of ``row`` (kind 'part'), or the payments ``paid`` of the
    record ``row`` (kind 'paid'), adding up to ``amount``."""

    kind: str
    table: str
    row: dict[str, Any]
    column: str
    amount: float
    whole: float
    paid: tuple[dict[str, Any], ...] = ()

    @property
    def above(self) -> bool:
        return self.amount > self.whole + CENT


def whole_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[Finding]:
    """Every part and every record's payments held to a whole in ``rows``."""
    for table in spec.tables:
        if (whole := whole_of(spec, table)) is None:
            continue
        parents = _keyed(spec, rows, whole.parent) if whole.parent else {}
        parts = _parts(spec, table, whole)
        for row in rows.get(table.name, []):
            value = whole_value(whole, row, parents)
            for part in parts:
                if value is not None and (amount := number(row.get(part))) is not None:
                    yield Finding("part", table.name, row, part, amount, value)
    tables = {t.name: t for t in spec.tables}
    for paid in payments(spec):
        by_record: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for row in rows.get(paid.table, []):
            if number(row.get(paid.amount)) is not None and not _undone(tables[paid.table], row):
                by_record[row.get(paid.reference)].append(row)
        records = _keyed(spec, rows, paid.whole.table)
        parents = _keyed(spec, rows, paid.whole.parent) if paid.whole.parent else {}
        for key, paying in by_record.items():
            record = records.get(key)
            if record is None or (value := whole_value(paid.whole, record, parents)) is None:
                continue
            amount = round(sum(float(r[paid.amount]) for r in paying), 2)
            yield Finding("paid", paid.table, record, paid.amount, amount, value, tuple(paying))


@dataclass
class WholeCounts:
    """Parts and records' payments held to a whole, and those above it (measure 113)."""

    whole_parts_checked: int = 0
    parts_above_whole: int = 0


def parts_above_whole(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> WholeCounts:
    """Measure 113 over ``rows`` (table -> rows; the seed by default)."""
    out = WholeCounts()
    for finding in whole_findings(spec, spec.seed if rows is None else rows):
        out.whole_parts_checked += 1
        out.parts_above_whole += finding.above
    return out
