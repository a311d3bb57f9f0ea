"""What a motive must not contradict: the kind of record it is given for, who pays whom, and where
the record stands (overdue or not yet due, the amount against what is owed).

A motive is fitted by the verb's family in :mod:`.motives`; within a family some reasons fit only
some records. "It costs more than I'm willing to spend" declines a quote, not a trade-in offer the
dealer pays; "The plans behind it fell through" withdraws an application, not a repair claim; "My
schedule changed and I can't make it work" calls off an appointment, not one's own wedding; "rather
than be late with it" pays a bill not yet due, and "I just got paid, so I can clear it now" pays off a
balance, not a deposit of a few dollars. Each such motive names the *facets* it needs or does not
fit, and a record has facets read from the words that name it (its kind) and, where the caller has
the row, from its state (:meth:`RecordFacts.of_row`). A motive that needs a facet is used only when
the record is known to have it, so without the row the family's neutral reasons are chosen.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from envs.quality.motive_fit import SOON_DAYS

#: A redress for something past, asked of the business: its motives are about the matter, not plans.
CLAIM = "claim"
#: An occasion the user hosts (a wedding, a banquet): they do not "make it" to their own event.
HOSTED = "hosted"
#: Something the user attends or uses at a time (an appointment, a booking, a lesson).
ATTENDED = "attended"
#: Money the business pays the user (a trade-in offer, a payout, a refund).
PAYS_USER = "pays_user"
#: Something the user pays for (a quote, an upgrade, a substitution).
COSTS_USER = "costs_user"
#: The record's due day has passed and it is unpaid.
OVERDUE = "overdue"
#: The record is owed but not yet due.
BEFORE_DUE = "before_due"
#: The request pays off what is owed, and it is a sum worth waiting for a pay day for.
CLEARS = "clears"
#: The request pays part of what is owed.
PART = "part"
#: The record's due, end or expiry day is near (within ``SOON_DAYS``): "I don't want a gap", "rather
#: than be late" are said of a loan due next week, not of one due in three months.
DUE_SOON = "due_soon"
#: The record's span (a trip, a loan, a stay) has begun: only then has anything "taken longer".
STARTED = "started"
#: The record carries a charge (a price, a rate, a fee): only then does money tight, or something
#: cheaper, explain giving it up. A vacation hold or a reminder costs nothing.
CHARGED = "charged"
#: The record carries charges and every one is zero (a substitution at no extra cost): nothing about
#: it "costs more than I'm willing to spend".
FREE = "free"
#: The record recurs (a monthly rent, a billing cycle): only then is there a "next stretch" to pay.
RECURRING = "recurring"
#: Where the record's status stands (:mod:`envs.quality.motive_premises`, measure 104): it arrived
#: or happened (nothing "never turned up", no one "can't make it"); it is booked (only then "I booked
#: it by mistake"); it is lost (nothing about it "stopped working"); it was turned down (nothing is
#: left to "go ahead" with).
ARRIVED = "arrived"
BOOKED = "booked"
GONE = "gone"
TURNED_DOWN = "turned_down"
_ARRIVED_STATES = frozenset(
    {"delivered", "collected", "picked_up", "received", "completed", "installed", "fulfilled", "redeemed", "used",
     "attended", "done", "finished", "no_show", "checked_out", "returned", "return_pending"}
)  # fmt: skip
_BOOKED_STATES = frozenset(
    {"booked", "confirmed", "scheduled", "reserved", "enrolled", "registered", "ticketed", "planned", "upcoming",
     "placed", "active", "accepted", "paid"}
)  # fmt: skip
_GONE_STATES = frozenset({"lost", "stolen", "missing"})
_TURNED_DOWN_STATES = frozenset({"denied", "declined", "rejected", "refused"})
#: Words of a record of taking part in someone else's event: its venue is not the user's to change.
_TAKING_PART_WORDS = frozenset({"participation", "registration", "attendance", "rsvp", "attendee", "enrollment"})
#: Cover against something going wrong (a warranty, a guarantee, insurance): it is used because
#: something went wrong, not "before I forget".
COVER = "cover"

#: A paper the user sent in (a document, an upload, an attachment): withdrawn because it was the
#: wrong one, not because plans fell through (the seed-83 review: "it fell through" of a document).
DOCUMENT = "document"
#: An offer or a quote the user decides on by a deadline.
DECISION = "decision"

#: The record's latest day so far is within ``SOON_DAYS`` of today: only then did the user write
#: "straight away" or "as soon as I opened it" (a box delivered six weeks ago is no news).
RECENT = "recent"

_CLAIM_WORDS = frozenset(
    {"claim", "dispute", "appeal", "complaint", "grievance", "correction", "reimbursement", "expense",
     "compensation", "chargeback", "rebate"}
)  # fmt: skip
_DOCUMENT_WORDS = frozenset({"document", "upload", "attachment", "scan", "paperwork", "file"})
#: Records one decides on by a deadline: more time for them is time to decide, not to use them longer.
_DECISION_WORDS = frozenset({"offer", "counteroffer", "quote", "proposal", "bid"})
_HOSTED_WORDS = frozenset(
    {"event", "wedding", "party", "banquet", "celebration", "reception", "ceremony", "gala", "fundraiser"}
)
_ATTENDED_WORDS = frozenset(
    {"appointment", "booking", "reservation", "lesson", "session", "visit", "class", "course", "tour", "ticket",
     "drive", "showing", "interview", "exam", "consultation", "inspection", "audit", "survey", "call", "cruise",
     "ferry", "shuttle", "seat", "table", "room", "spot", "site", "test", "vaccination", "recital", "pickup",
     "delivery", "slot", "excursion", "flight", "stay", "trip", "rental", "enrollment", "registration"}
)  # fmt: skip
_PAYS_USER_WORDS = frozenset(
    {"tradein", "buyback", "payout", "refund", "rebate", "reimbursement", "compensation", "settlement", "cashback",
     "claim", "allowance", "stipend", "award", "grant", "assistance"}
)  # fmt: skip
_COSTS_USER_WORDS = frozenset(
    {"quote", "estimate", "substitution", "upgrade", "part", "parts", "line", "treatment", "repair", "plan", "order",
     "invoice", "bill", "fee", "charge", "supplement", "addon", "add", "job", "proposal"}
)  # fmt: skip
#: Something gone wrong that the business looks into (a ticket, an outage): only it "sorted itself
#: out" or is "working again".
PROBLEM = "problem"
_PROBLEM_WORDS = frozenset(
    {"ticket", "issue", "case", "complaint", "outage", "repair", "fault", "incident", "report", "maintenance",
     "problem", "defect", "breakdown", "inquiry", "query", "dispute", "grievance"}
)  # fmt: skip
#: Words that end the name of a record and start what tells it apart ("my claim *for* Aster Hotel").
_COVER_WORDS = frozenset({"warranty", "guarantee", "insurance", "coverage", "protection", "hazard"})
_QUALIFIERS = frozenset(
    {"for", "with", "from", "dated", "expiring", "starting", "ending", "on", "in", "at", "of", "to", "that",
     "whose", "which", "due", "placed", "opened", "filed", "submitted", "issued", "booked", "ordered"}
)  # fmt: skip
_OVERDUE_STATES = frozenset({"overdue", "past_due", "late", "delinquent", "in_arrears", "arrears", "defaulted"})
_SETTLED_STATES = frozenset({"paid", "settled", "closed", "cancelled", "canceled", "refunded", "void", "waived"})
_DUE_COLUMN = re.compile(r"(?:^|_)due(?:_date|_on|_by)?$|^due_")
_OWED_COLUMNS = (re.compile(r"due|balance|outstanding|owed|remaining"), re.compile(r"total"), re.compile(r"amount"))
_ENDS_COLUMN = re.compile(
    r"(?:^|_)(?:ends?|until|expires|expiry|expiration|renews|renewal|through|exit|checkout|return)(?:_|$)"
)
_STARTS_COLUMN = re.compile(r"(?:^|_)(?:starts?|begins?|departs?|departure|check_in|effective|from)(?:_|$)")
_CHARGE_COLUMN = re.compile(r"price|rate|fee|cost|premium|amount|total|balance|charge|payment|due|fare|rent|dues")
_RECURRING_COLUMN = re.compile(r"month|week|billing|period|rent|installment|recurr|frequency|cycle|renew|annual")
#: Below this a pay day is no reason to pay: "I just got paid" for a few dollars is not said.
SIZABLE = 100.0


@dataclass(frozen=True)
class Motive:
    """A reason in the user's words; ``presumes``: it says something of the record's state;
    ``needs``: facets the record must be known to have, ``unfit``: facets it must not have
    (:mod:`.motive_fit`: "costs more than I'm willing to spend" needs something the user pays for)."""

    text: str
    presumes: bool = False
    needs: frozenset[str] = frozenset()
    unfit: frozenset[str] = frozenset()

    def fits(self, facets: frozenset[str]) -> bool:
        return self.needs <= facets and not self.unfit & facets


def motives_of(*texts: str) -> tuple[Motive, ...]:
    return tuple(Motive(t) for t in texts)


def only(needs: str, *texts: str, presumes: bool = False) -> tuple[Motive, ...]:
    """Motives that fit only a record known to have facet ``needs``."""
    return tuple(Motive(t, presumes, needs=frozenset({needs})) for t in texts)


def never(unfit: frozenset[str], *texts: str) -> tuple[Motive, ...]:
    """Motives that do not fit a record with any of the facets ``unfit``."""
    return tuple(Motive(t, unfit=unfit) for t in texts)


def pick(
    options: tuple[Motive, ...],
    key: str,
    *,
    refused: bool,
    said: frozenset[str] = frozenset(),
    facets: frozenset[str] = frozenset(),
) -> str | None:
    """One of ``options`` that fits a record of ``facets``, by a hash of ``key``; one not ``said``
    already in the task where any is left."""
    usable = [m for m in options if not (refused and m.presumes) and m.fits(facets)]
    fresh = [m for m in usable if m.text not in said] or usable
    return fresh[zlib.crc32(key.encode()) % len(fresh)].text if fresh else None


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def kind_words(phrase: str) -> frozenset[str]:
    """The words of a record's name in ``phrase`` ("my trade in offer expiring on March 14": trade,
    in, offer), singular, without what tells it from others; a key ``user|phrase`` is read after
    its bar."""
    named = phrase.rsplit("|", 1)[-1].lower().replace("-", " ").replace("trade in", "tradein")
    words = re.findall(r"[a-z]+", named)
    while words and words[0] in ("my", "the", "one", "our", "a", "an", "same", "new"):
        words = words[1:]
    head: list[str] = []
    for word in words:
        if word in _QUALIFIERS and head:
            break
        head.append(_stem(word))
    return frozenset(head)


@dataclass(frozen=True)
class RecordFacts:
    """What is known of the record a request is about: the words of its kind and, with its row, its
    state against today and the amount the request moves against what is owed."""

    words: frozenset[str] = frozenset()
    overdue: bool | None = None
    amount: float | None = None
    owed: float | None = None
    due_soon: bool = False
    started: bool = False
    charged: bool = False
    recent: bool = False
    free: bool = False
    recurring: bool = False
    status: str = ""

    @classmethod
    def from_phrase(cls, phrase: str) -> RecordFacts:
        return cls(kind_words(phrase))

    @classmethod
    def of_row(cls, phrase: str, row: Mapping[str, Any], today: date, amount: float | None = None) -> RecordFacts:
        """The facts of ``row`` (named by ``phrase``) on ``today``; ``amount``: what the request pays,
        if it says (a deposit), else what is owed is paid."""
        status = str(row.get("status") or "").lower()
        overdue: bool | None = None
        if status in _OVERDUE_STATES:
            overdue = True
        elif status not in _SETTLED_STATES:
            days = [_day(v) for k, v in row.items() if _DUE_COLUMN.search(k)]
            known = [d for d in days if d is not None]
            if known:
                overdue = min(known) < today
        owed = _owed(row)
        ends = [d for k, v in row.items() if _DUE_COLUMN.search(k) or _ENDS_COLUMN.search(k) if (d := _day(v))]
        starts = [d for k, v in row.items() if _STARTS_COLUMN.search(k) if (d := _day(v))]
        past = [d for v in row.values() if isinstance(v, str) and (d := _day(v)) is not None and d <= today]
        # an estimate of labour is a charge too: a ticket with no parts yet still costs something
        charges = [v for k, v in row.items() if (_CHARGE_COLUMN.search(k) or "estimate" in k) and _number(v)]
        # the kind of record its key names too ("my participation" is an event_participation)
        key = next((k for k in row if k.endswith("_id")), "")
        return cls(
            kind_words(phrase) | frozenset(key.removesuffix("_id").split("_")) - {""},
            overdue,
            amount if amount is not None else owed,
            owed,
            due_soon=any(0 <= (d - today).days <= SOON_DAYS for d in ends),
            started=bool(starts) and min(starts) <= today,
            charged=any(_CHARGE_COLUMN.search(k) and _positive(v) for k, v in row.items()),
            recent=bool(past) and (today - max(past)).days <= SOON_DAYS,
            free=bool(charges) and not any(_positive(v) for v in charges),
            recurring=any(_RECURRING_COLUMN.search(k) for k in row),
            status=status,
        )

    def facets(self) -> frozenset[str]:
        words = self.words
        found: set[str] = set()
        hosted = bool(words & _HOSTED_WORDS) and not words & _TAKING_PART_WORDS
        claim = bool(words & _CLAIM_WORDS)
        pays_user = bool(words & _PAYS_USER_WORDS)
        if hosted:
            found.add(HOSTED)
        if claim:
            found.add(CLAIM)
        if pays_user:
            found.add(PAYS_USER)
        elif words & _COSTS_USER_WORDS:
            found.add(COSTS_USER)
        if words & _ATTENDED_WORDS and not (hosted or claim or pays_user):
            found.add(ATTENDED)
        if words & _COVER_WORDS:
            found.add(COVER)
        if words & _DOCUMENT_WORDS:
            found.add(DOCUMENT)
        if words & _DECISION_WORDS:
            found.add(DECISION)
        if words & _PROBLEM_WORDS:
            found.add(PROBLEM)
        if self.due_soon:
            found.add(DUE_SOON)
        if self.started:
            found.add(STARTED)
        if self.recent:
            found.add(RECENT)
        if self.charged or found & {COSTS_USER}:
            found.add(CHARGED)
        if self.free:
            found.add(FREE)
        status = self.status
        for facet, states in (
            (ARRIVED, _ARRIVED_STATES),
            (BOOKED, _BOOKED_STATES),
            (GONE, _GONE_STATES),
            (TURNED_DOWN, _TURNED_DOWN_STATES),
        ):
            if status in states:
                found.add(facet)
        if status.endswith("_scheduled"):
            found.add(BOOKED)
        if self.recurring:
            found.add(RECURRING)
        if self.overdue is True:
            found.add(OVERDUE)
        elif self.overdue is False:
            found.add(BEFORE_DUE)
        if self.amount is not None and self.owed is not None:
            if self.amount + 0.005 < self.owed:
                found.add(PART)
            elif self.amount >= SIZABLE:
                found.add(CLEARS)
        return frozenset(found)


def _day(value: Any) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _positive(value: Any) -> bool:
    return _number(value) and value > 0


def _owed(row: Mapping[str, Any]) -> float | None:
    for pattern in _OWED_COLUMNS:
        for column, value in row.items():
            if pattern.search(column) and isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                return float(value)
    return None
