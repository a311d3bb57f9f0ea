"""Why a user asks: a reason for each request, in their own words, fitting what they ask for.

Every user scenario of tau2-bench has a reason for the call ("I'm moving", "the trip was
cancelled"); a request without one reads like a form. A motive is chosen by the action's family
(cancel, return, pause, retry a payment, close, withdraw, reschedule, extend, dispute …: the words of
the transition's name) and said after the request. Four rules keep it honest:

* it carries no value (no id, date or amount): the grader counts the values an answer restates
  against the user's words, and a motive must not add any;
* it does not claim the record's state: a request the agent must refuse ("retry the payment" on an
  active subscription) gets a motive about the user's side only ("I've updated my card details"),
  never one that says what the record is ("my card was declined last week"), so the refusal stays
  right and the words do not contradict the record;
* it is chosen by a hash of the request, not drawn from the task generator's RNG, so the tasks drawn
  after it do not change with it; the families hold enough variants that a catalog of thousands of
  tasks repeats no sentence in more than a few percent of them; two requests of one task get different
  words. The reasons for changing a field or asking for a new record are in :mod:`.record_motives`;
* it fits the record, not only the verb (:mod:`.motive_fit`): no cost to decline a trade-in offer, no
  plans behind a claim, no lateness without knowing the record is not yet overdue.
"""

from __future__ import annotations

from .kind_motives import kind_family
from .motive_fit import (
    ARRIVED,
    ATTENDED,
    BOOKED,
    CHARGED,
    CLAIM,
    COSTS_USER,
    DOCUMENT,
    FREE,
    GONE,
    HOSTED,
    PAYS_USER,
    PROBLEM,
    RECENT,
    TURNED_DOWN,
    Motive,
    RecordFacts,
    motives_of,
    never,
    only,
    pick,
)
from .timed_motives import COLLECT, EXTEND, PAY, PREPAY, REDEEM, REDELIVER, RENEW

__all__ = ["RESCHEDULE", "Motive", "family", "motives_of", "pick", "transition_motive"]

_PLANS = frozenset({CLAIM, PAYS_USER})  # a claim or a payout is no plan that changes

