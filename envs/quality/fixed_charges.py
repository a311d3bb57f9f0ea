"""Charges of a kind a tool posts at a fixed amount, at another amount in the seed (measure 62,
docs/synthesis.md): a missed-visit rent credit of 48.56 where reporting a missed visit credits 25.00,
a late-cancellation fee of 34.93 where a late cancellation charges 50.00.

Read from the tools' SQL alone: an INSERT that sets a kind column (its name's last word type, kind or
reason) to a literal and a number column to a literal other than 0 fixes that amount for rows of that
kind (for every row of a table no INSERT sets a kind of, where no UPDATE moves the amount: a
confirmation deposit of 300.00), unless another INSERT posts the same kind at another amount or from a
value (a deposit refunded at what was paid). The seed generator keeps it (``synthesis.domains.visit_charges``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .own_row import INSERT, top_level_items
from .text import word_set
from .tool_sql import all_updates

_KIND_WORDS = word_set("type kind reason")
_LITERAL = re.compile(r"^'(\w+)'$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


def fixed_amounts(spec: EnvSpec) -> dict[tuple[str, str, str], dict[str, float]]:
    """(table, kind column, kind) -> {amount column: the amount every tool posting that kind sets}; the
    kind column and kind are empty for a table whose INSERTs set no kind."""
    types = {(t.name, c.name): c.type for t in spec.tables for c in t.columns}
    seen: dict[tuple[str, str, str], list[dict[str, float | None]]] = {}
    for tool in spec.tools:
        for step in tool.steps:
            for m in INSERT.finditer(step.sql or ""):
                table = m[1]
                pairs = [
                    (c.strip().strip('"'), v.strip())
                    for c, v in zip(m[2].split(","), top_level_items(m[3]), strict=False)
                ]
                amounts = {
                    c: float(v) if _NUMBER.match(v) else None for c, v in pairs if types.get((table, c)) == "real"
                }
                kinds = [(c, v) for c, v in pairs if c.lower().split("_")[-1] in _KIND_WORDS]
                for column, value in kinds:
                    if lit := _LITERAL.match(value):
                        seen.setdefault((table, column, lit[1]), []).append(amounts)
                if not kinds:  # a table of one kind of row: a confirmation deposit
                    seen.setdefault((table, "", ""), []).append(amounts)
    out: dict[tuple[str, str, str], dict[str, float]] = {}
    moved = set(all_updates(spec))
    for key, posts in seen.items():
        fixed = {}
        for column in posts[0]:
            if not key[1] and (key[0], column) in moved:
                continue  # a record's own price, set from its item or moved later, is no posted charge
            values = {p.get(column) for p in posts}
            if len(values) == 1 and (amount := next(iter(values))) is not None and amount != 0:
                fixed[column] = amount
        if fixed:
            out[key] = fixed
    return out


def fixed_findings(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[dict[str, Any], str, float, bool]]:
    """(row, amount column, the fixed amount, whether the row holds it) for every row of a fixed kind."""
    for (table, kind, value), amounts in fixed_amounts(spec).items():
        for row in rows.get(table, []):
            if not kind or row.get(kind) == value:
                for column, amount in amounts.items():
                    if isinstance(held := row.get(column), int | float):
                        yield row, column, amount, abs(held - amount) <= 0.005


@dataclass
class FixedChargeCounts:
    """Rows of a kind a tool posts at a fixed amount, and those at another amount."""

    fixed_charges_checked: int = 0
    charges_off_fixed_amount: int = 0


def charges_off_fixed_amount(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None
) -> FixedChargeCounts:
    """Measure 62 over ``rows`` (table -> rows; the seed by default)."""
    out = FixedChargeCounts()
    for _, _, _, holds in fixed_findings(spec, spec.seed if rows is None else rows):
        out.fixed_charges_checked += 1
        out.charges_off_fixed_amount += not holds
    return out
