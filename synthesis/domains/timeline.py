"""The dates of one record in time order, derived from the column names alone.

The rules are the quality report's (:mod:`envs.quality.seed_time`), so a record that keeps them is
never counted there:

* **Pairs.** A start-like date (start, issue, departure, check-in ...) precedes every end-like
  date of the same record (end, until, expiry, arrival, check-out ...), by a plausible gap
  (:func:`period_gap`): hours between two datetimes, months to years before an expiry, else days.
* **Past events.** A date named for something that has happened (``paid_on``, ``created_at``,
  ``issued_on``, a birth date) is not after the clock.
* **Events to come.** On a record whose status says its event is still ahead (scheduled, booked,
  confirmed ...), a date named for an event, a deadline or a period's end is not before the
  clock's day.

:func:`settle_record_dates` moves a record's dates until the rules hold. Dates have a *rank*: a date
a lifecycle's timing placed, or one that other records' time rules read (a flight's departure), is
:data:`ANCHORED` and never moves; one placed on purpose for a guard's hour window (:data:`PLACED`)
moves only when it breaks a rule; a drawn one (:data:`DRAWN`) is re-drawn to fit. In a pair the
lower rank gives way; an end gives way to its start when both rank the same. A re-drawn date that a
time rule tests ("extend only in the last 7 days", "appeal within 60 days") lands on either side of
the rule's edge where its range crosses it, so tasks still find records the rule refuses.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from envs.quality.horizons import HORIZONS, date_kind
from envs.quality.seed import status_phase
from envs.quality.seed_time import coming_dates, date_pairs, names_past_event

from .domain import Domain, Entity, Guard

DRAWN, PLACED, ANCHORED = 0, 1, 2
TIME = "%Y-%m-%d %H:%M:%S"
_FAR = timedelta(days=3650)
#: End words of a validity period (a prescription, a permit, a passport): it runs months to years.
_VALIDITY = frozenset({"expires", "expiry", "expiration", "valid"})


def span(kind: str) -> timedelta:
    """How far from the clock a seed date is drawn: 60 days for a datetime, else 120."""
    return timedelta(days=60 if kind == "datetime" else 120)


def ahead_span(drawn: timedelta, name: str | None) -> timedelta:
    """``drawn`` (how far ahead a seed date is drawn) cut to the horizon of the date ``name``'s kind
    (:data:`envs.quality.horizons.HORIZONS`): a parcel is expected within weeks, not months."""
    kind = date_kind(name) if name else None
    if kind is None or HORIZONS[kind][1] <= timedelta(0):
        return drawn
    return min(drawn, HORIZONS[kind][1])


def far_reach(name: str | None, ahead: bool) -> timedelta:
    """How far a seed date ``name`` may be drawn when no nearer range fits: its kind's horizon."""
    kind = date_kind(name) if name else None
    if kind is None:
        return _FAR
    behind, coming = HORIZONS[kind]
    return (coming if ahead else behind) or _FAR


def period_gap(end: str, start_kind: str, end_kind: str) -> tuple[timedelta, timedelta]:
    """(shortest, longest) time from a start to the end ``end``: 1–8 hours between two datetimes (a
    session, a slot), 90 days–3 years before an expiry (a permit, a prescription), else 1–30 days (a
    stay, a trip, a leave, a rental)."""
    if start_kind == end_kind == "datetime":
        return timedelta(hours=1), timedelta(hours=8)
    if set(end.split("_")) & _VALIDITY:
        return timedelta(days=90), timedelta(days=3 * 365)
    return timedelta(days=1), timedelta(days=30)


def parse(value: str) -> datetime:
    """A seed date or datetime (``T`` or space) as a datetime; a date is its midnight."""
    return datetime.fromisoformat(value.replace(" ", "T"))


def _day_of(value: datetime, kind: str) -> datetime:
    """``value``, or its midnight when compared with a ``date`` (days after a start count from its day)."""
    return value.replace(hour=0, minute=0, second=0, microsecond=0) if kind == "date" else value


