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


def settle_date_order(spec: EnvSpec) -> int:
    """Move each earlier date of a pair out of order back before its later one (in place); returns
    the dates moved."""
    rng = random.Random(f"date-order:{spec.id}")
    moved = 0
    for pair, row, wrong in list(date_order_findings(spec, spec.seed)):
        if not wrong or str(row[pair.later])[:10] >= str(row[pair.earlier])[:10]:
            continue  # put in order by an earlier pair of the row
        later = datetime.strptime(str(row[pair.later])[:10], "%Y-%m-%d")
        day = later - timedelta(days=rng.randint(*GAPS[pair.kind]))
        row[pair.earlier] = day.strftime("%Y-%m-%d") + str(row[pair.earlier])[10:]
        moved += 1
    return moved
