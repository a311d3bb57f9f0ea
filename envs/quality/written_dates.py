"""Dates a write sets that no person would believe (measure 46, docs/synthesis.md).

A write that renews, pays, extends or files something sets dates that name what is to come: the next
billing date, a due date, an expiry. A person expects such a date after the clock and after the
record's own start, and an expiry only on a record that was granted (a permit still in review has
none). :class:`WrittenDates` reads the rows one write changed (before and after) and names every
date it set that breaks one of these:

* **past**: a date to come (:data:`TO_COME_WORDS`: ``next_billing_date``, ``due_date``,
  ``permit_expires``, ``valid_until``, ``return_by``) on or before the clock: a payment retried
  "for another 30 days" whose next billing date stays in January, on a clock in March;
* **before its start**: such a date before the record came to be or began (its opening dates, measure
  33's ``issued_at``, ``enrolled_on``, and its period's starts, ``start_date``);
* **expiry before grant**: an expiry (:data:`EXPIRY_WORDS`) a new record gets from the write itself,
  not from its arguments, while its status says it has not been granted (:data:`NOT_GRANTED`: submitted,
  pending, in review): an application that expires the day it is filed. An expiry the user states
  is the request's own term (an offer open until Friday).

Only dates the write set count (a changed value, or a new row's): a seed row's dates are the seed
measures' concern. The quality report feeds it the gold actions' replay; the task generator feeds it
its chains (through :mod:`.chains`) and keeps what it finds out of its tasks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .deadlines import opened, opening_columns
from .seed import status_columns
from .seed_time import date_columns, names_past_event, opens_period
from .text import word_set

Row = dict[str, Any]

#: Words of a date that names something still to come once a write sets it.
TO_COME_WORDS = word_set("next renews renewal renew expires expiry expiration until due deadline by")
#: Words of a date a grant ends on.
EXPIRY_WORDS = word_set("expires expiry expiration valid")
#: Statuses (their last word) of a record asked for and not yet granted.
NOT_GRANTED = word_set("submitted pending requested applied draft review reviewing received queued waitlisted")


def _words(name: str) -> set[str]:
    return set(name.lower().split("_"))


def names_date_to_come(name: str) -> bool:
    """Whether a date column names something a write sets ahead (a next event, a deadline, an expiry)."""
    return bool(_words(name) & TO_COME_WORDS) and not names_past_event(name)


def names_expiry(name: str) -> bool:
    """Whether a date column is the day a grant ends (``permit_expires``, ``valid_until``)."""
    words = _words(name)
    return bool(words & EXPIRY_WORDS or {"valid", "until"} <= words) and not names_past_event(name)


def not_granted(value: object) -> bool:
    """Whether a status value says the record is asked for and not yet granted (submitted, in review)."""
    if not isinstance(value, str) or not value.strip():
        return False
    return re.split(r"[\s_\-]+", value.strip().lower())[-1] in NOT_GRANTED


def _moment(value: Any, kind: str) -> str | None:
    """A date as ``YYYY-MM-DD`` (a ``date`` column) or ``YYYY-MM-DD HH:MM:SS``, comparable as text."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    return value[:10] if kind == "date" else value[:19].replace("T", " ")


class WrittenDates:
    """Finds the implausible dates among those a write set (see the module's rules)."""

    def __init__(self, spec: EnvSpec) -> None:
        clock: datetime = spec.clock
        self._today, self._now = clock.strftime("%Y-%m-%d"), clock.strftime("%Y-%m-%d %H:%M:%S")
        self._tables: dict[str, TableSpec] = {t.name: t for t in spec.tables}
        self._to_come = {
            t.name: [(c.name, c.type) for c in date_columns(t) if names_date_to_come(c.name)] for t in spec.tables
        }
        self._openings = {t.name: opening_columns(t) for t in spec.tables}
        self._starts = {t.name: [c.name for c in date_columns(t) if opens_period(c.name)] for t in spec.tables}
        self._status = {t.name: [c.name for c in status_columns(t)] for t in spec.tables}

    def checked(self, table: str, old: Row | None, new: Row | None) -> int:
        """How many dates to come the write set on this row (each is checked)."""
        return sum(1 for _ in self._set_dates(table, old, new))

    def find(
        self,
        table: str,
        key: tuple[Any, ...],
        old: Row | None,
        new: Row | None,
        given: Callable[[Any], bool] = lambda value: False,
    ) -> list[str]:
        """What is implausible about the dates to come one write set on one row (``new``: after it);
        ``given`` says whether a value came from the write's arguments."""
        if new is None:
            return []
        where = f"{table} {'/'.join(map(str, key))}"
        found = []
        statuses = [new.get(c) for c in self._status.get(table, ())]
        start = max(
            [d for d in [opened(new, self._openings.get(table, []))] if d]
            + [d[:10] for c in self._starts.get(table, []) if isinstance(d := new.get(c), str) and len(d) >= 10],
            default=None,
        )
        for column, kind, value in self._set_dates(table, old, new):
            moment = _moment(value, kind)
            if moment is None:
                continue
            # an expiry the user states is the request's own term (an offer open until Friday)
            if old is None and names_expiry(column) and not given(value) and any(not_granted(s) for s in statuses):
                found.append(f"{where}: {column} {value!r} on a record that is {', '.join(map(str, statuses))}")
            elif moment <= (self._today if kind == "date" else self._now):
                found.append(f"{where}: {column} {value!r} is not after the clock")
            elif start is not None and moment[:10] < start:
                found.append(f"{where}: {column} {value!r} is before the record began ({start})")
        return found

    def _set_dates(self, table: str, old: Row | None, new: Row | None) -> Iterator[tuple[str, str, Any]]:
        """(column, type, value) of every date to come the write gave a value on this row."""
        if new is None:
            return
        for column, kind in self._to_come.get(table, ()):
            value = new.get(column)
            if value is not None and (old is None or old.get(column) != value):
                yield column, kind, value
