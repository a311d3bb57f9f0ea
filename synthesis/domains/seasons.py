"""Titles that name a season, a holiday or a month, on a row dated in another part of the year.

A "Fourth of July Block Party" held on March 7, a "Black Friday Push" starting in April, a "Q1
Retargeting" campaign that starts in the second quarter: seeds draw a title from the domain's examples
and a date from the clock apart, and a reader sees the contradiction at once. :func:`settle_seasons`
runs once a row's dates are final and redraws such a title from the same examples, among those that fit
the row's own date or name no time of year. A title the domain has no fitting replacement for stays.
Only rows dated by when the titled thing happens are read (an event's date, a campaign's start, a
show, a report filed); a film, a book or an item may be named for any season. Tasks follow the same
rules when a write sets a title or that date (:func:`when_column`, :func:`fits`).
"""

from __future__ import annotations

import random
import re
from typing import Any

from envs.formats.spec import EnvSpec

from .catalog_names import catalog_name
from .domain import Domain, Entity

_Q = {1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9), 4: (10, 11, 12)}
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)

#: Words of a title, and the months a row dated by it may fall in. Longer phrases first: a "Fall
#: Harvest" fair is read once, as fall.
_SEASONS: tuple[tuple[str, frozenset[int]], ...] = tuple(
    (words, frozenset(months))
    for words, months in (
        ("fourth of july", (6, 7)),
        ("back to school", (7, 8, 9)),
        ("black friday", (11,)),
        ("cyber monday", (11, 12)),
        ("mother's day", (4, 5)),
        ("father's day", (5, 6)),
        ("new year", (12, 1)),
        ("year-end", (11, 12)),
        ("tree lighting", (11, 12)),
        ("thanksgiving", (11,)),
        ("turkey trot", (11,)),
        ("oktoberfest", (9, 10)),
        ("halloween", (10,)),
        ("valentine", (2,)),
        ("christmas", (11, 12)),
        ("holiday", (11, 12)),
        ("harvest", (9, 10, 11)),
        ("spring", (3, 4, 5)),
        ("summer", (6, 7, 8)),
        ("autumn", (9, 10, 11)),
        ("fall", (9, 10, 11)),
        ("winter", (12, 1, 2)),
        *((f"q{q}", months) for q, months in _Q.items()),
        # a month named in a title: that month, or the next (an expense report for March filed in April)
        *((name, (i + 1, i % 12 + 2)) for i, name in enumerate(_MONTHS) if name != "may"),
    )
)


#: Words of a date column that says when the titled thing happens (an event, a campaign's start, a
#: show, a report filed): a film watched or a coat returned in another season contradicts nothing.
_WHEN = re.compile(r"(^|_)(event|start|starts|show|performance|submitted)(_|$)")


def season_of(title: str) -> frozenset[int] | None:
    """The months a title names (its first seasonal phrase), or None when it names no time of year."""
    low = title.lower()
    for words, months in _SEASONS:
        if re.search(rf"(?<![\w']){re.escape(words)}(?![\w'])", low):
            return months
    return None


def _month(value: Any) -> int | None:
    if not isinstance(value, str) or not re.match(r"\d{4}-\d{2}-\d{2}", value):
        return None
    return int(value[5:7])


def when_column(entity: Entity) -> str | None:
    """The date column that says when ``entity``'s titled thing happens (None: its titles may name any
    season): the first date or datetime attribute named for an event, a start, a show, a filing."""
    if not any(a.kind == "title" for a in entity.attributes):
        return None
    return next((a.name for a in entity.attributes if a.kind in ("date", "datetime") and _WHEN.search(a.name)), None)


def fits(title: Any, date: Any) -> bool:
    """Whether ``title`` names no time of year, or one ``date``'s month falls in (True without a date)."""
    month = _month(date)
    season = season_of(title) if isinstance(title, str) else None
    return month is None or season is None or month in season


def settle_seasons(domain: Domain, spec: EnvSpec) -> int:
    """Redraw titles whose season their row's first date contradicts (in place). Returns the number of
    values changed (deterministic)."""
    rng = random.Random(f"seasons:{spec.id}")
    changed = 0
    for entity in domain.entities:
        titles = [a for a in entity.attributes if a.kind == "title" and a.examples]
        when = when_column(entity)
        if not titles or when is None:
            continue
        rows = spec.seed.get(entity.table, [])
        for attr in titles:
            examples = attr.examples or []
            once = attr.unique or attr is catalog_name(domain, entity)  # a reference list names a thing once
            taken = {row.get(attr.name) for row in rows} if once else set()
            for row in rows:
                value, date = row.get(attr.name), row.get(when)
                if fits(value, date):
                    continue
                choices = [e for e in examples if e != value and e not in taken and fits(e, date)]
                if not choices and once:  # every name is in use: trade with a row each title fits
                    other = next((r for r in rows if fits(r.get(attr.name), date) and fits(value, r.get(when))), None)
                    if other is not None:
                        row[attr.name], other[attr.name] = other[attr.name], value
                        changed += 1
                    continue
                if not choices:
                    continue
                row[attr.name] = rng.choice(choices)
                if once:
                    taken.add(row[attr.name])
                changed += 1
    return changed
