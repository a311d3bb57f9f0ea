"""Quality measures of the seed rows: references that disagree, and statuses that contradict dates.

Both need no metadata beyond the spec: the first reads foreign keys, the second classifies status
values and date columns by their words. Rules and their calibration: docs/synthesis.md
("Quality report").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..formats.spec import ColumnSpec, EnvSpec, ForeignKey, TableSpec
from .spec import State
from .text import word_set


@dataclass(frozen=True)
class Triangle:
    """Table ``table`` references ``a`` through ``direct`` and ``b`` through ``via``; ``b`` references
    ``a`` through ``b_to_a``. Each row's ``direct`` value must equal its ``via`` row's ``b_to_a`` value."""

    table: str
    direct: ForeignKey
    via: ForeignKey
    b_to_a: ForeignKey


def _updated_columns(spec: EnvSpec, table: str) -> set[str]:
    """Columns of ``table`` that some write tool's UPDATE sets."""
    out: set[str] = set()
    pattern = re.compile(rf"\bUPDATE\s+{table}\b\s+SET\b(.*?)(?:\bWHERE\b|$)", re.IGNORECASE | re.DOTALL)
    for tool in spec.tools:
        for step in tool.steps:
            if step.kind == "exec":
                for m in pattern.finditer(step.sql):
                    out |= set(re.findall(r"(\w+)\s*=(?!=)", m.group(1)))
    return out


def coherence_triangles(spec: EnvSpec) -> list[Triangle]:
    """Every pair of references that should agree. Only unambiguous triangles: the row has exactly
    one reference to ``a``, ``b`` has exactly one, and both name the same columns of ``a``. And
    ``b``'s reference to ``a`` must be a fixed fact of ``b``: its first reference (its owner side),
    or, unless ``b`` is the row's own table, one that no write tool updates. A reference that can
    change (an order's payment method) or a self-reference's other attributes (the slot of the
    appointment this one replaced) may legitimately differ."""
    tables = {t.name: t for t in spec.tables}
    updated = {t.name: _updated_columns(spec, t.name) for t in spec.tables}
    out = []
    for table in spec.tables:
        for direct in table.foreign_keys:
            if sum(fk.table == direct.table for fk in table.foreign_keys) != 1:
                continue
            for via in table.foreign_keys:
                b = tables[via.table]
                b_to_a = [fk for fk in b.foreign_keys if fk.table == direct.table]
                if via.table == direct.table or len(b_to_a) != 1 or b_to_a[0].references != direct.references:
                    continue
                fixed = b.foreign_keys[0] is b_to_a[0] or (
                    b.name != table.name and not set(b_to_a[0].columns) & updated[b.name]
                )
                if fixed:
                    out.append(Triangle(table.name, direct, via, b_to_a[0]))
    return out


def coherence_violations(spec: EnvSpec, state: State) -> tuple[int, int]:
    """(rows checked, rows violating at least one triangle) in ``state``."""
    checked: set[tuple[str, int]] = set()
    violating: set[tuple[str, int]] = set()
    for tri in coherence_triangles(spec):
        for row in state.rows.get(tri.table, []):
            own = tuple(row.get(c) for c in tri.direct.columns)
            parent = state.parent(tri.via, row)
            if None in own or parent is None:
                continue
            theirs = tuple(parent.get(c) for c in tri.b_to_a.columns)
            if None in theirs:
                continue
            checked.add((tri.table, id(row)))
            if own != theirs:
                violating.add((tri.table, id(row)))
    return len(checked), len(violating)


# -- status / date contradictions -------------------------------------------------------------------

#: Status values saying the event has happened: its day must not be after the clock's day.
AFTER_EVENT = word_set(
    """completed done delivered flown returned closed attended fulfilled picked_up collected resolved expired
    no_show finished checked_out departed arrived installed served used redeemed travelled traveled boarded
    performed vaccinated aired missed failed_to_appear worked seated taken watched redelivered passed failed
    scored resulted matured ended checked_in"""
)
#: Status values saying the event is still ahead: its day must not be before the clock's day.
BEFORE_EVENT = word_set("scheduled booked confirmed upcoming reserved planned ticketed")
# Words of a date column's name that mark it as *not* the event: a record-keeping date (created,
# requested, paid ...), a birth date, or a deadline / end of a period (expires, due, until ...).
_NOT_EVENT = word_set(
    """created birth dob opened issued issue updated modified requested submitted applied filed reported
    placed ordered purchased purchase paid posted charged recorded refunded cancelled canceled enrolled
    uploaded notified offered listed licensed acquired adopted registered deposited loaned topped received
    signed joined expires expiry expiration expire valid until deadline due renews renewal next by through
    end ends ended ending closes closed cutoff hold free available effective warranty guarantee access
    period week maturity promised estimated expected desired last"""
)
# Words that name the event itself: a start, a departure, an appointment ...
_EVENT = word_set(
    """start starts started departs departure depart scheduled appointment event slot show showing session
    sitting lesson visit performance arrival pickup delivery install test audit survey inspection drive
    hearing air stay move service treatment report rental entry release send contribution"""
)


