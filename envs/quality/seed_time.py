"""Seed time: date pairs on one record that run backwards, and timestamps on the wrong side of the clock.

Both measures read only a spec and its rows. Which columns they look at is decided by the columns'
names and types alone (the vocabularies below), so they run on any catalog — hand-written, imported
or synthesized — and the seed generator keeps its rows coherent by the same rules. Definitions and
calibration: docs/synthesis.md ("Quality report").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from itertools import pairwise
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .seed import status_columns, status_phase
from .text import word_set

# -- what a date column's name says ------------------------------------------------------------------

#: Words of a column that opens a period on its record: a start, a departure, a validity's issue.
START_WORDS = word_set(
    "start starts started begin begins began begun from effective issue issued departure departs depart pickup entry"
)
#: Words of a column that closes it: an end, a return, an arrival, an expiry, the pay day of a pay period.
END_WORDS = word_set(
    """end ends ended ending until through expires expiry expiration exit arrival arrives dropoff return checkout
    pay payday"""
)
#: Two-word openings and closings (``check_in_date``, ``move_out_date``).
START_PHRASES = (("check", "in"), ("move", "in"), ("pick", "up"))
END_PHRASES = (("check", "out"), ("move", "out"), ("drop", "off"))

#: Past participles of things that have happened by the time a record carries their date: a column
#: named ``<participle>_on`` / ``<participle>_at`` (or the participle alone, with an optional
#: particle: ``topped_up_on``) records an event, so its value is not after the clock. Verbs of
#: planning (scheduled, reserved, requested_for, expected, promised ...) are left out: their dates
#: are the planned ones.
PAST_PARTICIPLES = word_set(
    """acquired activated adopted administered applied approved arrived billed cancelled canceled charged
    checked claimed closed collected completed created credited declined delivered denied deposited
    dispatched ended enrolled executed filed fulfilled incurred installed invoiced issued joined licensed listed
    loaned logged modified notified offered opened ordered paid picked placed posted purchased received
    recorded redeemed refunded registered rejected renewed reported requested resolved returned revoked
    served settled shipped signed sold started submitted terminated topped transferred updated uploaded
    verified visited voided waived withdrawn"""
)
_PARTICLES = word_set("up in out off back")
_SUFFIXES = word_set("on at")
#: Nouns of acts recorded once they happened: ``issue_date``, ``purchase_date``, ``incident_date``.
PAST_NOUNS = word_set("birth issue purchase receipt incident")
#: Words of a column whose date says when something is to come: the event itself (measure 7's event
#: words), a deadline, or either end of a period.
FUTURE_WORDS = word_set(
    """start starts departs departure depart scheduled appointment event slot show showing session sitting
    lesson visit performance arrival pickup delivery install test audit survey inspection drive hearing air
    stay move service treatment report rental entry release send contribution due by until deadline
    expires expiry expiration end ends through exit dropoff return checkout renews renewal next"""
)


def _words(name: str) -> list[str]:
    return name.lower().split("_")


def _has_phrase(words: list[str], phrases: Iterable[tuple[str, str]]) -> bool:
    adjacent = set(pairwise(words))
    return any(p in adjacent for p in phrases)


def names_past_event(name: str) -> bool:
    """Whether the column records something that has happened: a name that ends in a past participle
    of :data:`PAST_PARTICIPLES`, then an optional particle and ``on`` / ``at`` (``paid_on``,
    ``topped_up_on``, ``created_at``); ``<noun>_date`` for a noun of :data:`PAST_NOUNS`
    (``issue_date``); or a birth date (``date_of_birth``, ``dob``, ``born_on``)."""
    words = _words(name)
    if {"birth", "dob", "born"} & set(words) or (len(words) == 2 and words[1] == "date" and words[0] in PAST_NOUNS):
        return True
    if words and words[-1] in _SUFFIXES:
        words = words[:-1]
    if len(words) > 1 and words[-1] in _PARTICLES:
        words = words[:-1]
    return bool(words) and words[-1] in PAST_PARTICIPLES


def _starts(words: list[str]) -> bool:
    return bool(set(words) & START_WORDS) or _has_phrase(words, START_PHRASES)


def _ends(words: list[str]) -> bool:
    return bool(set(words) & END_WORDS) or _has_phrase(words, END_PHRASES)


def opens_period(name: str) -> bool:
    """A start-like column (:data:`START_WORDS`, :data:`START_PHRASES`), unless it also reads as an end."""
    words = _words(name)
    return _starts(words) and not _ends(words)


def closes_period(name: str) -> bool:
    """An end-like column (:data:`END_WORDS`, :data:`END_PHRASES`), unless it also reads as a start."""
    words = _words(name)
    return _ends(words) and not _starts(words)


def names_future_event(name: str) -> bool:
    """A date that says when something is to come (:data:`FUTURE_WORDS`, a start or an end of a
    period), unless it records a past event."""
    words = _words(name)
    if names_past_event(name):
        return False
    return bool(set(words) & FUTURE_WORDS) or _starts(words) or _ends(words)


def date_columns(table: TableSpec) -> list[ColumnSpec]:
    return [c for c in table.columns if c.type in ("date", "datetime")]


def date_pairs(columns: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every (start-like, end-like) pair among the ``date`` / ``datetime`` ones of ``columns``
    ((name, type) of one record's columns): each start precedes each end."""
    named = [n for n, kind in columns if kind in ("date", "datetime")]
    starts = [n for n in named if opens_period(n)]
    ends = [n for n in named if closes_period(n)]
    return [(s, e) for s in starts for e in ends if s != e]


