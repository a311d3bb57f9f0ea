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

#: Days between the two dates of a pair, by its kind: a bill is due weeks after the service, a
#: free-look window closes months before the contract ends, a hearing follows its filing by weeks.
GAPS = {"billed": (21, 45), "window": (60, 300), "filed": (14, 60), "steps": (1, 14)}


def settle_date_order(spec: EnvSpec, *, forward: bool = False) -> int:
    """Move each earlier date of a pair out of order back before its later one (in place); with
    ``forward``, once children's dates have followed their parents' and the earlier one is bound,
    the later one on after it instead, not past the clock's day if it was before it. Returns the
    dates moved."""
    rng = random.Random(f"date-order:{spec.id}:{forward}")
    today = spec.clock.strftime("%Y-%m-%d")
    moved = 0
    for pair, row, wrong in list(date_order_findings(spec, spec.seed)):
        first, then = str(row[pair.earlier]), str(row[pair.later])
        if not wrong or then[:10] >= first[:10]:
            continue  # put in order by an earlier pair of the row
        gap = timedelta(days=rng.randint(*GAPS[pair.kind]))
        if forward:
            day = (datetime.strptime(first[:10], "%Y-%m-%d") + gap).strftime("%Y-%m-%d")
            row[pair.later] = (min(day, today) if then[:10] <= today else day) + then[10:]
        else:
            row[pair.earlier] = (datetime.strptime(then[:10], "%Y-%m-%d") - gap).strftime("%Y-%m-%d") + first[10:]
        moved += 1
    return moved
