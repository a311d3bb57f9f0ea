"""Seed rows in good standing before the date they lapse by (the quality report's measure 74,
:mod:`envs.quality.lapses`): no active safe deposit box whose renewal passed beside boxes refused as
past due for the same.

:func:`settle_lapses` runs once statuses are final (after ``periods.settle_periods``) and moves dates,
never statuses. A lapse date of a row in good standing moves ahead of the clock (a due date or a next
payment within a month, a renewal within a year). A date a lifecycle times (``timing.anchored_dates``)
stays, and a move that would turn a pair of the row backwards is undone.
"""

from __future__ import annotations

import random
from datetime import timedelta

from envs.formats.spec import EnvSpec
from envs.quality.lapses import lapses, off_side

from .timeline import date_in, inverted
from .timing import Anchors

#: How far ahead a moved date of a row in good standing falls: a renewal comes yearly, a payment monthly.
_AHEAD = {"renewal": timedelta(days=300), "renews": timedelta(days=300), "renew": timedelta(days=300)}
_MONTH = timedelta(days=30)


def settle_lapses(spec: EnvSpec, anchored: Anchors | None = None) -> int:
    """Move the lapse dates of ``spec``'s seed rows to their status's side of the clock (in place);
    returns the number of rows changed (deterministic)."""
    rng = random.Random(f"lapses:{spec.id}")
    anchored = anchored or (lambda *_: frozenset())
    tables = {t.name: t for t in spec.tables}
    changed = 0
    for lapse in lapses(spec):
        kinds = {c.name: c.type for c in tables[lapse.table].columns if c.type in ("date", "datetime")}
        for row in spec.seed.get(lapse.table, []):
            wrong = off_side(lapse, row, spec.clock)
            if not wrong:
                continue
            before, held = dict(row), anchored(lapse.table, row)
            today = spec.clock.replace(hour=0, minute=0, second=0)
            for column in wrong:
                if column in held:
                    continue
                reach = next((r for w, r in _AHEAD.items() if w in column.split("_")), _MONTH)
                row[column] = date_in(kinds[column], today, spec.clock + reach, rng) or row[column]
            if inverted(row, kinds):
                row.update(before)
                continue
            changed += row != before
    return changed
