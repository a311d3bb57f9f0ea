"""Rows with no record the domain implies they exist under (measure 79, docs/synthesis.md): a meal-kit
box delivered to a subscriber on a plan they hold no subscription to.

Read by foreign keys, status words and column names alone, so the measure runs on any catalog. A table
whose rows are a standing arrangement between two records (a subscription of a subscriber to a plan:
it references both, each a table referencing nothing, its status column names a standing state,
:data:`STANDING`, and it has a start date, :func:`seed_time.opens_period`) implies one for each row of
another table that references the same two and has a date of its own: a box goes out under a subscription of the same
subscriber and plan that had started by the box's date. A row of two records with no arrangement of
theirs, or only one starting after it, is counted. A table referencing one of the two alone, or whose
rows say nothing of a start, is not read: a colleague's broader check (any table sharing a parent
with another) counted 3,750 of 6,554 rows, most of them no part of an arrangement.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .periods import IN_FORCE, RUNNING
from .seed import status_columns
from .seed_time import opens_period

#: States of a standing arrangement in force (a running visit, a checked-in stay, is no arrangement).
STANDING = IN_FORCE - RUNNING


@dataclass(frozen=True)
class Implied:
    """Rows of ``table`` (dated by ``date``) imply a row of ``arrangement`` with the same ``keys``
    whose ``start`` is on or before that date."""

    table: str
    date: str
    arrangement: str
    start: str
    keys: tuple[str, str]


def _pair(table: TableSpec) -> dict[str, str] | None:
    """Parent table -> column, where ``table`` references exactly two others, once each."""
    refs = {fk.table: fk.columns[0] for fk in table.foreign_keys if len(fk.columns) == 1 and fk.table != table.name}
    return refs if len(refs) == 2 and len(table.foreign_keys) == 2 else None


def _dates(table: TableSpec) -> list[str]:
    return [c.name for c in table.columns if c.type in ("date", "datetime")]


def implied_arrangements(spec: EnvSpec) -> list[Implied]:
    """The tables whose rows another table's arrangement implies."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for arrangement in spec.tables:
        pair = _pair(arrangement)
        statuses = status_columns(arrangement)
        in_force = statuses and any(str(v).lower() in STANDING for v in statuses[0].enum or ())
        start = next((d for d in _dates(arrangement) if opens_period(d)), None)
        if pair is None or not in_force or start is None:
            continue
        if any(tables[p].foreign_keys for p in pair if p in tables):
            continue  # an arrangement between two records standing alone (a person and a plan), not a part of one
        for table in spec.tables:
            other = _pair(table) if table is not arrangement else None
            dates = _dates(table)
            if other is None or set(other) != set(pair) or not dates or any(other[p] != pair[p] for p in pair):
                continue
            if status_columns(table) and any(str(v).lower() in STANDING for v in status_columns(table)[0].enum or ()):
                continue  # two arrangements side by side: neither is the other's reason
            a, b = sorted(pair)
            out.append(Implied(table.name, dates[0], arrangement.name, start, (pair[a], pair[b])))
    return out


def implied_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[Implied, bool]]:
    """(rule, no arrangement started by the row's date) for every dated row read."""
    for rule in implied_arrangements(spec):
        starts: dict[tuple[Any, ...], list[str]] = {}
        for row in rows.get(rule.arrangement, []):
            if isinstance(row.get(rule.start), str):
                starts.setdefault(tuple(row.get(k) for k in rule.keys), []).append(row[rule.start][:10])
        for row in rows.get(rule.table, []):
            day = row.get(rule.date)
            if not isinstance(day, str) or any(row.get(k) is None for k in rule.keys):
                continue
            held = starts.get(tuple(row.get(k) for k in rule.keys), [])
            yield rule, not any(s <= day[:10] for s in held)


@dataclass
class ImpliedCounts:
    """Rows an arrangement implies, and those with none of their two records started by their date."""

    implied_rows_checked: int = 0
    rows_without_arrangement: int = 0


def rows_without_arrangement(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> ImpliedCounts:
    """Measure 79 over ``rows`` (table -> rows; the seed by default)."""
    out = ImpliedCounts()
    for _, missing in implied_findings(spec, spec.seed if rows is None else rows):
        out.implied_rows_checked += 1
        out.rows_without_arrangement += missing
    return out
