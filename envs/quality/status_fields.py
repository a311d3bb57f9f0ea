"""Values their record's status or its person's age rules out (measure 68, docs/synthesis.md): a final
grade on a tuition application still submitted for a term not begun, ``grade_verified`` with no grade,
a guardian named on the consent form of a 36-year-old.

Read by column names alone, so the measure runs on any catalog; the seed generator keeps the rules
(``synthesis.domains.status_fields``).

* **A value a status is named for.** A nullable column that is no date (measure 59 reads those) and
  whose name holds the first word of some status values (``final_grade`` and ``grade_verified``) is
  set on the rows in those statuses and on none in a status before them (the status column's values
  in order): a grade is recorded when it is verified, never while the course is only applied for. A
  status an event leaves (measure 7's words: ``scored``) also names a column by its noun
  (``total_score``); and a status listed after it that says the event never came (a no-show), or
  that the tools reach only from statuses before it (a registration cancelled while registered),
  rules the value out too: no score on a sitting missed or never sat.
* **A guardian of an adult.** A column named for a guardian is empty where the person the row belongs
  to (a table with a birth date, through at most two foreign keys) is 18 or older on the clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, TableSpec
from .own_row import status_of
from .seed import status_columns, status_phase

ADULT_AGE = 18
#: Statuses saying the event a row waited for never came.
NEVER_CAME = frozenset({"no_show", "noshow", "missed", "failed_to_appear", "did_not_attend"})
_SETS = re.compile(r"""^UPDATE "?(\w+)"? SET "?status"? = '(\w+)' WHERE""")
_FROM = re.compile(r"^SELECT :rec\.status IN \(([^)]*)\)$")
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


def _stems(value: str) -> set[str]:
    """The words a status's first word is said by in a column's name: ``scored`` by ``score``,
    ``refunded`` by ``refund``, ``verified`` by ``verify``.

    >>> sorted(_stems("scored")), sorted(_stems("grade_verified"))
    (['scor', 'score', 'scored'], ['grade'])
    """
    first = value.split("_")[0]
    out = {first}
    if first.endswith("ied"):
        out.add(first[:-3] + "y")
    elif first.endswith("ed"):
        out |= {first[:-1], first[:-2]}
    return {w for w in out if len(w) >= 4}


def moved_from(spec: EnvSpec, table: TableSpec) -> dict[str, set[str]]:
    """Status -> the statuses the tools move a row of ``table`` to it from (cancelling a registration
    only while it is registered; ``*``: from any)."""
    out: dict[str, set[str]] = {}
    for tool in spec.tools:
        sets, froms = set(), set()
        for step in tool.steps:
            if step.kind == "exec" and (m := _SETS.match(step.sql or "")) and m[1] == table.name:
                sets.add(m[2])
            elif step.kind == "require" and (m := _FROM.match(step.sql or "")):
                froms.update(re.findall(r"'(\w+)'", m[1]))
        for status in sets:
            out.setdefault(status, set()).update(froms or {"*"})
    return out


def status_fields(spec: EnvSpec) -> list[StatusField]:
    """The nullable value columns named for a status; empty in the statuses before it and in those
    saying its event never came: a no-show's, or one the tools reach only from statuses before it (a
    registration cancelled while still only registered has no score)."""
    out = []
    for table in spec.tables:
        statuses = status_columns(table)
        values = [v for v in (statuses[0].enum or [])] if statuses else []
        moved = moved_from(spec, table)
        for col in table.columns:
            if not col.nullable or col.type in ("date", "datetime") or (statuses and col.name == statuses[0].name):
                continue
            words = set(col.name.lower().split("_"))
            # a status's first word as it stands, or said as a noun where the status is an event's result
            named = [
                i
                for i, v in enumerate(values)
                if (len(v.split("_")[0]) >= 4 and v.split("_")[0] in words)
                or (status_phase(v) == "after" and _stems(v) & words)
            ]
            if named and len(named) < len(values):
                reached = {values[i] for i in named}
                earlier = before_reached(values, reached, moved)
                out.append(StatusField(table.name, col.name, frozenset(reached), earlier))
    return out


def before_reached(values: list[str], reached: set[str], moved: dict[str, set[str]]) -> frozenset[str]:
    """The statuses of ``values`` (in order) a row in ``reached`` has not been through: those listed
    before the first of them, and those after that say the event never came (a no-show) or that the
    tools reach only from those before (cancelling needs the registration still registered)."""
    first = min(values.index(v) for v in reached)
    earlier = set(values[:first])
    for v in values[first + 1 :]:
        if v not in reached and (v in NEVER_CAME or (moved.get(v) and moved[v] <= earlier)):
            earlier.add(v)
    return frozenset(earlier)


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
