"""One person, or one thing of theirs, under two arrangements of one kind at once (measure 114,
docs/synthesis.md): two active full-coverage service contracts on one oil tank, two live powertrain
warranties on one car, three unemployment claims whose benefit years overlap.

Measure 45 (:mod:`.one_off`) reads what a person holds one of by the table's name (a subscription, a
lease, a membership, a benefit claim); covers escaped it, and so did a claim closed and filed again
inside its own benefit year, since only its live rows were counted. Read by table, column and status
words alone, so the measure runs on any catalog; the seed generator keeps it
(``synthesis.domains.arranged_twice``):

* **One cover of a kind per thing.** A table named for a cover (:data:`COVERS`: a service contract, a
  pet policy, a warranty) that references the user table once holds, per person, per thing of theirs
  it names (a row of a table that references the user table: a tank, a pet, a vehicle) and per kind
  (an enum column named for one, :data:`KIND_WORDS`: the plan, the coverage), at most one row in a
  held status (:data:`.one_off.HELD`) whose term overlaps another's. Without a start and an end
  column two live rows are taken to overlap: both run today. A cover of a thing counted in units
  (a parent with a quantity) may be one per unit, and a table of plans is left out: a patient holds
  a care plan per diagnosis, a customer an installment plan per phone, neither a thing of its own.
* **One benefit year at a time.** A cover or a table measure 45 holds one at a time whose end column
  names a year (``benefit_year_end``) runs a fixed year up to that date; per person and thing, two
  such years may not overlap whatever the rows' statuses, unless one was called off: a claim closed
  inside its benefit year is reopened, not filed again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .live_at_once import end_columns
from .one_off import called_off, held, held_one_at_a_time, quantity_column, singular
from .seed import status_columns
from .seed_time import date_of
from .spec import user_table
from .text import word_set
from .tool_sql import one_reference

#: Last words of a table whose rows cover a person or a thing of theirs for a term.
COVERS = word_set("contract policy coverage warranty")
#: Words of an enum column naming the kind of cover (two covers of different kinds may run together).
KIND_WORDS = word_set("plan kind type coverage tier level program package")
#: Words of a date column that starts a term.
START_WORDS = word_set("start starts begin begins effective from")
#: Length of a term its end column names as a year (``benefit_year_end``).
YEAR = timedelta(days=365)


@dataclass(frozen=True)
class Arrangement:
    """Rows of ``table`` per value of ``key`` (person, things, kinds): one at a time."""

    table: str
    key: tuple[str, ...]
    status: str
    starts: tuple[str, ...]
    ends: tuple[str, ...]
    #: End columns naming a year-long term, read whatever the status.
    years: tuple[str, ...]
    covers: bool


def _last(name: str) -> str:
    return singular(name.lower().split("_")[-1])


def start_columns(table: TableSpec) -> list[str]:
    """Date columns of ``table`` that start its term (``trip_start``, ``effective_date``)."""
    return [
        c.name for c in table.columns if c.type in ("date", "datetime") and START_WORDS & set(c.name.lower().split("_"))
    ]


def arrangements(spec: EnvSpec) -> list[Arrangement]:
    """The tables of ``spec`` measure 114 reads, with the columns that key and date their rows."""
    users = user_table(spec)
    if users is None:
        return []
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        statuses = status_columns(table)
        person = one_reference(table, users)
        covers = _last(table.name) in COVERS
        if not statuses or person is None or not (covers or held_one_at_a_time(table.name)):
            continue
        things = [
            fk.columns[0]
            for fk in table.foreign_keys
            if len(fk.columns) == 1
            and (parent := tables.get(fk.table)) is not None
            and parent.name not in (users, table.name)
            and one_reference(parent, users) is not None
        ]
        if covers and any(quantity_column(tables[fk.table]) for fk in table.foreign_keys if fk.columns[0] in things):
            covers = False
        kinds = [c.name for c in table.columns if c.enum and KIND_WORDS & set(c.name.lower().split("_"))]
        ends = end_columns(table)
        years = tuple(e for e in ends if "year" in e.lower().split("_"))
        if covers or years:
            key = (person, *things, *kinds)
            out.append(
                Arrangement(table.name, key, statuses[0].name, tuple(start_columns(table)), tuple(ends), years, covers)
            )
    return out


def term(rule: Arrangement, row: Mapping[str, Any], years: bool = False) -> tuple[date, date] | None:
    """The row's term (first day, last day): from its start and end columns, or, with ``years``, the
    year up to its year-end column; None when its columns do not say."""
    if years:
        end = next((d for c in rule.years if (d := date_of(row.get(c)))), None)
        return (end - YEAR, end) if end else None
    start = next((d for c in rule.starts if (d := date_of(row.get(c)))), None)
    end = next((d for c in rule.ends if (d := date_of(row.get(c)))), None)
    return (start, end) if start and end else None


def overlap(a: tuple[date, date] | None, b: tuple[date, date] | None) -> bool:
    """Whether two terms share a day; a term not known is taken to share every day."""
    return a is None or b is None or (a[0] <= b[1] and b[0] <= a[1])


def clashes(rule: Arrangement, rows: list[dict[str, Any]], years: bool = False) -> Iterator[dict[str, Any]]:
    """The rows of one key that clash with an earlier one: held at once (covers), or, with ``years``,
    their year-long terms overlapping while neither was called off."""
    kept: list[dict[str, Any]] = []
    for row in rows:
        status = row.get(rule.status)
        if (years and called_off(status)) or (not years and not held(status)):
            continue
        if any(overlap(term(rule, row, years), term(rule, other, years)) for other in kept):
            yield row
        else:
            kept.append(row)


def grouped(rule: Arrangement, rows: Mapping[str, list[dict[str, Any]]]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """Key value -> the rows of ``rule``'s table under it (in seed order)."""
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows.get(rule.table, []):
        if row.get(rule.key[0]) is not None:
            out.setdefault(tuple(row.get(k) for k in rule.key), []).append(row)
    return out


@dataclass
class ArrangedTwiceCounts:
    """People or things under an arrangement of a kind, and those under two at once (measure 114)."""

    arrangement_groups_checked: int = 0
    arranged_twice: int = 0
    term_groups_checked: int = 0
    terms_overlapping: int = 0


def arranged_twice(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> ArrangedTwiceCounts:
    """Measure 114 over ``rows`` (table -> rows; the seed by default)."""
    rows = spec.seed if rows is None else rows
    out = ArrangedTwiceCounts()
    for rule in arrangements(spec):
        for group in grouped(rule, rows).values():
            if rule.covers and any(held(r.get(rule.status)) for r in group):
                out.arrangement_groups_checked += 1
                out.arranged_twice += any(True for _ in clashes(rule, group))
            if rule.years:
                out.term_groups_checked += 1
                out.terms_overlapping += any(True for _ in clashes(rule, group, years=True))
    return out
