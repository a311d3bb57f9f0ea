"""Deadlines set on or after the day their record came to be (the quality report's measure 33,
:mod:`envs.quality.deadlines`): a citation due after it was issued, a return window that closes after
the purchase.

:func:`settle_deadlines` runs once statuses are final and before children follow their parents
(``child_dates``). It moves the deadline to a plausible gap after the record's opening, on the side of
the clock the record's status needs (an expired add-on's expiry has passed, an active one's has
not). A deadline a lifecycle times (``timing.anchored_dates``) stays; the record's own history then
moves back before it, together, so its order holds. A move that turns a pair backwards is undone.

:func:`settle_answer_deadlines` then moves a start date that comes before the deadline to answer
what starts (a job offer's ``start_date`` before its ``respond_by``) to 1–8 weeks after the deadline:
the deadline is what the tools check (an offer is accepted only before it), the start only follows.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.deadlines import (
    answer_columns,
    deadline_columns,
    early_deadlines,
    late_answers,
    opened,
    opening_columns,
    start_columns,
)
from envs.quality.periods import phase
from envs.quality.seed import status_columns
from envs.quality.seed_time import names_past_event

from .timeline import TIME, date_in, inverted, parse
from .timing import Anchors

#: Words of a deadline that closes a validity (an add-on, an access period): months, not weeks.
_VALIDITY = frozenset({"expires", "expiry", "expiration"})


def settle_deadlines(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Move deadlines set before their record's opening, or the record's history before them (in
    place). Returns the number of rows changed (deterministic)."""
    rng = random.Random(f"deadlines:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    moved = 0
    for table in spec.tables:
        deadlines, openings = deadline_columns(table), opening_columns(table)
        if not deadlines or not openings:
            continue
        kinds: dict[str, str] = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        history = [c for c in kinds if names_past_event(c) and "birth" not in c]
        statuses = [c.name for c in status_columns(table)]
        for row in spec.seed.get(table.name, []):
            since = opened(row, openings)
            early = early_deadlines(row, deadlines, since) if since is not None else []
            if since is None or not early:
                continue
            held = anchored(table.name, row)
            before = dict(row)
            state = phase(row, statuses)
            for column in early:
                if column not in held:
                    row[column] = _deadline_after(kinds[column], column, since, state, spec.clock, rng) or row[column]
            if early_deadlines(row, deadlines, since) and not set(history) & held:
                _move_history_before(row, history, kinds, min(parse(row[c]) for c in early if c in row), rng)
            if inverted(row, kinds) or early_deadlines(row, deadlines, opened(row, openings) or since):
                row.update(before)
                continue
            moved += row != before
    return moved


def settle_answer_deadlines(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Move start dates before their row's deadline to answer to after it (in place); returns the
    number of rows changed."""
    rng = random.Random(f"answer-deadlines:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    moved = 0
    for table in spec.tables:
        answers, starts = answer_columns(table), start_columns(table)
        kinds: dict[str, str] = {c.name: c.type for c in table.columns if c.type in ("date", "datetime")}
        for row in spec.seed.get(table.name, []) if answers and starts else []:
            late = late_answers(row, answers, starts)
            if not late:
                continue
            before, held = dict(row), anchored(table.name, row)
            due = max(parse(row[c]) for c in late)
            for column in starts:
                if (
                    column not in held
                    and isinstance(row.get(column), str)
                    and row[column][:10] < due.strftime("%Y-%m-%d")
                ):
                    new = due + timedelta(days=rng.randint(7, 56))
                    row[column] = new.strftime("%Y-%m-%d") if kinds[column] == "date" else new.strftime(TIME)
            if inverted(row, kinds) or late_answers(row, answers, starts):
                row.update(before)
                continue
            moved += row != before
    return moved


def _deadline_after(
    kind: str, column: str, since: str, state: str | None, clock: datetime, rng: random.Random
) -> str | None:
    """A deadline a plausible gap after the day ``since``, on the side of ``clock`` ``state`` needs
    (lapsed or overdue: passed; running or in force: not passed), or None if there is no such day."""
    opened_on = datetime.fromisoformat(since)
    longest = timedelta(days=365 if set(column.split("_")) & _VALIDITY else 45)
    lo, hi = opened_on + timedelta(days=7) - timedelta(minutes=1), opened_on + longest
    if state in ("lapsed", "overdue"):
        hi = min(hi, clock - timedelta(days=1))
        lo = min(lo, hi - timedelta(days=1))
        lo = max(lo, opened_on - timedelta(minutes=1))
    elif state in ("running", "in_force"):
        lo = max(lo, clock - timedelta(days=1) if kind == "date" else clock)
        hi = max(hi, lo + timedelta(days=7))
    return date_in(kind, lo, hi, rng)


def _move_history_before(
    row: dict[str, Any], history: list[str], kinds: dict[str, str], deadline: datetime, rng: random.Random
) -> None:
    """Shift ``row``'s recorded dates back together so its first one is 7–45 days before ``deadline``."""
    values = {c: parse(row[c]) for c in history if isinstance(row.get(c), str)}
    if not values:
        return
    first = min(values.values())
    back = first - (deadline - timedelta(days=rng.randint(7, 45)))
    if back <= timedelta(0):
        return
    for c, v in values.items():
        new = v - back
        row[c] = new.strftime("%Y-%m-%d") if kinds[c] == "date" else new.strftime(TIME)
