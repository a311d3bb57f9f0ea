"""How a person singles out one of their records by a rank, in everyday words.

A generated request that names a record by a superlative of a column ("my open trade order with the
earliest expiry date", "the oil change option with the highest price") reads like a database query;
a person says "the order that expires first", "the most expensive oil change option", "my oldest
claim". This module holds those words for the columns whose meaning they carry unmistakably (a
price, an expiry, a due date, when a thing happens or happened, a size), so that a task's writer and
the quality report's reader (``envs.quality.tasks.picked_by_superlative``) agree on what names which
record. Columns it has no words for (a count left, an amount a system keeps) keep the column's name:
"the one with the most seats left" is how a person says it anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from .record_names import customer_knows, is_deadline
from .text import column_words


@dataclass(frozen=True)
class Rank:
    """One end of a column in a person's words: ``template`` holds ``{noun}`` for the record's kind
    ("the cheapest {noun}", "the {noun} that expires first"); ``marker`` is the part no other
    wording of a request shares, which says the record was named by this rank."""

    template: str
    marker: str

    @property
    def is_recency(self) -> bool:
        """Whether the rank is how people name a record anyway, by how recent it is: "my most recent
        order" (measure 111 leaves it out)."""
        return self.marker == RECENT

    def name(self, noun: str, determiner: str = "the") -> str:
        """``noun`` ranked: ``name("booked room", "my")`` gives "my earliest booked room"."""
        text = self.template.format(noun=noun)
        return f"{determiner}{text[3:]}" if text.startswith("the ") else text


#: The rank of when a record was made, at its recent end: the one rank people name their own records by.
RECENT = "most recent"
#: The first of a person's own records still to come, said as people say it: "my next lesson", where
#: every one of them is ahead (their earliest is then the next).
NEXT_WORD = "next"
#: The rank of when the thing itself happens, at its near end: "my earliest lesson".
EARLIEST = "earliest"
#: Money a record costs its owner: the larger is the dearer ("the cheapest plan").
_PRICE_WORDS = frozenset({"price", "fee", "cost", "premium", "fare", "tuition", "rent", "msrp", "dues", "charge"})
#: A rate is a price where it is charged by the period ("the cheapest monthly rate"); a "credit rate"
#: is money paid to the user.
_PERIODS = frozenset({"hourly", "daily", "nightly", "weekly", "monthly", "yearly", "annual"})
#: Money words that are no price even beside one ("refund fee"? a refund is money back). A "credit
#: cost" is a price in credits, so "credit" alone does not unmake one.
_NOT_A_PRICE = frozenset({"refund", "discount", "interest", "apr", "tax", "taxes", "balance", "deposit"})
#: First words of a column that starts a span (a window's start): "the earliest slot" means it
#: where the span's end shares the words.
_STARTS = frozenset({"start", "starts", "begins", "from", "opens", "open"})
#: Date columns of when the thing itself happens: "my earliest lesson", "the latest show".
_HAPPENS = frozenset(
    {
        "start",
        "departure",
        "show",
        "performance",
        "event",
        "scheduled",
        "hearing",
        "appointment",
        "session",
        "sitting",
        "lesson",
        "class",
        "exam",
        "visit",
        "sailing",
        "pickup",
        "inspection",
        "interview",
        "arrival",
        "check-in",
        "checkin",
        "window",
        "slot",
        "tour",
        "trip",
        "travel",
    }
)
#: Date columns of when the record was made or the thing was bought: "my oldest claim", "my most
#: recent order".
_HAPPENED = frozenset(
    {
        "purchase",
        "issue",
        "enrollment",
        "submission",
        "filing",
        "order",
        "creation",
        "posting",
        "incident",
        "loss",
        "accident",
        "transaction",
        "opened",
        "opening",
        "signed",
        "applied",
        "requested",
        "joined",
        "reported",
    }
)


def next_rank() -> Rank:
    """The earliest (:data:`EARLIEST`) of records all still to come, as their owner says it: "my next
    lesson"; a due date or an expiry ahead is no event, and "my next loan" says nothing."""
    return Rank(f"the {NEXT_WORD} {{noun}}", NEXT_WORD)


