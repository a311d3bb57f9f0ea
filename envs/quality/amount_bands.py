"""Amounts out of proportion to the amount they are for: an offer at a third of the home's list price,
earnest money of 0.3 % of the offer (measure 41, docs/synthesis.md).

Columns are picked by their names, types and foreign keys alone, as measure 34's are
(:mod:`.amounts`), so the measure runs on any catalog; the seed generator and the task generator keep
the rules (``synthesis.domains.amounts``):

* **Offers.** A ``real`` column of a child row named for a price proposed (:data:`OFFER_WORDS`:
  ``offer_price``, ``bid``, ``quoted_amount``, ``offered_rate``) is within :data:`OFFER_BAND` of its
  parent's asking price (a ``real`` column named by :data:`ASKING_WORDS`: ``list_price``, ``msrp``,
  ``posted_rate``; a rate is paired with a rate, a price with a price).
* **Deposits.** A ``real`` column named for money put down to secure a purchase (``earnest_money``,
  ``deposit``, ``down_payment``) is, when set above zero, the fraction :data:`DEPOSIT_BANDS` gives its
  kind of the amount it secures: the row's own price (``offer_price``, ``contract_price``), else its
  parent's. A deposit record's ``amount`` (an escrow deposit) is its parent's deposit, to the cent,
  where the parent has one, else such a fraction of the parent's price. Deposits against a rent or an
  hourly rate, and deposits that add up payments (an ``_adds_up`` relation), are not checked.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .relations import SUFFIX
from .text import word_set

#: Words of a price proposed for what the parent record is offered at.
OFFER_WORDS = word_set("offer offered bid quote quoted counter countered agreed negotiated proposed")
#: Words of the price a record is offered at.
ASKING_WORDS = word_set("list listing asking msrp sticker posted appraised market price")
#: An offer's band around the asking price: below it a seller would not answer, above it no buyer bids.
OFFER_BAND = (0.85, 1.10)
#: Each kind of deposit, as a fraction of the purchase it secures: earnest money runs 1-3 % of a home
#: offer (10 % at most), a down payment 3-20 % (40 % at most); a deposit or hold from a few hundred on a
#: car (0.5 %) to half of a made-to-order piece.
DEPOSIT_BANDS = {"earnest": (0.01, 0.10), "down": (0.03, 0.40), "deposit": (0.005, 0.50)}
#: Words a deposit column's name may hold besides its kind.
_DEPOSIT_NAME = word_set("deposit earnest money down payment paid amount security retainer")
#: Words of the price a deposit secures.
_SECURED = word_set("offer offered price total contract purchase sale msrp list asking agreed")
#: Words that make a money column something else than a price: a balance, a limit, a rate per period.
_NOT_PRICE = word_set("balance limit available remaining points due owed monthly weekly daily nightly hourly per fee")


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def _real(table: TableSpec) -> list[str]:
    return [c.name for c in table.columns if c.type == "real"]


def offer_columns(table: TableSpec) -> list[str]:
    return [n for n in _real(table) if _words(n) & OFFER_WORDS and not _words(n) & _NOT_PRICE]


def asking_column(parent: TableSpec, offer: str) -> str | None:
    """The parent's price that ``offer`` is proposed against: a rate for a rate, a price for a price."""
    rate = "rate" in _words(offer)
    for name in _real(parent):
        words = _words(name)
        if words & ASKING_WORDS and not words & (_NOT_PRICE | OFFER_WORDS) and ("rate" in words) == rate:
            return name
    return None


def _summed(spec: EnvSpec, table: TableSpec) -> set[str]:
    """Columns of ``table`` that a relation adds up from other records (payments made so far)."""
    names = {inv.name for inv in spec.invariants if inv.name.endswith(SUFFIX)}
    return {c.name for c in table.columns if f"{table.name}_{c.name}{SUFFIX}" in names}


def deposit_kind(name: str) -> str | None:
    """'earnest', 'down' or 'deposit' for a column named only for money put down, else None."""
    words = _words(name)
    if not words <= _DEPOSIT_NAME:
        return None
    if "earnest" in words:
        return "earnest"
    if {"down", "payment"} <= words:
        return "down"
    return "deposit" if words & {"deposit", "retainer"} else None


def secured_column(table: TableSpec, skip: str = "") -> str | None:
    """The first price of ``table`` a deposit could secure (not a rate, a balance or another deposit)."""
    for name in _real(table):
        words = _words(name)
        if name != skip and words & _SECURED and not words & _NOT_PRICE and deposit_kind(name) is None:
            return name
    return None