def coming_dates(columns: Iterable[tuple[str, str]]) -> list[str]:
    """The dates of a record (``columns``: (name, type)) that must not be in the past while its
    status says its event is to come: those :func:`names_future_event` accepts, except the start of
    a period whose end is on the record too (a move-out may be scheduled after the move-in; the end
    says the period is still running)."""
    named = [(n, kind) for n, kind in columns if kind in ("date", "datetime")]
    starts = {s for s, _ in date_pairs(named)}
    return [n for n, _ in named if names_future_event(n) and n not in starts]


# -- comparing values --------------------------------------------------------------------------------


def _text(value: Any) -> str | None:
    """A date or datetime value as comparable text (``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM:SS``)."""
    return value.replace("T", " ") if isinstance(value, str) and len(value) >= 10 else None


def date_of(value: Any) -> date | None:
    """The day a date or datetime value falls on, or None where the value is empty or not one."""
    try:
        return date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def before(a: str, b: str) -> bool:
    """``a`` is earlier than ``b``; by day when either is a plain date (a date has no time)."""
    if len(a) == 10 or len(b) == 10:
        return a[:10] < b[:10]
    return a < b


# -- the measures -----------------------------------------------------------------------------------


@dataclass
class SeedTimeCounts:
    """Pairs and timestamps examined, and those that break the rules."""

    date_pairs_checked: int = 0
    inverted_date_pairs: int = 0
    past_events_checked: int = 0
    past_events_after_clock: int = 0
    future_events_checked: int = 0
    future_events_before_clock: int = 0

    @property
    def clock_timestamps_checked(self) -> int:
        return self.past_events_checked + self.future_events_checked

    @property
    def clock_violations(self) -> int:
        return self.past_events_after_clock + self.future_events_before_clock


def inverted_pairs(table: TableSpec, rows: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """(pairs checked, pairs whose end-like date is before their start-like date) over ``rows``."""
    pairs = date_pairs((c.name, c.type) for c in date_columns(table))
    checked = inverted = 0
    for row in rows if pairs else ():
        for start, end in pairs:
            s, e = _text(row.get(start)), _text(row.get(end))
            if s is None or e is None:
                continue
            checked += 1
            inverted += before(e, s)
    return checked, inverted


def seed_time(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]], clock: datetime) -> SeedTimeCounts:
    """Both measures over ``rows`` (table -> rows) against ``clock``.

    A past-event timestamp (:func:`names_past_event`) is a violation when it is after the clock (a
    date: on a later day). A future-event timestamp (:func:`coming_dates`) is examined only on a row
    whose status says its event is still to come (measure 7's before-event words: scheduled,
    booked, confirmed ...), and is a violation on a day before the clock's day: on the day itself a
    booked visit may have begun a little before its status changes.
    """
    now = clock.strftime("%Y-%m-%d %H:%M:%S")
    out = SeedTimeCounts()
    for table in spec.tables:
        table_rows = rows.get(table.name, [])
        checked, inverted = inverted_pairs(table, table_rows)
        out.date_pairs_checked += checked
        out.inverted_date_pairs += inverted
        dates = date_columns(table)
        past = [c.name for c in dates if names_past_event(c.name)]
        future = coming_dates((c.name, c.type) for c in dates)
        statuses = status_columns(table) if future else []
        for row in table_rows:
            for name in past:
                if (value := _text(row.get(name))) is not None:
                    out.past_events_checked += 1
                    out.past_events_after_clock += before(now, value)
            phases = {status_phase(row.get(s.name)) for s in statuses} - {None}
            if phases != {"before"}:
                continue
            for name in future:
                if (value := _text(row.get(name))) is not None:
                    out.future_events_checked += 1
                    out.future_events_before_clock += value[:10] < now[:10]
    return out