_SORTED = only(  # a claim dropped: the matter was settled another way, not a plan that changed
    CLAIM,
    "It got sorted out another way, so I'd rather drop it.",
    "I've worked it out with them directly.",
    "It isn't worth the back-and-forth anymore.",
)
_CANCEL = (
    *never(_PLANS, "My plans have changed, so I won't need it.", "Something came up and it no longer works for me."),
    *never(_PLANS | {HOSTED}, "I've had a change of plans at work."),
    *motives_of(
        "It turns out I don't need it anymore.",
        "I've decided to go a different way.",
        "We've decided against it after talking it over at home.",
        "I won't be using it after all.",
    ),
    # one can't make only what is still ahead, and booked by mistake only what was booked
    Motive("My schedule changed and I can't make it work.", needs=frozenset({ATTENDED}), unfit=frozenset({ARRIVED})),
    Motive("I booked it by mistake and don't need it.", needs=frozenset({ATTENDED, BOOKED})),
    *never(_PLANS, "I found another option that suits me better."),
    # giving up a charge saves money; a hold or a reminder costs nothing to keep
    *(
        Motive(t, needs=frozenset({CHARGED}), unfit=_PLANS)
        for t in ("I found something cheaper elsewhere.", "Money is tight right now, so I'm cutting back.")
    ),
    *only(
        HOSTED,
        "We've decided to call the whole thing off.",
        "We've had to call it off, so we won't need it.",
        "We've found another venue that suits us better.",
    ),
    *_SORTED,
    *only(PAYS_USER, "I'd rather leave things as they are for now."),
)
_WITHDRAW = (
    *never(
        frozenset({CLAIM, DOCUMENT, TURNED_DOWN}),
        "It fell through on my end, so there's no point going ahead.",
        "The plans behind it fell through.",
    ),
    # a request turned down is withdrawn to clear it from the record: nothing is left to go ahead with
    *only(TURNED_DOWN, "I'd rather not have it on my record at all.", "I'd rather it weren't on my file anymore."),
    *never(
        frozenset({DOCUMENT, TURNED_DOWN}),
        "I've changed my mind about going ahead with it.",
        "I've thought it over and it isn't worth pursuing anymore.",
        "My situation changed and I no longer want to pursue it.",
        "We decided not to go ahead after all.",
    ),
    # a paper sent in is taken back because it was the wrong one
    *only(
        DOCUMENT,
        "I sent in the wrong one by mistake.",
        "That's an old copy; I uploaded it by mistake.",
        "It went in by mistake, before I'd checked it.",
    ),
    *_SORTED,
)
_RETURN = (
    *never(
        frozenset({GONE}),
        "It arrived damaged.",
        "It isn't as described.",
        "It stopped working after a few days.",
        "It wasn't what I expected when I ordered it.",
        "It doesn't fit what I needed it for.",
    ),
    # a thing reported lost is returned because it turned up, not because it is faulty
    *only(
        GONE,
        "It turns out I had it all along, so I'd like to send it back.",
        "It turned up again, and I'd rather return it.",
    ),
)
_REFUND = motives_of(
    "I think I was charged twice.",
    "I didn't get what I paid for.",
    "It wasn't as described, so I don't think I should pay for it.",
    "The service wasn't what was promised.",
    "I was billed for something I didn't end up using.",
)
_PAUSE = (
    *motives_of(
        "I'm travelling for a few weeks.",
        "I'll be away for a while and won't be using it.",
        "I'm taking a short break while things settle down at home.",
        "I'm moving house and won't need it for a little while.",
    ),
    *only(CHARGED, "Money is a bit tight this month."),
)
_RESUME = motives_of(
    "I'm back home now and want to pick it up again.",
    "Things have settled down and I'm keen to carry on.",
    "I've sorted things out on my end.",
    "Work has calmed down and I'm ready to get going with it again.",
)
_REOPEN = motives_of(
    "It turns out the problem isn't sorted after all.",
    "The same problem came back.",
    "I thought it was fixed, but it's happening again.",
)
_RETRY = (
    Motive("My card was declined last week, but I've fixed it now.", presumes=True),
    Motive("The payment didn't go through, and I've since sorted out my bank.", presumes=True),
    *motives_of(
        "I've updated my card details since the last attempt.",
        "I just moved money into that account, so it should go through.",
        "I got a new card and want the payment to go through on it.",
    ),
)
RESCHEDULE = motives_of(
    "Something came up and I have a conflict then.",
    "I have a work commitment I can't move.",
    "The original time no longer works for me.",
    "I have a family event that clashes with it.",
    "My schedule changed at work.",
)
_DISPUTE = motives_of(
    "There's a charge on it I don't recognise.",
    "I don't think it's right and want it looked into.",
    "I never agreed to that.",
    "The amount looks wrong to me.",
)
_APPEAL = motives_of(
    "I think the decision was a mistake.",
    "I don't think it was fair and want it looked at again.",
    "I have more to add that I don't think was considered.",
)
_LOST = (
    *motives_of("I've looked everywhere and can't find it.", "I can't find it anywhere and I'm getting worried."),
    # what arrived (an installed box) did turn up: it was lost since
    *never(frozenset({ARRIVED}), "It never turned up on my end."),
)
# news told at once only of a record whose latest day is recent: a box of six weeks ago is no news
_DAMAGED = (
    *only(
        RECENT, "I noticed the damage as soon as I opened it.", "It got damaged and I wanted you to know straight away."
    ),
    *motives_of(
        "It's not in the state it should be, and I'm worried about it.",
        "It's in a bad way, and I'm not happy about it.",
        "The damage isn't something I can fix myself.",
    ),
)
_REPORT = (
    *only(RECENT, "I wanted to let you know as soon as I noticed."),
    *motives_of(
        "I thought you should hear it from me before it causes trouble.",
        "I'd rather flag it now than have it cause problems later.",
    ),
)
#: A part of a record replaced (a box's key, an account's card): lost or worn out, never "arrived
#: damaged" or "not what I ordered", which return a thing bought.
_REPLACE_PART = motives_of(
    "I've lost mine and need a new one.",
    "My old one has stopped working.",
    "My old one got bent and doesn't work properly anymore.",
)
_PARTS = frozenset(
    {"key", "keys", "card", "badge", "fob", "tag", "pin", "sticker", "decal", "remote", "sim", "pass", "wristband"}
)
#: A second start after a pause ("re_enroll" a paused device): taken up again, not "still needed".
_RESTARTS = frozenset({"enroll", "activate", "register", "join", "subscribe", "open", "start", "admit"})
_CONFIRM = (
    *motives_of(
        "I've gone over it and everything looks right.",
        "I'm happy with it as it is and want it locked in.",
        "I've decided to go ahead with it.",
    ),
    # a calendar decides only what happens at a time (a substitution has no day)
    *only(ATTENDED, "I've checked my calendar and it works for me."),
)
_SUBMIT = motives_of(
    "I've got everything together now.",
    "I've finished going through it and want to get it in.",
    "I'd rather get it in before I forget.",
)
_CLOSE = (
    # only a fault or a ticket can be working again or sort itself out; a licence or a registry cannot
    *only(PROBLEM, "It's working again, so I don't need it open anymore.", "The problem sorted itself out."),
    *motives_of("It's all taken care of now.", "I'm finished with it and don't need it open anymore."),
    *never(frozenset({PROBLEM}), "I don't need it anymore.", "I've stopped using it, so there's no reason to keep it."),
)
_UPGRADE = motives_of(
    "I keep running out of room on my current one.",
    "I need more than I have now.",
    "We've got a new job coming up and need more than before.",
)
_DOWNGRADE = (
    *motives_of("I'm not using it as much as I thought I would.", "I'd rather have less of it for now."),
    # a shorter leave or a smaller share saves money only where it carries a charge
    *only(CHARGED, "I'm trying to cut back on costs.", "Money is a bit tight, so something smaller would suit me."),
)
_SOONER = motives_of(
    "I need it sooner than I planned.",
    "Something came up and I can't wait as long as I thought.",
)
#: More of what a booking counts (bags, guests, hours): the party or the load grew.
_ADD_MORE = motives_of(
    "We're bringing more than we planned.",
    "It turns out I need a bit more than I booked.",
    "Our plans grew a little since I set it up.",
)
#: More nights or days of a stay.
_ADD_TIME = motives_of("We'd like to stay a little longer.", "We're enjoying it and want a bit more time there.")
#: An extra service on a booking (a liftgate, a parking pass): needed after all, not "bringing more".
_ADD_EXTRA = motives_of(
    "It turns out we'll need it after all.",
    "I didn't think of it when I set it up.",
    "I realised it would make things a lot easier.",
)
_COUNTED = frozenset(
    {"bag", "bags", "baggage", "luggage", "passenger", "passengers", "guest", "guests", "person", "people", "seat",
     "seats", "hours", "hour", "item", "items", "box", "boxes", "ticket", "tickets", "traveler", "traveller",
     "attendee", "attendees", "rider", "riders", "crew", "mover", "movers"}
)  # fmt: skip
_SPANS = frozenset({"night", "nights", "day", "days", "week", "weeks"})
_REMOVE = motives_of(
    "It doesn't need to be on there anymore.",
    "Things have changed, and it shouldn't be on there now.",
    "I'm trying to keep things simple.",
    "I've been meaning to update that.",
)
_DONATE = motives_of(
    "I don't need it, and I'd rather it went to a good cause.",
    "I'm happy for it to help others.",
)
_SKIP = motives_of(
    "I'll be away that week.",
    "I still have plenty left from the last one.",
    "I won't need that one.",
)
_DECLINE = (
    *motives_of(
        "It isn't what I was hoping for.", "I found a better offer elsewhere.", "I've decided to leave it for now."
    ),
    # too dear only where it costs something: a substitution at no extra charge is not
    Motive("It costs more than I'm willing to spend.", needs=frozenset({COSTS_USER}), unfit=frozenset({FREE})),
    *only(PAYS_USER, "It's less than I was hoping to get.", "I've decided to keep it after all."),
)
_WAIVE = motives_of(
    "It was an honest mistake and the first time it's happened.",
    "I had a family emergency that week.",
    "I don't think it was my fault, since I did everything I was asked.",
)
_STAFF = motives_of(
    "I've been waiting on it for a while and need an answer.",
    "I need it sorted before I can plan anything else.",
    "It's been held up long enough, and I'm worried about the timing.",
)
_BEGIN = motives_of(
    "I've decided to go ahead with it.",
    "I'm ready to get started now that my schedule has cleared.",
    "I've been meaning to get this going for a while, and now's a good time.",
)

