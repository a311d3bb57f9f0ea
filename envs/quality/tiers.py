"""Prices against the tiers they are for (measure 75, docs/synthesis.md): an extra-large safe deposit box
cheaper than a small one, a premium plan billed below the basic one, express shipping under economy.

Read by column names and values alone, so the measure runs on any catalog; the seed generator keeps the
rule (``synthesis.domains.tiers``). A text column with a list of values, each of which names a rung of
one ladder (:func:`rank`: envelope < small < medium < large < extra large; basic < standard < plus <
premium < ultimate; economy < premium economy < business < first; routine < expedited < express; a
studio < one bed < two beds; 5x5 < 5x10 < 10x10 by area), orders the row's prices (:func:`price_columns`:
a price, fee, rate, cost, fare, charge, premium or rent, not what was paid, owed or left). Within a
group of rows (those of one parent where the table references one, else the whole table), a row counts
when a row of a lower rung costs more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .spec import user_table
from .text import word_set
from .tool_sql import updated_columns

#: Rungs by the phrase that names them; a longer phrase is read before the words in it.
RUNGS: dict[str, float] = {
    "envelope": 0,
    "extra_small": 1,
    "xs": 1,
    "small": 2,
    "medium": 3,
    "large": 4,
    "extra_large": 5,
    "xl": 5,
    "xxl": 6,
    "oversized": 6,
    "basic": 1,
    "classic": 1,
    "economy": 1,
    "routine": 1,
    "standard": 2,
    "premium_economy": 2.5,
    "plus": 3,
    "deluxe": 3,
    "expedited": 3,
    "express": 4,
    "premium": 4,
    "premier": 4,
    "business": 4.5,
    "ultimate": 5,
    "first": 6,
    "studio": 0,
}
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_AREA = re.compile(r"^(\d+)x(\d+)$")
#: Words of a money column that prices the row.
_PRICE = word_set("price fee rate cost fare charge premium rent")
#: Words of a money column that is no price: what was paid, what is owed or left, a limit.
_NOT_PRICE = word_set("paid balance due remaining budget limit spend coverage deductible refund credit")


def rank(value: Any) -> float | None:
    """The rung ``value`` names, or None."""
    if not isinstance(value, str):
        return None
    word = value.strip().lower().replace(" ", "_").replace("-", "_")
    if m := _AREA.match(word):
        return float(int(m[1]) * int(m[2]))
    words = word.split("_")
    if words[-1] in ("bed", "beds", "bedroom", "bedrooms") and len(words) == 2 and words[0] in _COUNTS:
        return float(_COUNTS[words[0]])
    for size in (2, 1):
        for i in range(len(words) - size + 1):
            if (phrase := "_".join(words[i : i + size])) in RUNGS:
                return RUNGS[phrase]
    return None


def tier_column(table: TableSpec) -> str | None:
    """The text column of ``table`` whose listed values all name rungs of a ladder (two or more)."""
    for c in table.columns:
        if c.type != "text" or c.name == "status" or c.name.endswith("_status") or not c.enum:
            continue
        ranks = [rank(v) for v in c.enum]
        if all(r is not None for r in ranks) and len(set(ranks)) >= 2:
            return c.name
    return None


def price_columns(table: TableSpec) -> list[str]:
    """The money columns of ``table`` that price its row."""
    out = []
    for c in table.columns:
        words = set(c.name.lower().split("_"))
        if c.type == "real" and words & _PRICE and not words & _NOT_PRICE:
            out.append(c.name)
    return out


@dataclass(frozen=True)
class Tiers:
    """``price`` of ``table`` rises with the rung of ``tier`` among the rows of one ``group``."""

    table: str
    tier: str
    price: str
    group: str | None


def tiers(spec: EnvSpec) -> list[Tiers]:
    """Every (tier column, price column) pair of ``spec``'s tables."""
    out = []
    people = user_table(spec)
    moves = _updates(spec)
    for table in spec.tables:
        tier = tier_column(table)
        parent = table.foreign_keys[0] if len(table.foreign_keys) == 1 else None
        group = parent.columns[0] if tier and parent and parent.table != people else None
        moved = [columns for t, columns in moves if t == table.name and tier in columns]
        prices = [p for p in price_columns(table) if all(p in columns for columns in moved)]
        out += [Tiers(table.name, tier, p, group) for p in prices] if tier else []
    return out


def _updates(spec: EnvSpec) -> list[tuple[str, frozenset[str]]]:
    """(table, the columns it sets) of every UPDATE step of ``spec``'s tools."""
    out = []
    for tool in spec.tools:
        for step in tool.steps:
            updated: dict[str, set[str]] = {}
            for table, column in updated_columns(step.sql or ""):
                updated.setdefault(table, set()).add(column)
            out += [(table, frozenset(columns)) for table, columns in updated.items()]
    return out


def _price(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def groups(tiers_of: Tiers, rows: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    """The rows of each group that have a rung and a price."""
    out: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        if rank(row.get(tiers_of.tier)) is not None and _price(row.get(tiers_of.price)) is not None:
            out.setdefault(row.get(tiers_of.group) if tiers_of.group else None, []).append(row)
    return out


def undercut(tiers_of: Tiers, group: list[dict[str, Any]]) -> list[bool]:
    """For each row of ``group``, whether a row of a lower rung costs more (by more than a cent)."""
    out = []
    for row in group:
        r, p = rank(row[tiers_of.tier]), _price(row[tiers_of.price])
        assert r is not None and p is not None  # groups() kept only such rows
        out.append(any(rank(o[tiers_of.tier]) < r and _price(o[tiers_of.price]) > p + 0.01 for o in group))  # type: ignore[operator]
    return out


@dataclass
class TierCounts:
    """Priced rows of a ladder, and those a lower rung costs more than."""

    tier_rows_checked: int = 0
    tier_prices_inverted: int = 0


def tier_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(table, off) for every row read."""
    for tiers_of in tiers(spec):
        for group in groups(tiers_of, rows.get(tiers_of.table, [])).values():
            for off in undercut(tiers_of, group):
                yield tiers_of.table, off


def tier_prices_inverted(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> TierCounts:
    """Measure 75 over ``rows`` (table -> rows; the seed by default)."""
    out = TierCounts()
    for _, off in tier_findings(spec, spec.seed if rows is None else rows):
        out.tier_rows_checked += 1
        out.tier_prices_inverted += off
    return out
