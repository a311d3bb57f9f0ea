"""Line amounts against their quantity and unit price (measure 80, docs/synthesis.md): a line of two
shifter cables at 115.46 each priced 127.43, a headset bearing set of 154.86 on a line of 7.36.

Read by column names alone, so the measure runs on any catalog (no tool makes these lines, so measure
66 cannot read them from SQL); the seed generator keeps the rule (``synthesis.domains.priced_lines``).
A table with one whole-number quantity column (``quantity``, ``qty``) and one money column for the line
(``line_price``, ``line_total``, or plain ``amount``, ``price``, ``total``), referencing a row with one
unit price (a column named with ``unit`` and a price word: ``unit_price``, ``unit_cost``): the line is
the quantity times the unit price, give or take a cent.

A bill's amount due against its charges is not read: a bill's charges may be the extras on top of a
plan's fee no row holds (a phone bill's roaming and overage), so a bill above them proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .text import word_set
from .tool_sql import number, one_reference

#: Words of a whole-number column that counts the units on a line.
QUANTITY_WORDS = word_set("quantity qty")
#: Names of a line's own money column, when it holds no ``line`` word.
_LINE_NAMES = word_set("amount price total line_price line_total line_amount extended_price")
#: Words a unit price is named with, beside ``unit``.
_PRICE_WORDS = word_set("price cost fare")
#: Cents a stored amount may be off by rounding.
CENT = 0.011


@dataclass(frozen=True)
class UnitPriced:
    """``table.amount`` is ``table.quantity`` times ``parent.unit_price`` of the row ``reference`` names."""

    table: str
    quantity: str
    amount: str
    reference: str
    parent: str
    unit_price: str


def _money(table: TableSpec) -> list[str]:
    return [c.name for c in table.columns if c.type == "real"]


def unit_priced(spec: EnvSpec) -> list[UnitPriced]:
    """The lines priced by the unit."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        quantities = [c.name for c in table.columns if c.type == "integer" and set(c.name.split("_")) & QUANTITY_WORDS]
        lines = [c for c in _money(table) if c in _LINE_NAMES or "line" in c.split("_")]
        if len(quantities) != 1 or len(lines) != 1:
            continue
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            reference = one_reference(table, fk.table) if parent else None
            if parent is None or reference is None:
                continue
            units = [c for c in _money(parent) if "unit" in (w := c.split("_")) and set(w) & _PRICE_WORDS]
            if len(units) == 1:
                out.append(UnitPriced(table.name, quantities[0], lines[0], reference, parent.name, units[0]))
    return out


def _keyed(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], table: str) -> dict[Any, dict[str, Any]]:
    key = next(t.primary_key[0] for t in spec.tables if t.name == table)
    return {r.get(key): r for r in rows.get(table, [])}


def unit_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[UnitPriced, dict[str, Any], float]]:
    """(rule, line row, its unit price) for every line with a quantity and a unit price."""
    for rule in unit_priced(spec):
        parents = _keyed(spec, rows, rule.parent)
        for row in rows.get(rule.table, []):
            parent = parents.get(row.get(rule.reference))
            quantity, value = number(row.get(rule.quantity)), number(row.get(rule.amount))
            price = number(parent.get(rule.unit_price)) if parent else None
            if quantity is not None and value is not None and price is not None:
                yield rule, row, price


@dataclass
class PricedLineCounts:
    """Lines priced by the unit, and those off their quantity times the unit price (measure 80)."""

    priced_lines_checked: int = 0
    lines_off_their_units: int = 0


def lines_off_their_units(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> PricedLineCounts:
    """Measure 80 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = PricedLineCounts()
    for unit_rule, line, price in unit_findings(spec, rows):
        out.priced_lines_checked += 1
        out.lines_off_their_units += abs(line[unit_rule.amount] - line[unit_rule.quantity] * price) > CENT
    return out
