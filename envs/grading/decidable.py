"""Whether a refusal on a time rule follows from what the agent is shown.

An agent sees three things: the rule as the policy states it ("the start date must be more than 2
days away"), the current time the policy states ("The current time is 2026-03-02 09:00"), and the
record's value in a tool result. :func:`decide` reads the rule's words, not the spec's SQL, and
applies them to the value: a refusal is decidable when the rule, so read, forbids the action at
every moment the value could name (a bare date names a whole day, so a rule whose edge falls inside
that day cannot be decided from the date alone).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from .mentions import parse_value

_NOW = re.compile(r"current (?:date and )?(?:time|date) is\s+\**(\d{4}-\d{2}-\d{2})(?:[ t](\d{1,2}):(\d{2}))?")
_UNITS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
_SPAN = r"(\d+) (hour|day|week)s?"


def _no_later_than(v: datetime, now: datetime, span: timedelta) -> bool:
    return v <= now + span


def _later_than(v: datetime, now: datetime, span: timedelta) -> bool:
    return v > now + span


def _in_last(v: datetime, now: datetime, span: timedelta) -> bool:
    return now - span <= v <= now


#: (pattern, test) for each way a time rule is written; ``test(value, now, span)`` says the rule allows.
_RULES: tuple[tuple[re.Pattern[str], Callable[[datetime, datetime, timedelta], bool]], ...] = (
    (re.compile(rf"\bno more than {_SPAN} away\b"), _no_later_than),
    (re.compile(rf"\bmore than {_SPAN} away\b"), _later_than),
    (re.compile(rf"\bwithin the last {_SPAN}\b"), _in_last),
    (re.compile(r"\bmust have passed\b"), _no_later_than),
    (re.compile(r"\bmust be in the future\b"), _later_than),
)


def stated_now(policy: str) -> datetime | None:
    """The current time a policy states ("The current time is 2026-03-02 09:00 (UTC)."), or None.

    >>> stated_now("# P\\n\\nThe current time is 2026-03-02 09:00 (UTC).\\n"), stated_now("Be nice.")
    (datetime.datetime(2026, 3, 2, 9, 0), None)
    """
    m = _NOW.search(policy.lower())
    if m is None:
        return None
    day = datetime.fromisoformat(m.group(1))
    return day.replace(hour=int(m.group(2)), minute=int(m.group(3))) if m.group(2) else day


def is_time_rule(text: str) -> bool:
    """Whether ``text`` states a rule about time (one :func:`decide` reads).

    >>> is_time_rule("the arrival date must have passed"), is_time_rule("the balance must be at least 5")
    (True, False)
    """
    return any(pattern.search(text.lower()) for pattern, _ in _RULES)


def decide(rule: str, now: datetime, value: str) -> bool | None:
    """Whether ``rule`` allows the action on a record whose tested value is ``value`` (an ISO date
    or date-time), at ``now``; None when the words do not decide it (not a time rule as read here,
    or a bare date on whose day the rule's edge falls).

    >>> now = datetime(2026, 3, 2, 9)
    >>> decide("the start must be more than 2 days away", now, "2026-03-03")
    False
    >>> decide("departs at must be more than 2 hours away", now, "2026-03-02 10:30"), decide(
    ...     "departs at must be more than 2 hours away", now, "2026-03-02")
    (False, None)
    """
    parsed = parse_value(value)
    if parsed is None:
        return None
    day, clock = parsed
    text = rule.lower()
    for pattern, allows in _RULES:
        m = pattern.search(text)
        if m is None:
            continue
        span = int(m.group(1)) * _UNITS[m.group(2)] if m.groups() else timedelta(0)
        start = datetime(day.year, day.month, day.day)
        if clock is not None:
            moment = start.replace(hour=clock[0], minute=clock[1])
            return bool(allows(moment, now, span))
        first, last = allows(start, now, span), allows(start + timedelta(hours=23, minutes=59), now, span)
        return bool(first) if first == last else None
    return None
