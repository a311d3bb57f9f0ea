"""Reasons that are true only of some records' dates and amounts: paying, renewing, extending and
using something (the other families are in :mod:`.motives`).

"rather than be late with it" pays a bill due soon, not one due in three months; "I don't want a gap"
renews a loan near its due day; "Things are taking longer than I expected" extends a trip that has
begun, not one ten weeks away; "before I forget" uses a voucher; "on my way to that side of town"
collects a thing, never cashes in a certificate; a missed delivery is asked for again because it is
still wanted; cover (a warranty) is used because something went wrong. Each names the facets of the
record it needs (:mod:`.motive_fit`), read
from the record's row.
"""

from __future__ import annotations

from .motive_fit import (
    BEFORE_DUE,
    CLEARS,
    COVER,
    DECISION,
    DUE_SOON,
    OVERDUE,
    PART,
    RECURRING,
    STARTED,
    Motive,
    motives_of,
    never,
    only,
)

PAY = (
    *motives_of(
        "I'd rather get it settled before I forget.",
        "I don't want it hanging over me.",
        "I'm tidying up my finances this week.",
        "I have the money set aside for it now.",
    ),
    *only(CLEARS, "I just got paid, so I can clear it now."),
    # lateness is a worry only when the day is near
    Motive("I'd rather take care of it now than be late with it.", needs=frozenset({BEFORE_DUE, DUE_SOON})),
    *only(PART, "I can put something toward it now."),
    *only(
        OVERDUE,
        "It slipped my mind, and I want it cleared up.",
        "I lost track of it and want it off my plate.",
        presumes=True,
    ),
)
#: Paying ahead (a month of rent before it is due) settles no debt: nothing hangs over the user, and
#: a balance still owed is paid by another request (the seed-83 review).
PREPAY = (
    *motives_of(
        "I have the money set aside, so I'd rather pay ahead.",
        "I'd rather have it paid ahead of the day.",
    ),
    # a next stretch or month is paid only of what recurs: a lab order is paid once
    *only(RECURRING, "I'd rather have the next stretch paid ahead.", "It's one less thing to think about next month."),
)
RENEW = (
    *motives_of(
        "I've been happy with it and want to keep it going.",
        "It's worked well for me and I'm keen to keep it.",
        "I'll still need it for a while yet.",
    ),
    # a gap or a lapse is near only when the record ends soon
    *only(DUE_SOON, "I don't want a gap where I'm without it.", "I still need it, and I'd rather not have it lapse."),
)
EXTEND = (
    # an offer's deadline is extended to decide, not to keep the offer longer (the seed-89 review)
    *never(frozenset({DECISION}), "It turns out I want it for longer than I first planned."),
    *motives_of("I'd rather have the extra time in hand, just in case."),
    *only(DECISION, "I need a bit more time to decide.", "I need a few more days to think it over."),
    # more time is short only near the end: a stay ending in two months has time in hand
    *only(DUE_SOON, "I need a bit more time."),
    # only what has begun can have taken longer than expected
    *only(
        STARTED,
        "Things are taking longer than I expected.",
        "My plans ran longer than I thought they would.",
        "I'm not quite finished with it yet, so I need more time.",
    ),
)
COLLECT = (
    *never(frozenset({COVER}), "I'm on my way to that side of town anyway."),
    *motives_of("I've been waiting on it and would like to have it."),
    Motive("It's ready now, and I'm free this afternoon.", presumes=True),
)
#: Cashing in something held (points, a certificate, a voucher): no errand takes the user there.
REDEEM = (
    # cover is not waited for nor saved for a use: it is called on when something went wrong
    *never(
        frozenset({COVER}),
        "I'd rather use it before I forget about it.",
        "I've been waiting on it and would like to have it.",
        "I have a use for it now.",
    ),
    # cover is used because something went wrong
    *only(
        COVER,
        "Something's gone wrong with it, so I need the cover now.",
        "It got damaged, and that's why I took the cover out.",
    ),
)

#: A delivery missed and asked for again: still wanted, not something the user might forget to use.
REDELIVER = motives_of(
    "I'd still like to have it, even if it's late.",
    "I was looking forward to it and it never came.",
    "I didn't get it and would still like it.",
)
