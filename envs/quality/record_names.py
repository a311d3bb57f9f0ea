"""Which columns a customer names their own record by, and instructions that name one otherwise.

A customer names a record by what they know of it: when it is (the appointment's day, the due date,
when it ends), what it cost them, what it is called, who or where, its status. Not by an amount the
system keeps on it ("my appointment with estimate 316.37", "my card with the highest current
balance") nor by a measurement or a counter ("with system kw 13", "with the lowest times moved"),
nor by a date only the system acts on ("with the earliest disconnect date"). The task generator
reads :func:`customer_knows` (``synthesis/tasks/naming.py``, ``criteria.py``); the quality report
counts the instructions that still name a record so (measure 63, :func:`names_by_unknown_value`).
"""

from __future__ import annotations

import re

from .text import column_words, word_set

#: Words of a date column whose value the record's owner knows: when it was made, is for, starts,
#: ends or is due ("check in date", "ready-by date", "next billing date").
KNOWN_DATE_WORDS = word_set(
    """created placed requested purchased purchase ordered order issued issue filed submitted submission opened
    opening booked booking made paid payment received reported report scheduled appointment visit event service
    lesson session pickup delivery travel departure arrival sent applied signed loaned recorded incident
    performance move install installation start starts starting begins begin effective end ends ending ended
    expires expiry expiration until through due by date time at on check in out checkin checkout renewal
    release return ready hold exit entry slot test hearing next billing bill enrollment drive audit inspection
    window shift interview trip estimated expected valid"""
)
#: Words of a money column that is what the record cost its owner: "the lowest price", "the highest
#: monthly fee", "the lowest fare paid".
KNOWN_MONEY_WORDS = word_set(
    """price paid cost fee fees total amount contract purchase fare rent payment charge monthly weekly annual
    yearly per person guest night ticket basket hourly daily nightly rate asking offer tuition"""
)
#: Words of a count the owner set themselves: "the most nights", "the largest party size".
KNOWN_COUNT_WORDS = word_set(
    """nights guests party size copies seats tickets bags people passengers rooms hours days items cartons
    containers packages package count units quantity travelers"""
)
_SUPERLATIVES = "earliest|latest|highest|lowest|most|fewest|least|largest|smallest|shortest|longest|biggest"
#: "my booked reservation with the earliest check-in date", up to the next word that is no column's
#: ("by 9 days", "to Household appliances", "changed to …").
_SUPERLATIVE = re.compile(rf"\bmy [\w' -]+? with the (?:{_SUPERLATIVES}) ((?:[a-z]+(?:-[a-z]+)* ?)+)")
#: Last words of a code the customer was given ("with plate number 178552079", "with imei …"): a
#: handle of theirs, no amount.
_CODES = frozenset({"number", "imei", "vin", "code", "reference", "plate", "pin", "zip", "last4", "serial"})
_NOT_COLUMN = frozenset({"by", "to", "changed", "as", "for", "with", "and", "from", "instead", "under", "online", "at"})
#: "my appointment with estimate 316.37", "my project with system kw 13"
_VALUED = re.compile(r"\bmy [\w' -]+? with ((?:[a-z]+ ){1,3})\$?\d[\d,.]*\b")


#: Words of a date the business sets the user a limit by: a hold, a pickup-by day, a paid-through day,
#: the next billing run. The owner names a record by one ("my order held until March 4") but picks
#: none by its end: no one says "my pickup order with the earliest hold-until date".
_DEADLINE_WORDS = frozenset({"by", "until", "till", "through", "thru", "cutoff", "deadline", "hold", "grace"})


def is_deadline(words: list[str]) -> bool:
    """Whether a date column's ``words`` are a limit the business sets (see ``_DEADLINE_WORDS``), or
    its next run ("next billing date"); a "valid until" day is the record's own expiry.

    >>> is_deadline(["hold", "until"]), is_deadline(["next", "billing", "date"]), is_deadline(["valid", "until"])
    (True, True, False)
    """
    parts = {p for w in words for p in w.split("-")}
    return "valid" not in parts and (bool(parts & _DEADLINE_WORDS) or words[:1] == ["next"])


def _known_words(words: list[str], known: frozenset[str]) -> bool:
    parts = [p for w in words for p in w.split("-")]
    return bool(parts) and set(parts) <= known


def customer_knows(column: str, kind: str) -> bool:
    """Whether the owner of a record knows its ``column`` (of attribute ``kind``) well enough to
    name or rank their records by it: a date of the record's own event or term, what it cost, or a
    count they chose (nights, guests, copies)."""
    words = column_words(column).split()
    if kind in ("date", "datetime"):
        return _known_words(words, KNOWN_DATE_WORDS)
    if kind == "money":
        return _known_words(words, KNOWN_MONEY_WORDS)
    return kind in ("integer", "quantity") and _known_words(words, KNOWN_COUNT_WORDS)


def names_by_unknown_value(text: str) -> bool:
    """Whether ``text`` names the user's record by a column its owner would not name it by: a value
    of one ("my appointment with estimate 316.37") or a superlative of one ("my card with the highest
    current balance", "my account with the latest disconnect date")."""
    for m in _VALUED.finditer(text):
        valued = m.group(1).split()
        if valued[-1] not in _CODES and not _known_words(valued, KNOWN_MONEY_WORDS):
            return True
    for m in _SUPERLATIVE.finditer(text):
        words: list[str] = []
        said = m.group(1).split()
        for i, w in enumerate(said):
            # "in" of "check in date" is the column's; "in free look", "in full" start the next words
            if w in _NOT_COLUMN or (w == "in" and said[i + 1 : i + 2] not in (["date"], ["time"])):
                break
            words.append(w)
        dated = m.group(0).split(" with the ")[-1].split()[0] in ("earliest", "latest")
        if dated and is_deadline(words):
            return True
        if not _known_words(words, KNOWN_DATE_WORDS if dated else KNOWN_MONEY_WORDS | KNOWN_COUNT_WORDS):
            return True
    return False
