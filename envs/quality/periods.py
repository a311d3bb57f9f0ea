"""Records under way outside their period: a status that says a period is running (``checked_in``,
``parked``, ``active``) on a record whose dates say it has ended or not begun, and one that says it
has lapsed (``expired``) on a record whose end is still ahead.

Which columns a record's period has is decided by their names and types alone (the words of
:mod:`.seed_time`), so the measure runs on any catalog; the seed generator keeps rows out of it by the
same rules (``synthesis.domains.periods``). Definition: docs/synthesis.md, measure 31.

* A **running** status (:data:`RUNNING`: checked in, parked, in progress) needs each start-like
  date on or before the clock, each end-like date on or after it, and a start plus a length column
  (``arrival_date`` + ``nights``) not yet over.
* A status **in force** (:data:`IN_FORCE`: active, open, valid, and every running one) needs each
  end-like date not yet passed, and no date recording the end (``ended_on``) set. An active policy
  may start in the future (travel insurance bought before the trip), so starts are not checked.
* A status in force that the status column's order places **after a state before it** (``requested``,
  ``approved`` → ``active``; ``scheduled`` → ``active``; ``draft`` → ``live``) is reached once the
  record has begun: it needs each start-like date on or before the clock too (an active leave of
  absence starting in May is still approved). So does every status from the first in force on, short
  of those that are over or lapsed, where a start names the holder's arrival (``move_in_date``: an
  active or overlocked storage rental has been moved into); not one still before its event
  (``move_out_scheduled``), whose date measure 7 reads ahead. :func:`begun_statuses`.
* A **lapsed** status (:data:`LAPSED`: expired) needs its end-like dates passed.
* A lapsed or **over** status (:data:`OVER`: cancelled, closed, paid off) needs no date of a next
  event (``next_billing_date``, ``next_delivery``) ahead: nothing more comes of a cancelled
  subscription.
* An **overdue** status (:data:`OVERDUE`: delinquent, past due) needs its due dates passed.

Dates compare by day when either side is a plain date (a date has no time).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .seed import status_columns, status_phase
from .seed_time import before, closes_period, names_past_event, opens_period
from .text import word_set

#: Statuses of a period that has begun and not ended.
RUNNING = word_set(
    """checked_in in_progress parked underway ongoing occupied staying boarded on_loan borrowed in_session
    on_leave moved_in in_use"""
)
#: Statuses of something whose term has not ended; it may not have begun (an active travel policy).
IN_FORCE = RUNNING | word_set("active open valid in_force current enrolled effective live")
#: Statuses of something whose term has ended.
LAPSED = word_set("expired lapsed")
#: Statuses of something that has ended for good, by its own or someone's act.
OVER = word_set(
    """cancelled canceled closed terminated ended stopped discontinued withdrawn completed paid_off refunded
    deactivated disconnected archived"""
)
#: Statuses of something whose payment or act was due and has not come.
OVERDUE = word_set("delinquent overdue past_due in_arrears defaulted")
_PHASES = (("running", RUNNING), ("in_force", IN_FORCE), ("lapsed", LAPSED), ("over", OVER), ("overdue", OVERDUE))

#: Words of an end-like date that closes a window inside the term, not the term: a free-look or
#: grace period, a hold, a deadline to act by. Such a window may close while the term runs.
WINDOW_WORDS = word_set(
    """free look grace trial intro promo promotional cooling hold lock refund cancel cancellation return
    by due deadline cutoff window offer quote price rate reply respond pay payment claim"""
)

#: A length column's unit word and what one unit is.
LENGTH_UNITS = {
    "nights": timedelta(days=1),
    "days": timedelta(days=1),
    "weeks": timedelta(days=7),
    "hours": timedelta(hours=1),
    "minutes": timedelta(minutes=1),
}
#: Other words a length column's name may hold (``num_nights``, ``duration_hours``, ``estimated_hours``).
_LENGTH_WORDS = word_set("num number of duration length stay estimated booked planned total rental term")


#: Words of a start that names the holder's arrival: the record is under way from it in every state.
ARRIVAL_WORDS = word_set("move moved arrival arrived")


def length_unit(name: str) -> timedelta | None:
    """The unit of a column holding a period's length (``nights``, ``duration_hours``), else None:
    one unit word, and only words of a length beside it (``hours_worked`` is no length)."""
    words = name.lower().split("_")
    units = [w for w in words if w in LENGTH_UNITS]
    if len(units) != 1 or not all(w in LENGTH_UNITS or w in _LENGTH_WORDS for w in words):
        return None
    return LENGTH_UNITS[units[0]]


@dataclass(frozen=True)
class Period:
    """The columns of a record's period.

    ``starts``: start-like dates; ``ends``: end-like dates still to come on a running record;
    ``stamps``: end-like dates that record the end (``ended_on``), set only once it ended;
    ``length``: (start column, length column, unit) when a length says where the period ends
    (``arrival_date`` + ``nights``: its start is then no end, whatever its name);
    ``upcoming``: dates of a next event (``next_billing_date``); ``dues``: dates a payment or act
    is due by (``due_date``, ``next_due``).
    """

    starts: tuple[str, ...]
    ends: tuple[str, ...]
    stamps: tuple[str, ...]
    length: tuple[str, str, timedelta] | None = None
    upcoming: tuple[str, ...] = ()
    dues: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.starts or self.ends or self.stamps or self.length or self.upcoming or self.dues)


def period_of(columns: Iterable[tuple[str, str]]) -> Period:
    """The :class:`Period` of a record with ``columns`` ((name, type))."""
    columns = list(columns)
    dates = [n for n, kind in columns if kind in ("date", "datetime")]
    lengths = [(n, unit) for n, kind in columns if kind in ("integer", "real") and (unit := length_unit(n))]
    length = None
    if len(lengths) == 1:
        opening = [n for n in dates if opens_period(n)]
        to_come = [n for n in dates if not names_past_event(n)]
        start = opening[0] if len(opening) == 1 else to_come[0] if len(to_come) == 1 else None
        length = (start, *lengths[0]) if start else None
    held = {length[0]} if length else set()
    ends = [n for n in dates if closes_period(n) and n not in held and not set(n.split("_")) & WINDOW_WORDS]
    return Period(
        starts=tuple(n for n in dates if opens_period(n) and n not in held),
        ends=tuple(n for n in ends if not names_past_event(n)),
        stamps=tuple(n for n in ends if names_past_event(n)),
        length=length,
        upcoming=tuple(n for n in dates if n.startswith("next_")),
        dues=tuple(n for n in dates if "due" in n.split("_")),
    )


def phase(row: Mapping[str, Any], statuses: Iterable[str]) -> str | None:
    """'running', 'in_force', 'lapsed', 'over' or 'overdue' by the row's status columns, else None
    (or on a conflict)."""
    found = set()
    for column in statuses:
        value = row.get(column)
        word = value.strip().lower().replace(" ", "_").replace("-", "_") if isinstance(value, str) else ""
        found.add(next((name for name, words in _PHASES if word in words), None))
    found.discard(None)
    return found.pop() if len(found) == 1 else None


def _date_text(value: Any) -> str | None:
    return value.replace("T", " ") if isinstance(value, str) and len(value) >= 10 else None


def period_end(start: str, length: Any, unit: timedelta) -> str | None:
    """Where a period of ``length`` units from ``start`` ends: a day for a date start, else a time."""
    if not isinstance(length, int | float) or isinstance(length, bool) or length < 0:
        return None
    begun = datetime.fromisoformat(start.replace(" ", "T"))
    end = begun + unit * length
    return end.strftime("%Y-%m-%d") if len(start) == 10 else end.strftime("%Y-%m-%d %H:%M:%S")


def breaches(period: Period, row: Mapping[str, Any], state: str | None, clock: datetime) -> list[tuple[str, str]]:
    """(column, what) for each of ``row``'s dates its period ``state`` (:func:`phase`) contradicts:
    ``not_started`` (a running record's start after the clock), ``over`` (its start plus its length
    before it), ``ended`` (an end of a record in force before it), ``stamped`` (an end recorded on a
    record in force), ``not_lapsed`` (a lapsed record's end after it), ``upcoming`` (a next event
    ahead of a record that is over or lapsed), ``not_due`` (an overdue record's due date not yet
    come)."""
    if state is None:
        return []
    now = clock.strftime("%Y-%m-%d %H:%M:%S")
    out: list[tuple[str, str]] = []
    if state == "running":
        starts = period.starts + (period.length[:1] if period.length else ())
        out += [(c, "not_started") for c in starts if (v := _date_text(row.get(c))) and before(now, v)]
        if period.length and (v := _date_text(row.get(period.length[0]))):
            end = period_end(v, row.get(period.length[1]), period.length[2])
            if end is not None and before(end, now):
                out.append((period.length[0], "over"))
    if state in ("running", "in_force"):
        out += [(c, "ended") for c in period.ends if (v := _date_text(row.get(c))) and before(v, now)]
        out += [(c, "stamped") for c in period.stamps if row.get(c) is not None]
    if state == "lapsed":
        out += [(c, "not_lapsed") for c in period.ends if (v := _date_text(row.get(c))) and before(now, v)]
    if state in ("lapsed", "over"):
        out += [(c, "upcoming") for c in period.upcoming if (v := _date_text(row.get(c))) and before(now, v)]
    if state == "overdue":
        out += [(c, "not_due") for c in period.dues if (v := _date_text(row.get(c))) and not before(v, now)]
    return out


def begun_statuses(table: TableSpec, period: Period) -> frozenset[str]:
    """The statuses of ``table`` reached only once its record has begun (its start-like dates past):
    one in force after a state before it in the status column's order, and where a start names the
    holder's arrival, every status from the first in force on that is neither over nor lapsed."""
    statuses = status_columns(table)
    values = list(statuses[0].enum or []) if statuses and period.starts else []
    words = [v.strip().lower().replace(" ", "_").replace("-", "_") for v in values]
    ended = OVER | LAPSED
    out = set()
    for i, word in enumerate(words):
        if word in IN_FORCE - RUNNING and any(w not in IN_FORCE | ended for w in words[:i]):
            out.add(values[i])
    arrival = any(set(start.split("_")) & ARRIVAL_WORDS for start in period.starts)
    first = next((i for i, w in enumerate(words) if w in IN_FORCE), None)
    if arrival and first is not None:  # not a move-out still to come: measure 7 reads its date ahead
        out.update(v for v in values[first:] if v.lower() not in ended and status_phase(v) != "before")
    return frozenset(out)


