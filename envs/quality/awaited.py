"""Records still awaited long after their event: a pending benefits election whose effective date
passed three months ago, a stay whose points are pending nine weeks after checkout, a submitted
appeal whose hearing was in January (measure 42, docs/synthesis.md).

Measure 31 (:mod:`.periods`) holds running, in-force and lapsed records to their dates; this holds
those whose status says the event has not happened or is awaited (:data:`AWAITING`: pending,
requested, submitted, scheduled, booked ...). Such a record counts when it has a date of its event
and every such date is more than :data:`MARGIN` before the clock: by then it would have taken place
and moved on. A record's *event dates* are the dates :func:`.seed_time.names_future_event` reads as
something to come (a start, an end, an appointment, a hearing, a release), less deadlines and
windows (``expires_at``, ``respond_by``: a deadline that passed is measure 31's and 33's), less the
dates of what a record reports on (``incident_date``, ``treatment_date``, ``stay_date``: a claim is
filed after its incident and waits for a decision long after it). A recorded end (``ended_on``) is
an event date too. The date a record was submitted or requested on is no event date, so a claim
pending since March is no contradiction. The seed generator keeps the rule
(``synthesis.domains.awaited``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .child_dates import REPORTED
from .periods import WINDOW_WORDS
from .seed import status_columns
from .seed_time import closes_period, names_future_event, names_past_event
from .text import word_set

#: Statuses of a record whose event has not happened or whose outcome is awaited.
AWAITING = word_set(
    """pending requested awaiting submitted scheduled booked confirmed upcoming reserved planned waitlisted
    queued proposed tentative"""
)
#: How long after its event a record may still await its outcome (points post, a decision is sent).
MARGIN = timedelta(days=30)
#: Words of a deadline or of a next event, which are not the event itself.
_DEADLINE = word_set("due by until deadline expires expiry expiration renews renewal next valid")
#: Words of what a record reports on (beside measure 32's): a treatment, a stay, a week worked.
_REPORTED_ON = REPORTED | word_set("treatment activity receipt stay service travel trip loss damage accident week")


def awaiting(value: Any) -> bool:
    """Whether a status value says its record's event is still awaited. A status of something else
    awaited on a record under way (``pending_transfer`` of a running share) says nothing of its dates."""
    if not isinstance(value, str):
        return False
    word = value.strip().lower().replace(" ", "_").replace("-", "_")
    return word in AWAITING or word.endswith("_scheduled")


def event_dates(table: TableSpec) -> list[str]:
    """The date columns of ``table`` that say when its event takes place (see the module docstring)."""
    out = []
    for column in table.columns:
        if column.type not in ("date", "datetime"):
            continue
        words = set(column.name.lower().split("_"))
        if words & (_DEADLINE | WINDOW_WORDS | _REPORTED_ON):
            continue
        stamped_end = names_past_event(column.name) and closes_period(column.name)
        if stamped_end or (names_future_event(column.name) and not names_past_event(column.name)):
            out.append(column.name)
    return out


def long_past(row: Mapping[str, Any], columns: list[str], clock: datetime) -> bool:
    """Whether ``row`` has an event date and every one is more than :data:`MARGIN` before ``clock``."""
    values = [v[:10] for c in columns if isinstance(v := row.get(c), str) and len(v) >= 10]
    return bool(values) and max(values) < (clock - MARGIN).strftime("%Y-%m-%d")


@dataclass
class AwaitedCounts:
    """Awaited records with a date of their event, and those whose every such date is long past."""

    awaited_rows_checked: int = 0
    awaited_long_past: int = 0


def awaited_long_past(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> AwaitedCounts:
    """Measure 42 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    rows = spec.seed if rows is None else rows
    out = AwaitedCounts()
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        columns = event_dates(table) if statuses else []
        if not columns:
            continue
        for row in rows.get(table.name, []):
            if not any(awaiting(row.get(s)) for s in statuses):
                continue
            if not any(isinstance(row.get(c), str) for c in columns):
                continue
            out.awaited_rows_checked += 1
            out.awaited_long_past += long_past(row, columns, spec.clock)
    return out
