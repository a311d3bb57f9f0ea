"""Reasons for requests whose head verb would pick the wrong family (measure 105: a motive whose
premise the record's kind contradicts).

A verb's family (:mod:`.motives`) fits the verb, and some names carry a word that changes what is
asked: a grocery order reported "missing items" arrived short, it was not lost ("I can't find it
anywhere" of a delivered order); a parcel held at a pickup point is fetched, not paused for a trip;
a signature waived is no fee forgiven ("It was an honest mistake"); a return under a guarantee is for
a defect, not a change of mind; a copy of results is mailed to the user, not sent in; a move-out and
a redelivery are scheduled to end or finish something, not to "get started"; a makegood is asked for
a spot that did not air as booked, and results are released to someone waiting for them.
"""

from __future__ import annotations

from .motive_fit import Motive, motives_of
from .timed_motives import REDELIVER

_MISSING_ITEMS = motives_of(
    "A few things I paid for weren't in the bags.",
    "I unpacked it and some of what I ordered wasn't there.",
    "I went through the bags and a few items were missing.",
)
_HOLD_FOR_PICKUP = motives_of(
    "I won't be home to take it in.",
    "I keep missing the driver, so I'd rather fetch it myself.",
    "I pass the pickup point on my way home from work.",
)
_NO_SIGNATURE = motives_of(
    "I won't be home to sign for it, and it can be left at the door.",
    "I'm at work during the day, so no one can sign for it.",
    "It's fine to leave it without a signature; it's a safe spot.",
)
_DEFECT = motives_of(
    "It's worn out far sooner than it should have.",
    "There's a defect in it that showed up soon after.",
    "It keeps going wrong, which the guarantee should cover.",
)
_COPY = motives_of(
    "I need a paper copy for my records.",
    "My doctor asked to see a copy.",
    "I'd rather have a copy I can file away.",
)
_MOVE_OUT = motives_of(
    "I've found a bigger place and won't need the unit.",
    "I've sorted through my things and don't need the space anymore.",
    "I'm moving away, so I'm clearing the unit out.",
)
_MAKEGOOD = motives_of(
    "The spot didn't air the way we booked it.",
    "It ran at the wrong time for our audience.",
    "We didn't get the airing we paid for.",
)
_RESULTS = motives_of(
    "I've been waiting on my results and would like to see them.",
    "My doctor is waiting on the results.",
)

_COVER = frozenset({"guarantee", "warranty"})
_SENT_TO_USER = frozenset({"copy", "copies", "result", "results", "statement", "transcript"})


def kind_family(words: list[str]) -> tuple[Motive, ...] | None:
    """The family of a transition named by ``words`` whose name says more than its head verb, else None."""
    named = set(words)
    if {"missing", "items"} <= named or {"missing", "item"} <= named:
        return _MISSING_ITEMS
    if words[0] == "hold" and named & {"pickup", "point", "counter", "locker"}:
        return _HOLD_FOR_PICKUP
    if words[0] == "waive" and "signature" in named:
        return _NO_SIGNATURE
    if words[0] in ("return", "replace") and named & _COVER:
        return _DEFECT
    if words[0] in ("mail", "send", "email", "post") and named & _SENT_TO_USER:
        return _COPY
    if {"move", "out"} <= named:
        return _MOVE_OUT
    if "redelivery" in named or "redeliver" in named:
        return REDELIVER
    if "makegood" in named:
        return _MAKEGOOD
    if words[0] == "release" and named & {"result", "results"}:
        return _RESULTS
    return None