def _words(name: str) -> list[str]:
    return name.split("_")


def _is_event_name(name: str) -> bool:
    words = _words(name)
    return ("check_in" in name or any(w in _EVENT for w in words)) and not any(w in _NOT_EVENT for w in words)


def _is_plain_date_name(name: str) -> bool:
    return not any(w in _NOT_EVENT for w in _words(name))


def _dates(table: TableSpec) -> list[ColumnSpec]:
    return [c for c in table.columns if c.type in ("date", "datetime")]


def event_column(spec: EnvSpec, table: TableSpec) -> tuple[ForeignKey | None, ColumnSpec] | None:
    """Where a row's event date is: the first own date column named as an event; else the first own
    date column with no non-event word; else the first event-named date column of a table one
    foreign key away (foreign-key order). None: the table has no event date."""
    own = _dates(table)
    for test in (_is_event_name, _is_plain_date_name):
        for col in own:
            if test(col.name):
                return None, col
    tables = {t.name: t for t in spec.tables}
    for fk in table.foreign_keys:
        if len(fk.columns) == 1:
            for col in _dates(tables[fk.table]):
                if _is_event_name(col.name):
                    return fk, col
    return None


def status_columns(table: TableSpec) -> list[ColumnSpec]:
    """Lifecycle status columns: text columns named ``status`` or ``*_status``."""
    return [c for c in table.columns if c.type == "text" and (c.name == "status" or c.name.endswith("_status"))]


#: Direction words naming opposite events: a move-out scheduled says nothing of the move-in's day.
_OPPOSITE = {"in": "out", "out": "in"}


def status_phase(value: object, column: str | None = None) -> str | None:
    """'after' / 'before' the event, or None for a status that says nothing about its date (nor about
    ``column``'s, where the status names the opposite event: `move_out_scheduled` of `move_in_date`)."""
    if not isinstance(value, str):
        return None
    word = re.sub(r"[\s\-]+", "_", value.strip().lower())
    if column is not None and {_OPPOSITE.get(w) for w in word.split("_")} & set(_words(column)):
        return None
    if word in AFTER_EVENT:
        return "after"
    if word in BEFORE_EVENT or word.endswith("_scheduled"):
        return "before"
    return None


@dataclass
class StatusDateCounts:
    """Rows whose status is classified and whose event date is known, and the contradictions."""

    after_checked: int = 0
    after_in_future: int = 0
    before_checked: int = 0
    before_in_past: int = 0


def status_date_contradictions(spec: EnvSpec, state: State, clock: datetime) -> StatusDateCounts:
    """Rows whose status contradicts their event date against ``clock``, compared by day: an
    after-event status needs its event on or before the clock's day, a before-event status on or
    after it. An event on the clock's day is never a contradiction: a date column has no time, and
    a status is often updated a little after the event (a booked visit that began an hour ago)."""
    today = clock.strftime("%Y-%m-%d")
    out = StatusDateCounts()
    for table in spec.tables:
        statuses = status_columns(table)
        where = event_column(spec, table) if statuses else None
        if where is None:
            continue
        via, col = where
        for row in state.rows.get(table.name, []):
            phases = {status_phase(row.get(s.name), col.name) for s in statuses} - {None}
            if len(phases) != 1:
                continue  # no lifecycle word, or two status columns that disagree on the phase
            source = row if via is None else state.parent(via, row)
            value = None if source is None else source.get(col.name)
            if not isinstance(value, str):
                continue
            day = value[:10]
            if phases == {"after"}:
                out.after_checked += 1
                out.after_in_future += day > today
            else:
                out.before_checked += 1
                out.before_in_past += day < today
    return out
