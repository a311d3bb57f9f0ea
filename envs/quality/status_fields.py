"""Values their record's status or its person's age rules out (measure 68, docs/synthesis.md): a final
grade on a tuition application still submitted for a term not begun, ``grade_verified`` with no grade,
a guardian named on the consent form of a 36-year-old.

Read by column names alone, so the measure runs on any catalog; the seed generator keeps the rules
(``synthesis.domains.status_fields``).

* **A value a status is named for.** A nullable column that is no date (measure 59 reads those) and
  whose name holds the first word of some status values (``final_grade`` and ``grade_verified``) is
  set on the rows in those statuses and on none in a status before them (the status column's values
  in order): a grade is recorded when it is verified, never while the course is only applied for.
* **A guardian of an adult.** A column named for a guardian is empty where the person the row belongs
  to (a table with a birth date, through at most two foreign keys) is 18 or older on the clock.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, TableSpec
from .own_row import status_of
from .seed import status_columns

ADULT_AGE = 18
_BIRTH_WORDS = frozenset({"birth", "dob", "birthdate"})


@dataclass(frozen=True)
class StatusField:
    """``column`` of ``table`` is set in ``named`` statuses and empty in ``earlier`` ones."""

    table: str
    column: str
    named: frozenset[str]
    earlier: frozenset[str]

    def disagrees(self, value: Any, status: str | None) -> bool | None:
        if status in self.named:
            return value is None or value == ""
        if status in self.earlier:
            return value is not None and value != ""
        return None


def status_fields(spec: EnvSpec) -> list[StatusField]:
    """The nullable value columns named for a status."""
    out = []
    for table in spec.tables:
        statuses = status_columns(table)
        values = [v for v in (statuses[0].enum or [])] if statuses else []
        for col in table.columns:
            if not col.nullable or col.type in ("date", "datetime") or (statuses and col.name == statuses[0].name):
                continue
            words = set(col.name.lower().split("_"))
            named = [i for i, v in enumerate(values) if len(first := v.split("_")[0]) >= 4 and first in words]
            if named and len(named) < len(values):
                out.append(
                    StatusField(
                        table.name,
                        col.name,
                        frozenset(values[i] for i in named),
                        frozenset(values[: named[0]]),
                    )
                )
    return out


@dataclass(frozen=True)
class Guardian:
    """``table.column`` names a guardian of the person reached through ``path`` (foreign keys), whose
    birth date is ``birth``."""

    table: str
    column: str
    path: tuple[ForeignKey, ...]
    birth: str


def _birth_column(table: TableSpec) -> str | None:
    found = [c.name for c in table.columns if c.type == "date" and set(c.name.split("_")) & _BIRTH_WORDS]
    return found[0] if len(found) == 1 else None


def guardians(spec: EnvSpec) -> list[Guardian]:
    """The guardian columns whose row leads to one person with a birth date."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        for col in table.columns:
            if col.type != "text" or "guardian" not in col.name.split("_"):
                continue
            found: list[tuple[tuple[ForeignKey, ...], str]] = []
            for first in table.foreign_keys:
                head = tables.get(first.table)
                if head is None:
                    continue
                if birth := _birth_column(head):
                    found.append(((first,), birth))
                    continue
                for second in head.foreign_keys:
                    if (far := tables.get(second.table)) is not None and (birth := _birth_column(far)):
                        found.append(((first, second), birth))
            if len(found) == 1:
                out.append(Guardian(table.name, col.name, found[0][0], found[0][1]))
    return out


def person_of(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], guardian: Guardian, row: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """The person row ``row`` leads to, following the guardian's foreign keys."""
    tables = {t.name: t for t in spec.tables}
    current: Mapping[str, Any] | None = row
    for fk in guardian.path:
        if current is None:
            return None
        key = tables[fk.table].primary_key[0]
        value = current.get(fk.columns[0])
        current = next((r for r in rows.get(fk.table, []) if r.get(key) == value), None)
    return current


def age_on(birth: Any, today: date) -> int | None:
    try:
        born = date.fromisoformat(str(birth)[:10])
    except ValueError:
        return None
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def guardian_of_adult(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], guardian: Guardian, row: Mapping[str, Any]
) -> bool | None:
    """Whether ``row`` names a guardian for an adult; None where its person or birth date is unknown."""
    person = person_of(spec, rows, guardian, row)
    age = age_on(person.get(guardian.birth), spec.clock.date()) if person else None
    if age is None:
        return None
    return age >= ADULT_AGE and row.get(guardian.column) not in (None, "")


@dataclass
class StatusFieldCounts:
    """Values read against their status or their person's age, and those ruled out (measure 68)."""

    status_fields_checked: int = 0
    fields_ruled_out: int = 0


def status_field_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(shape, ruled out) for every value read."""
    tables = {t.name: t for t in spec.tables}
    for field in status_fields(spec):
        for row in rows.get(field.table, []):
            if (against := field.disagrees(row.get(field.column), status_of(row, tables[field.table]))) is not None:
                yield "status", against
    for guardian in guardians(spec):
        for row in rows.get(guardian.table, []):
            if (adult := guardian_of_adult(spec, rows, guardian, row)) is not None:
                yield "guardian", adult


def fields_ruled_out(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> StatusFieldCounts:
    """Measure 68 over ``rows`` (table -> rows; the seed by default)."""
    out = StatusFieldCounts()
    for _, against in status_field_findings(spec, spec.seed if rows is None else rows):
        out.status_fields_checked += 1
        out.fields_ruled_out += against
    return out
