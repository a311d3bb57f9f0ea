"""Two dates of one row in their domain's order (the quality report's measure 96,
:mod:`envs.quality.date_order`): no hospital bill due before its service, no free-look period ending
after its contract expired, no hearing before its appeal was filed.

:func:`settle_date_order` runs once statuses are final and before children's dates follow their
parents'. Of a pair out of order the earlier date moves back to a plausible gap before the later one,
keeping its time of day: the later date is the one a status or a rule times (a bill's due date, a
hearing, a contract's expiry), and a past event moved further back stays past.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from envs.formats.spec import EnvSpec
from envs.quality.date_order import date_order_findings
from envs.quality.terms import terms

from .timing import Anchors

#: Days between the two dates of a pair, by its kind: a bill is due weeks after the service, a
#: free-look window closes months before the contract ends, a hearing follows its filing by weeks.
GAPS = {"billed": (21, 45), "window": (60, 300), "filed": (14, 60), "steps": (1, 14)}


def settle_date_order(spec: EnvSpec, anchors: Anchors | None = None, *, forward: bool = False) -> int:
    """Move each earlier date of a pair out of order back before its later one (in place). The later
    one moves on after it instead where the earlier is one a lifecycle times (``anchors``: an active
    contract's free look still ahead), or, with ``forward``, once children's dates have followed their
    parents' and the earlier one is bound; a later date that had passed stays past. Returns the dates
    moved."""
    rng = random.Random(f"date-order:{spec.id}:{forward}")
    today = datetime(spec.clock.year, spec.clock.month, spec.clock.day)
    # a pair a tool makes as a term (a next bill 30 days after the start) is set by the terms, later
    termed = {(t.table, t.start, t.end) for t in terms(spec)} if not forward else set()
    moved = 0
    for pair, row, wrong in list(date_order_findings(spec, spec.seed)):
        first, then = str(row[pair.earlier]), str(row[pair.later])
        if not wrong or then[:10] >= first[:10]:
            continue  # put in order by an earlier pair of the row
        if {(pair.table, pair.earlier, pair.later), (pair.table, pair.later, pair.earlier)} & termed:
            continue
        gap = timedelta(days=rng.randint(*GAPS[pair.kind]))
        if forward or (anchors is not None and pair.earlier in anchors(pair.table, row)):
            day = datetime.strptime(first[:10], "%Y-%m-%d") + gap
            if then[:10] < today.strftime("%Y-%m-%d"):  # a hearing held, a contract expired: still so
                day = max(min(day, today - timedelta(days=1)), datetime.strptime(first[:10], "%Y-%m-%d"))
            row[pair.later] = day.strftime("%Y-%m-%d") + then[10:]
        else:
            row[pair.earlier] = (datetime.strptime(then[:10], "%Y-%m-%d") - gap).strftime("%Y-%m-%d") + first[10:]
        moved += 1
    return moved