def date_in(kind: str, lo: datetime, hi: datetime, rng: random.Random) -> str | None:
    """A date / datetime string ``v`` with ``lo < v <= hi`` as the guards compare them (as text
    against ``%Y-%m-%d %H:%M:%S``, so a date equals midnight), or None if there is none. Datetimes
    fall on quarter hours, mostly in business hours."""
    if kind == "date":
        first, last = lo.date() + timedelta(days=1), hi.date()
        if first > last:
            return None
        return (first + timedelta(days=rng.randint(0, (last - first).days))).strftime("%Y-%m-%d")
    quarter = timedelta(minutes=15)
    start = lo.replace(second=0, microsecond=0) + timedelta(minutes=15 - lo.minute % 15)
    end = hi.replace(second=0, microsecond=0) - timedelta(minutes=hi.minute % 15)
    if start > end:
        return None
    for _ in range(5):  # in business hours where the window has any (a lesson at 00:15 is no lesson)
        day = start + timedelta(days=rng.randint(0, (end - start).days))
        v = day.replace(hour=rng.randint(8, 18), minute=rng.choice((0, 15, 30, 45)))
        if start <= v <= end:
            return v.strftime(TIME)
    return (start + quarter * rng.randint(0, (end - start) // quarter)).strftime(TIME)


def inverted(values: Mapping[str, Any], kinds: Mapping[str, str]) -> bool:
    """Whether some end-like date in ``values`` is before its start (by day when either is a date)."""
    given = {n: k for n, k in kinds.items() if k in ("date", "datetime") and isinstance(values.get(n), str)}
    for start, end in date_pairs(given.items()):
        a, b = parse(values[start]), parse(values[end])
        if (b.date() < a.date()) if "date" in (given[start], given[end]) else b < a:
            return True
    return False


@dataclass(frozen=True)
class RecordDates:
    """Which dates of a record pair up and which name past or coming events.

    ``kinds``: date column -> ``date`` / ``datetime``; ``edges``: date column -> the hours from the
    clock where a time rule on it switches (:func:`time_edges`), so re-drawn dates fall on both sides.
    """

    kinds: dict[str, str]
    nullable: frozenset[str] = frozenset()
    edges: dict[str, tuple[int, ...]] = field(default_factory=dict)
    statuses: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        columns: Iterable[tuple[str, str, bool]],
        edges: Mapping[str, tuple[int, ...]] | None = None,
        statuses: Iterable[str] = (),
    ) -> RecordDates:
        """From (name, type, nullable) of a record's columns; non-date columns are ignored."""
        cols = [c for c in columns if c[1] in ("date", "datetime")]
        return cls(
            kinds={n: k for n, k, _ in cols},
            nullable=frozenset(n for n, _, nullable in cols if nullable),
            edges=dict(edges or {}),
            statuses=tuple(statuses),
        )

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return date_pairs(self.kinds.items())

    @property
    def past(self) -> list[str]:
        return [n for n in self.kinds if names_past_event(n)]

    @property
    def future(self) -> list[str]:
        return coming_dates(self.kinds.items())

    def to_come(self, row: Mapping[str, Any]) -> bool:
        """The row's status says its event is still ahead (the quality report's before-event words)."""
        phases = {status_phase(row.get(s)) for s in self.statuses} - {None}
        return phases == {"before"}


def record_dates(domain: Domain, entity: Entity) -> RecordDates:
    """The :class:`RecordDates` of an entity's attributes, with the edges of the time rules on them."""
    columns = [(a.name, a.kind, a.nullable) for a in entity.attributes]
    statuses = [entity.lifecycle.field] if entity.lifecycle else []
    statuses += [a.name for a in entity.attributes if a.name == "status" or a.name.endswith("_status")]
    return RecordDates.of(columns, time_edges(domain, entity), statuses)


def time_edges(domain: Domain, entity: Entity) -> dict[str, tuple[int, ...]]:
    """Per date attribute of ``entity``, the hours from the clock where the time rules on it switch:
    ``+h`` for a ``future`` / ``past`` rule (more / no more than h hours ahead), ``-h`` for a
    ``within`` rule (no more than h hours ago). Rules of the entity itself (``field:x``) and of
    entities that reference it (``via:ref.x``) count."""
    out: dict[str, set[int]] = {}
    for holder in domain.entities:
        for g in _guards(holder):
            if g.kind not in ("future", "past", "within") or not g.field:
                continue
            if g.field.startswith("field:") and holder is entity:
                column = g.field[6:]
            elif g.field.startswith("via:") and "." in g.field:
                ref_name, _, column = g.field[4:].partition(".")
                ref = holder.reference(ref_name)
                if ref is None or ref.entity != entity.name:
                    continue
            else:
                continue
            out.setdefault(column, set()).add(-g.hours if g.kind == "within" else g.hours)
    return {column: tuple(sorted(edges)) for column, edges in out.items()}


def _guards(entity: Entity) -> list[Guard]:
    lc = entity.lifecycle
    guards = [g for t in lc.transitions for g in t.guards] if lc else []
    guards += [x.when for t in lc.transitions for x in t.effects if x.when is not None] if lc else []
    return guards + (entity.create.guards if entity.create else [])


# -- settling one record -------------------------------------------------------------------------------


class _Settler:
    def __init__(self, row: dict[str, Any], plan: RecordDates, rank: Mapping[str, int], clock: datetime) -> None:
        self.row, self.plan, self.rank, self.clock = row, plan, rank, clock
        self.to_come = plan.to_come(row)
        self.past = set(plan.past)
        self.future = set(plan.future)

    def rank_of(self, name: str) -> int:
        return self.rank.get(name, DRAWN)

    def bounds(self, name: str) -> tuple[datetime | None, datetime | None]:
        """(exclusive low, inclusive high) the clock puts on ``name``."""
        if name in self.past:
            return None, self.clock
        if self.to_come and name in self.future:
            day = self.clock.replace(hour=0, minute=0, second=0, microsecond=0)
            return day - timedelta(seconds=1), None
        return None, None

    def fits_clock(self, name: str, value: str) -> bool:
        lo, hi = self.bounds(name)
        v = parse(value)
        if hi is not None and (v.date() > hi.date() if len(value) == 10 else v > hi):
            return False
        return lo is None or v > lo

    def draw(self, name: str, lo: datetime, hi: datetime, rng: random.Random) -> str | None:
        """A value in (lo, hi] that also keeps the clock's bounds on ``name``. Where the time rules
        on ``name`` switch inside the range, it is cut there and a piece is picked at random, so
        the rules find records on both sides of their edges."""
        c_lo, c_hi = self.bounds(name)
        lo = max(lo, c_lo) if c_lo is not None else lo
        hi = min(hi, c_hi) if c_hi is not None else hi
        if lo >= hi:
            return None
        kind = self.plan.kinds[name]
        edges = {self.clock + timedelta(hours=h) for h in self.plan.edges.get(name, ())}
        cuts = sorted(t for t in edges if lo < t < hi)
        piece = rng.choice(list(pairwise([lo, *cuts, hi])))
        return date_in(kind, *piece, rng) or date_in(kind, lo, hi, rng)


def settle_record_dates(
    row: dict[str, Any], plan: RecordDates, rank: Mapping[str, int], clock: datetime, rng: random.Random
) -> None:
    """Move ``row``'s dates (in place) until its pairs are in order and its past and coming events
    sit on their side of ``clock`` (see the module docstring for who gives way)."""
    s = _Settler(row, plan, rank, clock)
    for name in plan.kinds:  # each date on its side of the clock
        value = row.get(name)
        if not isinstance(value, str) or s.rank_of(name) >= ANCHORED:
            continue
        kind = plan.kinds[name]
        if _is_birth(name):  # a person's birth date is decades back, never inside the seed's window
            if not s.fits_clock(name, value) or parse(value) > clock - timedelta(days=16 * 365):
                row[name] = user_date(name, kind, clock, rng)
            continue
        if name in s.past and (s.rank_of(name) == DRAWN or not s.fits_clock(name, value)):
            ago = max((-h for h in plan.edges.get(name, ()) if h < 0), default=0)
            row[name] = s.draw(name, clock - span(kind) - timedelta(hours=ago), clock, rng) or value
        elif not s.fits_clock(name, value):
            row[name] = s.draw(name, clock, clock + ahead_span(span(kind), name), rng) or value
    for start, end in plan.pairs:
        _order(s, start, end, rng)


def _is_birth(name: str) -> bool:
    return "birth" in name or name in ("dob", "born_on")


def _order(s: _Settler, start: str, end: str, rng: random.Random) -> None:
    """Put ``end`` a plausible gap after ``start``, moving the one that ranks lower (the end on a tie);
    a drawn date is always re-drawn, a placed one only when the pair is inverted."""
    row, kinds = s.row, s.plan.kinds
    a, b = row.get(start), row.get(end)
    if not isinstance(a, str) or not isinstance(b, str):
        return
    least, most = period_gap(end, kinds[start], kinds[end])
    backwards = inverted({start: a, end: b}, kinds)
    move_end = s.rank_of(end) <= s.rank_of(start)
    moving = end if move_end else start
    if s.rank_of(moving) >= ANCHORED or (s.rank_of(moving) == PLACED and not backwards):
        return
    if move_end:
        anchor = _day_of(parse(a), kinds[end])
        tries = [(anchor + least - timedelta(minutes=1), anchor + most), (anchor, anchor + _FAR)]
    else:
        anchor = parse(b)
        tries = [(anchor - most, anchor - least), (anchor - _FAR, anchor)]
    for lo, hi in tries:
        if (v := s.draw(moving, lo, hi, rng)) is not None:
            row[moving] = v
            return
    if moving in s.plan.nullable:  # no date keeps both the pair and the clock: a period not yet set
        row[moving] = None


# -- dates set at run time: a create's defaults, a user's inputs -----------------------------------------


def period_starts(entity: Entity) -> dict[str, tuple[str, timedelta]]:
    """Per end-like date attribute of ``entity``, its (first) start and the shortest gap after it."""
    kinds = {a.name: a.kind for a in entity.attributes if a.kind in ("date", "datetime")}
    out: dict[str, tuple[str, timedelta]] = {}
    for start, end in date_pairs(kinds.items()):
        out.setdefault(end, (start, period_gap(end, kinds[start], kinds[end])[0]))
    return out


def shifted_sql(start: str, gap: timedelta, kind: str) -> str:
    """SQL for the ``kind`` value ``gap`` after the SQL value ``start`` (``date(:start_date, '+1 days')``)."""
    step = f"+{gap.days} days" if gap >= timedelta(days=1) else f"+{gap.seconds // 3600} hours"
    return f"{'date' if kind == 'date' else 'datetime'}({start}, '{step}')"


def user_date(name: str, kind: str, clock: datetime, rng: random.Random) -> str:
    """A date a user would give for a new record: 5–40 days ahead, or as long ago for a past event
    (``incurred_on``; a birth date: 18–80 years ago)."""
    if names_past_event(name):
        back = timedelta(days=rng.randint(18 * 365, 80 * 365) if "birth" in name else rng.randint(5, 40))
        day = clock - back
    else:
        day = clock + timedelta(days=rng.randint(5, 40))
    return day.strftime("%Y-%m-%d") if kind == "date" else day.strftime("%Y-%m-%d 10:00:00")


def ordered_inputs(values: dict[str, Any], kinds: Mapping[str, str], rng: random.Random) -> dict[str, Any]:
    """``values`` with each given end-like date a plausible gap after its given start."""
    out = dict(values)
    given = {n: k for n, k in kinds.items() if k in ("date", "datetime") and isinstance(out.get(n), str)}
    for start, end in date_pairs(given.items()):
        least, most = period_gap(end, given[start], given[end])
        anchor = _day_of(parse(out[start]), given[end])
        out[end] = date_in(given[end], anchor + least - timedelta(minutes=1), anchor + most, rng) or out[end]
    return out
