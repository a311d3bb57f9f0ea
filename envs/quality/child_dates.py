"""Records dated before the record they belong to existed: a citation paid before it was issued, a
refund before the enrollment, a fine before the loan (measure 32, docs/synthesis.md).

A record's *recorded dates* are its dates named for something that has happened (``paid_on``,
``issued_at``, ``submitted_on``: :func:`.seed_time.names_past_event`), except birth dates and the
dates of what a record *reports on*, which come before it by nature (an expense ``incurred_on``
before the report, an ``incident_date`` before the claim). A record exists from its earliest
recorded date; a child (a row with a foreign key to it) has no recorded date before that. Columns
are picked by their names alone, so the measure runs on any catalog, and the seed generator keeps
it by the same rules (``synthesis.domains.child_dates``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed_time import date_columns, names_past_event
from .text import word_set

#: Words of a date of what a record reports on, which precedes the record itself.
REPORTED = word_set("incurred occurred incident purchase purchased happened birth dob born")


def recorded_dates(table: TableSpec) -> list[str]:
    """The columns of ``table`` that date its own history (see the module docstring)."""
    return [
        c.name
        for c in date_columns(table)
        if names_past_event(c.name) and not set(c.name.lower().split("_")) & REPORTED and c.name != "dob"
    ]


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def first_recorded(row: Mapping[str, Any], columns: list[str]) -> str | None:
    """The day ``row`` was first recorded (its earliest recorded date), if it has one."""
    days = [d for c in columns if (d := _day(row.get(c))) is not None]
    return min(days) if days else None


def parent_links(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[TableSpec, list[str], str, dict[Any, dict[str, Any]], list[str]]]:
    """(child table, its recorded columns, its single-column foreign key, parent rows of ``rows`` by
    key, the parent's recorded columns) for each foreign key between two tables with recorded dates."""
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        mine = recorded_dates(table)
        if not mine:
            continue
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            theirs = recorded_dates(parent) if parent is not None and parent is not table else []
            if len(fk.columns) != 1 or not theirs:
                continue
            by_key = {r.get(fk.references[0]): r for r in rows.get(fk.table, [])}
            yield table, mine, fk.columns[0], by_key, theirs


def early_columns(row: Mapping[str, Any], columns: list[str], since: str) -> list[str]:
    """The recorded columns of ``row`` dated before the day ``since``."""
    return [c for c in columns if (d := _day(row.get(c))) is not None and d < since]


@dataclass
class ChildDateCounts:
    """Child rows whose parent's first record and their own recorded dates are known, and those dated
    before their parent existed."""

    child_rows_checked: int = 0
    children_before_parent: int = 0


def children_before_parent(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> ChildDateCounts:
    """Measure 32 over ``rows`` (table -> rows; the seed by default); a child row counts once."""
    rows = spec.seed if rows is None else rows
    out = ChildDateCounts()
    early: dict[tuple[str, int], bool] = {}
    for table, mine, column, parents, theirs in parent_links(spec, rows):
        for i, row in enumerate(rows.get(table.name, [])):
            parent = parents.get(row.get(column))
            since = first_recorded(parent, theirs) if parent is not None else None
            if since is None or first_recorded(row, mine) is None:
                continue
            key = (table.name, i)
            early[key] = early.get(key, False) or bool(early_columns(row, mine, since))
    out.child_rows_checked, out.children_before_parent = len(early), sum(early.values())
    return out