def everyday_rank(column: str, dated: bool, largest: bool) -> Rank | None:
    """The everyday words for the smallest (or ``largest``) value of ``column``, or None where only
    the column's own name says which record it is."""
    words = column_words(column).split()
    if not words:
        return None
    if dated:
        if set(column.split("_")) & {"by", "until", "till"} and "valid" not in column:
            return None  # a deadline ("pickup_by"), not when the thing happens
        head = words[0]
        if head in ("expiry", "expiration") or words[:2] == ["valid", "until"] or words[0] == "valid-until":
            verb = "expires"
        elif head == "due":
            verb = "is due"
        elif head == "renewal":
            verb = "renews"
        elif head == "end" and len(words) <= 2:
            verb = "ends"
        elif head == "expected" and len(words) <= 3:
            verb = "is expected"
        else:
            verb = ""
        if verb:
            end = ("last", "first")[not largest]
            return Rank(f"the {{noun}} that {verb} {end}", f"{verb} {end}")
        if len(words) <= 3 and head in _HAPPENS:
            word = (EARLIEST, "latest")[largest]
            return Rank(f"the {word} {{noun}}", word)
        if len(words) <= 3 and head in _HAPPENED:
            word = ("oldest", RECENT)[largest]
            return Rank(f"the {word} {{noun}}", word)
        return None
    if any(w in _NOT_A_PRICE for w in words) or len(words) > 3:
        return None
    priced = (
        words[-1] in _PRICE_WORDS
        or (words[0] in _PRICE_WORDS and words[1:2] in (["per"], ["paid"], ["due"]))
        or (words[-1] == "rate" and len(words) == 2 and words[0] in _PERIODS)
    )
    if priced:
        word = ("cheapest", "most expensive")[largest]
        return Rank(f"the {word} {{noun}}", word)
    if words in (["capacity"], ["size"], ["amount"], ["total"]):
        word = ("smallest", "largest")[largest]
        return Rank(f"the {word} {{noun}}", word)
    return None


def unmistakable_rank(column: str, dated: bool, largest: bool, others: list[tuple[str, bool]]) -> Rank | None:
    """:func:`everyday_rank` where no other ordered column of the record (``others``: name and
    whether dated) has words sharing its marker: "the cheapest plan" cannot say which of a monthly
    fee and a setup fee it means, nor "the earliest lesson" which of two times of the lesson."""
    rank = everyday_rank(column, dated, largest)
    if rank is None:
        return None
    starts = dated and bool(set(column_words(column).split()) & _STARTS)
    for other, other_dated in others:
        if other == column:
            continue
        if starts and not set(column_words(other).split()) & _STARTS:
            continue  # a span's start says "the earliest slot"; its end does not
        for end in (False, True):
            theirs = everyday_rank(other, other_dated, end)
            if theirs is not None and (theirs.marker in rank.marker or rank.marker in theirs.marker):
                # a price by the period beside another price: "the one that costs the most per
                # month" still says which (a monthly rent beside an application fee)
                return _by_the_period(column, largest)
    return rank


#: A price's period said as a person says it: "daily" "per day".
_PER = {"hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week", "monthly": "month",
        "yearly": "year", "annual": "year"}  # fmt: skip


def _by_the_period(column: str, largest: bool) -> Rank | None:
    """A price charged by a period, ranked: "the {noun} that costs the most per month"; None for
    any other column.

    >>> _by_the_period("daily_price", True).name("wheelchair")
    'the wheelchair that costs the most per day'
    """
    words = column_words(column).split()
    if len(words) != 2 or words[0] not in _PER or words[1] not in _PRICE_WORDS | {"rate"}:
        return None
    said = f"costs the {('least', 'most')[largest]} per {_PER[words[0]]}"
    return Rank(f"the {{noun}} that {said}", said)


def names_a_record(column: str, kind: str, own: bool) -> bool:
    """Whether a person singles out a record by the ends of ``column`` (of attribute ``kind``): of
    their ``own`` records, by what they know of them (when, what it cost, a count they chose: "my
    oldest claim", "my booking with the most nights"); of anyone's (a flight, a class, a caregiver),
    only by when it is or what it costs ("the earliest departure", "the cheapest pass") or its size
    ("the largest room"). Never by another party's capacity ("the caregiver with the fewest open
    hours", "the class with the most seats left"), a counter or a score the system keeps."""
    dated = kind in ("date", "datetime")
    if dated and is_deadline(column_words(column).split()):
        return False  # a limit the business sets: "the earliest hold-until date" picks nothing a person would
    if everyday_rank(column, dated, False) is not None and not dated:
        return True  # a price or a size: "the cheapest pass" (its pass price), "the largest room"
    if not customer_knows(column, kind):
        return False
    return own or dated or kind == "money"