#: Families by the words of a transition's name, the first word that names one deciding ("request_refund":
#: refund; "report_lost": lost). Words of the first match win over the head verb's.
_FAMILIES: dict[str, tuple[Motive, ...]] = {
    **dict.fromkeys(("lost", "missing", "stolen"), _LOST),
    **dict.fromkeys(("damage", "damaged", "broken", "discrepancy"), _DAMAGED),
    **dict.fromkeys(("refund", "reimburse", "compensate", "makegood", "credit", "comp"), _REFUND),
    **dict.fromkeys(("return", "exchange", "replace", "replacement", "remake", "take"), _RETURN),
    **dict.fromkeys(("retry",), _RETRY),
    **dict.fromkeys(
        (
            "cancel",
            "drop",
            "leave",
            "opt",
            "unenroll",
            "terminate",
            "end",
            "abandon",
            "unschedule",
            "forfeit",
            "surrender",
            "unsubscribe",
            "release",
        ),
        _CANCEL,
    ),
    **dict.fromkeys(("withdraw", "recall", "revoke"), _WITHDRAW),
    **dict.fromkeys(("pause", "suspend", "freeze", "hold", "lock", "defer", "block"), _PAUSE),
    **dict.fromkeys(
        ("resume", "unpause", "unfreeze", "unlock", "unblock", "reactivate", "reinstate", "restore", "unskip", "lift"),
        _RESUME,
    ),
    **dict.fromkeys(("reopen",), _REOPEN),
    **dict.fromkeys(("pay", "settle", "repayment", "payment", "cure"), PAY),
    "prepay": PREPAY,
    **dict.fromkeys(("renew", "re"), RENEW),
    **dict.fromkeys(("extend",), EXTEND),
    **dict.fromkeys(("reschedule", "postpone", "delay", "move", "shift", "change", "swap", "transfer"), RESCHEDULE),
    **dict.fromkeys(("dispute", "contest", "challenge", "object", "flag"), _DISPUTE),
    **dict.fromkeys(("appeal", "overturn", "review", "hearing"), _APPEAL),
    **dict.fromkeys(("report", "mark", "record"), _REPORT),
    **dict.fromkeys(("confirm", "accept", "sign", "agree"), _CONFIRM),
    **dict.fromkeys(("submit", "file", "send", "post", "mail", "apply", "request", "documents"), _SUBMIT),
    **dict.fromkeys(("close", "resolve", "complete", "archive", "dispose", "fixed"), _CLOSE),
    **dict.fromkeys(("upgrade", "increase"), _UPGRADE),
    **dict.fromkeys(("downgrade", "reduce", "shorten"), _DOWNGRADE),
    **dict.fromkeys(("expedite", "expedited", "rush", "advance"), _SOONER),
    **dict.fromkeys(("collect", "pick", "pickup"), COLLECT),
    **dict.fromkeys(("redeem", "claim", "use"), REDEEM),
    **dict.fromkeys(("redeliver",), REDELIVER),
    **dict.fromkeys(("remove",), _REMOVE),
    **dict.fromkeys(("donate",), _DONATE),
    **dict.fromkeys(("skip",), _SKIP),
    **dict.fromkeys(("add",), _ADD_EXTRA),
    **dict.fromkeys(("decline", "reject"), _DECLINE),
    **dict.fromkeys(("waive", "excuse", "dismiss"), _WAIVE),
    **dict.fromkeys(
        ("approve", "grant", "issue", "verify", "deny", "uphold", "escalate", "assess", "start", "begin"), _STAFF
    ),
    **dict.fromkeys(
        (
            "activate",
            "book",
            "enroll",
            "register",
            "join",
            "order",
            "buy",
            "reserve",
            "schedule",
            "launch",
            "go",
            "check",
            "board",
            "seat",
            "clock",
            "put",
            "make",
            "convert",
        ),
        _BEGIN,
    ),
}
#: Head verbs that say little of why ("make", "report"): a telling word after them decides.
_GENERIC_HEADS = frozenset(
    {"make", "put", "report", "request", "mark", "record", "issue", "order", "take", "send", "post", "flag", "log"}
)
#: Words later in a name that tell more than its head verb ("make_payment", "put_on_hold").
_TELLING = frozenset(
    {"lost", "missing", "stolen", "damage", "damaged", "broken", "discrepancy", "refund", "return", "replacement",
     "hold", "payment", "repayment"}
)  # fmt: skip
_CHANGE = motives_of(
    "My needs have changed since I set it up.",
    "What I picked at first doesn't suit me anymore.",
    "I've thought it over and want something different.",
)
#: Names no word of theirs places well.
#: A payment the user receives (a buyback paid into their account): waited for, never "money set aside".
PAYOUT_VERB = "receive_payout"
_NAMED: dict[str, tuple[Motive, ...]] = {
    PAYOUT_VERB: motives_of("I've been waiting on the money for it.", "I need the money before the weekend."),
    "take_down": _CANCEL,
    # a deposit comes back when the service ends or has been paid for long enough: no complaint
    "refund_deposit": motives_of(
        "I've kept up with every bill, so the deposit should come back to me.",
        "I'm closing out the account, so the deposit should be returned.",
        "I was told the deposit comes back after a year of on-time payments.",
    ),
    # a credit for a delivery that never came: it was missed, not charged twice
    "credit": motives_of(
        "It never arrived that morning.",
        "It didn't come that day, so I shouldn't pay for it.",
        "I went without it that day.",
    ),
    "check_in": motives_of("I want it out of the way before I get there.", "I'd rather not queue when I arrive."),
    "check_in_online": motives_of(
        "I want it out of the way before I get there.", "I'd rather not queue when I arrive."
    ),
    "check_out": motives_of("We're all finished and on our way home.", "I'm finished and heading off."),
    "apply_credit": motives_of(
        "I'd rather use the credit than pay out of pocket.", "I'd rather use it while I still have it."
    ),
    "apply_shop_credit": motives_of(
        "I'd rather use the credit than pay out of pocket.", "I'd rather use it before I forget."
    ),
    "apply_vision_benefit": motives_of(
        "I'd rather use the benefit than pay out of pocket.", "I'd rather use it before I forget."
    ),
}
_TIMES = frozenset({"day", "time", "date", "slot", "window", "hour"})


