"""Deadlines set before their record came to be: a citation due before it was issued, a return window
that closed before the purchase, free storage that ended before the parcel arrived (measure 33,
docs/synthesis.md).

A *deadline* is a date to act by (:data:`DEADLINE_WORDS`: ``due_date``, ``return_by``,
``appeal_deadline``, ``free_storage_until``, ``access_expires``); a record *opens* on its dates named
for how it came to be (:data:`OPENING_WORDS`: ``issued_at``, ``purchased_on``, ``arrived_on``,
``loaned_on``, ``enrolled_on``). A deadline falls on or after the record's first opening date (by day).
Paying or returning late is no contradiction: only the opening counts. Columns are picked by their
names alone; the seed generator keeps the rule (``synthesis.domains.deadlines``).

A deadline to answer (:data:`ANSWER_WORDS` with a deadline word: ``respond_by``, ``accept_by``,
``rsvp_by``, ``decision_deadline``) is for something that starts on the row's start date
(:data:`START_WORDS`: ``start_date``, ``begins_on``): it falls on or before that day. An offer that
must be answered by June 3 for a job starting May 12 asks for an answer after the work began.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed_time import date_columns, names_past_event
from .text import word_set

#: Words of a date to act by.
DEADLINE_WORDS = word_set("due deadline by until expires expiry expiration cutoff")
#: Words of a date a record came to be on.
OPENING_WORDS = word_set(
    """issued issue created opened purchased purchase placed ordered loaned enrolled posted acquired arrived
    submitted filed applied registered joined signed requested received"""
)

#: Words of a deadline to answer by: what it decides starts later.
ANSWER_WORDS = word_set("respond response reply answer accept acceptance decide decision rsvp confirm")
#: Words of a date something starts on.
START_WORDS = word_set("start starts starting begin begins commence commences")


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def deadline_columns(table: TableSpec) -> list[str]:
    return [c.name for c in date_columns(table) if _words(c.name) & DEADLINE_WORDS and not names_past_event(c.name)]


def opening_columns(table: TableSpec) -> list[str]:
    return [c.name for c in date_columns(table) if _words(c.name) & OPENING_WORDS and names_past_event(c.name)]


def answer_columns(table: TableSpec) -> list[str]:
    """Deadlines to answer by (``respond_by``)."""
    return [c for c in deadline_columns(table) if _words(c) & ANSWER_WORDS]


def start_columns(table: TableSpec) -> list[str]:
    """Dates the row's matter starts on (``start_date``)."""
    return [c.name for c in date_columns(table) if _words(c.name) & START_WORDS and not names_past_event(c.name)]


def late_answers(row: Mapping[str, Any], answers: list[str], starts: list[str]) -> list[str]:
    """The answer deadlines of ``row`` after its first start date."""
    days = [d for c in starts if (d := _day(row.get(c))) is not None]
    return [c for c in answers if days and (d := _day(row.get(c))) is not None and d > min(days)]


def _day(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and len(value) >= 10 else None


def opened(row: Mapping[str, Any], openings: list[str]) -> str | None:
    """The day ``row`` came to be (its first opening date), if it has one."""
    days = [d for c in openings if (d := _day(row.get(c))) is not None]
    return min(days) if days else None


def early_deadlines(row: Mapping[str, Any], deadlines: list[str], since: str) -> list[str]:
    """The deadlines of ``row`` before the day ``since``."""
    return [c for c in deadlines if (d := _day(row.get(c))) is not None and d < since]


@dataclass
class DeadlineCounts:
    """Rows with a deadline and an opening date, and those whose deadline is before their opening;
    rows with a deadline to answer and a start date, and those whose answer is due after the start."""

    deadline_rows_checked: int = 0
    deadlines_before_record: int = 0
    answer_rows_checked: int = 0
    answers_after_start: int = 0


def deadlines_before_record(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> DeadlineCounts:
    """Measure 33 over ``rows`` (table -> rows; the seed by default); a row counts once."""
    rows = spec.seed if rows is None else rows
    out = DeadlineCounts()
    for table in spec.tables:
        deadlines, openings = deadline_columns(table), opening_columns(table)
        if not deadlines or not openings:
            continue
        for row in rows.get(table.name, []):
            since = opened(row, openings)
            if since is None or all(_day(row.get(c)) is None for c in deadlines):
                continue
            out.deadline_rows_checked += 1
            out.deadlines_before_record += bool(early_deadlines(row, deadlines, since))
    for table in spec.tables:
        answers, starts = answer_columns(table), start_columns(table)
        for row in rows.get(table.name, []) if answers and starts else []:
            if any(_day(row.get(c)) for c in answers) and any(_day(row.get(c)) for c in starts):
                out.answer_rows_checked += 1
                out.answers_after_start += bool(late_answers(row, answers, starts))
    return out