@dataclass(frozen=True)
class Pair:
    """``column`` of ``table`` is held to ``band`` times ``base`` of the row itself (``via`` None) or of
    the parent it references through ``via``."""

    table: str
    column: str
    base: str
    via: tuple[str, str, str] | None  # (own column, parent table, parent key)
    band: tuple[float, float]


def amount_pairs(spec: EnvSpec) -> list[Pair]:
    """Every pair of amounts measure 41 checks, offers first, then deposits on a row, then deposit records
    (the order a seed is mended in: a deposit follows the offer it secures)."""
    tables = {t.name: t for t in spec.tables}
    offers: list[Pair] = []
    own: list[Pair] = []
    records: list[Pair] = []
    for table in spec.tables:
        summed = _summed(spec, table)
        parents = [
            (fk.columns[0], parent, fk.references[0])
            for fk in table.foreign_keys
            if len(fk.columns) == 1 and (parent := tables.get(fk.table)) is not None and parent is not table
        ]
        for column in offer_columns(table):
            found = next(((c, p, k, a) for c, p, k in parents if (a := asking_column(p, column))), None)
            if found is not None:
                offers.append(Pair(table.name, column, found[3], (found[0], found[1].name, found[2]), OFFER_BAND))
        for column in _real(table):
            kind = deposit_kind(column)
            if kind is None or column in summed:
                continue
            base = secured_column(table, skip=column)
            if base is not None:
                own.append(Pair(table.name, column, base, None, DEPOSIT_BANDS[kind]))
                continue
            found = next(((c, p, k, a) for c, p, k in parents if (a := secured_column(p))), None)
            if found is not None:
                own.append(Pair(table.name, column, found[3], (found[0], found[1].name, found[2]), DEPOSIT_BANDS[kind]))
        if "amount" in _real(table) and _words(table.name) & {"deposit", "deposits", "earnest", "escrow"}:
            records += _deposit_record(table, parents)
    return offers + own + records


def _deposit_record(table: TableSpec, parents: list[tuple[str, TableSpec, str]]) -> list[Pair]:
    for column, parent, key in parents:
        deposit = next((n for n in _real(parent) if deposit_kind(n)), None)
        if deposit is not None:
            return [Pair(table.name, "amount", deposit, (column, parent.name, key), (1.0, 1.0))]
    for column, parent, key in parents:
        price = secured_column(parent)
        if price is not None:
            return [Pair(table.name, "amount", price, (column, parent.name, key), DEPOSIT_BANDS["deposit"])]
    return []


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def pair_rows(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], pairs: list[Pair] | None = None
) -> Iterator[tuple[Pair, dict[str, Any], float]]:
    """(pair, row, the amount its column is held against) for each of ``pairs`` (all by default) and each
    row with both amounts set, the column's above zero (no deposit taken is no contradiction) and the
    base's too. Rows are read as they are when reached, so a pair sees the amounts an earlier one moved."""
    keyed: dict[tuple[str, str], dict[Any, dict[str, Any]]] = {}
    for pair in amount_pairs(spec) if pairs is None else pairs:
        for row in rows.get(pair.table, []):
            source: Mapping[str, Any] | None = row
            if pair.via is not None:
                own, parent, key = pair.via
                if (parent, key) not in keyed:
                    keyed[parent, key] = {r.get(key): r for r in rows.get(parent, [])}
                source = keyed[parent, key].get(row.get(own))
            value, base = _number(row.get(pair.column)), _number(source.get(pair.base)) if source else None
            if value is not None and base is not None and value > 0 and base > 0:
                yield pair, row, base


def outside(pair: Pair, value: float, base: float) -> bool:
    """Whether ``value`` is outside ``pair``'s band of ``base`` (to the cent)."""
    lo, hi = pair.band
    return value < base * lo - 0.005 or value > base * hi + 0.005


@dataclass
class AmountBandCounts:
    """Rows whose amount is held against the amount it is for, and those out of proportion to it."""

    amount_pairs_checked: int = 0
    amounts_out_of_proportion: int = 0


def amounts_out_of_proportion(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> AmountBandCounts:
    """Measure 41 over ``rows`` (table -> rows; the seed by default): a row counts once per pair."""
    rows = spec.seed if rows is None else rows
    out = AmountBandCounts()
    for pair, row, base in pair_rows(spec, rows):
        out.amount_pairs_checked += 1
        out.amounts_out_of_proportion += outside(pair, float(row[pair.column]), base)
    return out