def family(verb: str) -> tuple[Motive, ...] | None:
    """The motives that fit a transition (``cancel``, ``request_refund``, ``report_lost``): those of
    its head verb, or of a telling word after a head that says little (what was lost or refunded),
    else None."""
    if verb in _NAMED:
        return _NAMED[verb]
    words = verb.split("_")
    if (told := kind_family(words)) is not None:
        return told
    if words[0] in ("replace", "reissue") and set(words[1:]) & _PARTS:
        return _REPLACE_PART
    if words[0] == "re" and set(words[1:2]) & _RESTARTS:
        return _RESUME
    if words[0] == "change" and not set(words) & _TIMES:  # a change of plan or size, not of when
        return _CHANGE
    if words[0] == "add" and set(words[1:]) & _COUNTED:
        return _ADD_MORE
    if words[0] == "add" and set(words[1:]) & _SPANS:
        return _ADD_TIME
    telling = next((w for w in words[1:] if w in _TELLING), None) if words[0] in _GENERIC_HEADS else None
    head = next((w for w in words if w in _FAMILIES), None)
    found = telling or head
    return _FAMILIES[found] if found is not None else None


def transition_motive(
    verb: str,
    key: str,
    *,
    refused: bool = False,
    said: frozenset[str] = frozenset(),
    record: RecordFacts | None = None,
) -> str | None:
    """Why the user asks for transition ``verb`` (``key``: what tells this request from others, so
    the same request is given the same reason, ``user|phrase`` naming the record); ``refused``: the
    agent must refuse it, so the motive may not claim the record's state; ``said``: motives the task
    gives already (two withdrawals in one task are not for the same words); ``record``: what is known
    of the record, else its kind as the phrase in ``key`` names it. None for a transition no family
    fits."""
    options = family(verb)
    facts = record if record is not None else RecordFacts.from_phrase(key)
    return pick(options, f"{verb}|{key}", refused=refused, said=said, facets=facts.facets()) if options else None