def not_started(period: Period, row: Mapping[str, Any], clock: datetime) -> list[tuple[str, str]]:
    """(column, ``not_started``) for each start-like date of ``row`` after ``clock``."""
    now = clock.strftime("%Y-%m-%d %H:%M:%S")
    return [(c, "not_started") for c in period.starts if (v := _date_text(row.get(c))) and before(now, v)]


def checks(period: Period, state: str) -> bool:
    """Whether ``period`` has a column that a record in ``state`` is held to."""
    if state == "running":
        return bool(period.starts or period.ends or period.stamps or period.length)
    if state == "in_force":
        return bool(period.ends or period.stamps)
    if state == "lapsed":
        return bool(period.ends or period.upcoming)
    return bool(period.upcoming) if state == "over" else bool(period.dues)


@dataclass
class PeriodCounts:
    """Rows whose status says where they are in their period (and that have a period), and those
    whose dates contradict it."""

    period_rows_checked: int = 0
    rows_outside_period: int = 0


def rows_outside_period(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> PeriodCounts:
    """Measure 31 over ``rows`` (table -> rows; the seed by default) against ``spec.clock``."""
    rows = spec.seed if rows is None else rows
    out = PeriodCounts()
    for table in spec.tables:
        statuses = [c.name for c in status_columns(table)]
        period = period_of((c.name, c.type) for c in table.columns)
        if not statuses or period.empty:
            continue
        begun = begun_statuses(table, period)
        for row in rows.get(table.name, []):
            state = phase(row, statuses)
            started = row.get(statuses[0]) in begun
            if not started and (state is None or not checks(period, state)):
                continue
            out.period_rows_checked += 1
            out.rows_outside_period += bool(period_breaches(period, row, state, started, spec.clock))
    return out


def period_breaches(
    period: Period, row: Mapping[str, Any], state: str | None, started: bool, clock: datetime
) -> list[tuple[str, str]]:
    """:func:`breaches`, and a start still ahead of a row whose status says it began (``started``)."""
    found = breaches(period, row, state, clock)
    if started and state != "running":
        found += not_started(period, row, clock)
    return found
