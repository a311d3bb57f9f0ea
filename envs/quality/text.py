"""Text rules of the quality report: what a user's words already say.

Two measures read the user's words: whether a ``reveal_if_asked`` fact is already stated by the
instruction, and whether a write task's target record can be singled out from what the user says.
Both compare NFKC-normalized, lower-cased text, and match values on word boundaries so ``10`` is
never found inside ``100``. The rules are documented in docs/synthesis.md ("Quality report").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from .spoken import spoken_spellings

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+(?:['.\-]\w+)*")
# A number standing alone: not part of a word, an email, a date (2025-11-05) or a time (10:30).
_NUMBER = re.compile(r"(?<![\w.@/:\-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w@:\-]|\.\d)")
_QUOTED = re.compile(r"(?<!\w)['\"]([^'\"\n]{1,80}?)['\"](?!\w)")
_EMAIL = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
# An id or code: letters and digits together (A0007, #W6445775, SHT-167074006, 500ml).
_CODE = re.compile(r"(?<![\w#])#?(?=[\w\-]*\d)(?=[\w\-]*[A-Za-z])[A-Za-z0-9]+(?:[\-_][A-Za-z0-9]+)*(?!\w)")
_CAPITALIZED = re.compile(r"(?<![\w'])[A-Z][\w'\-]*")
_SENTENCE_END = re.compile(r"[.!?:]\s*$")
_TITLES = {"dr", "mr", "mrs", "ms", "st", "prof"}
# Capitalized words that are not names: pronouns, and day and month names, which say *when* loosely
# ("any time on Wednesday works") rather than naming a value the instruction could repeat.
_NOT_NAMES = {
    "i", "i'm", "i'd", "i'll", "i've", "ok", "okay",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
}  # fmt: skip
#: A fact whose last words are found verbatim in the instruction, at least this many of them (and at
#: least half the fact), is stated there, e.g. "The request is about my booking with cabin business."
MIN_SHARED_RUN = 4


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``: long vocabularies read better as prose."""
    return frozenset(text.split())


def normalize(text: str) -> str:
    """NFKC, straight quotes, lower case, runs of whitespace collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)).strip().lower()


def numbers_in(text: str) -> set[float]:
    """Values of the numbers standing alone in ``text`` ("1,234.50" -> 1234.5)."""
    return {float(m.group(1).replace(",", "")) for m in _NUMBER.finditer(text)}


def mentions(text: str, value: str) -> bool:
    """Whether normalized ``value`` occurs in normalized ``text`` with word boundaries on both sides."""
    return bool(value) and re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text) is not None


def distinctive_values(fact: str) -> tuple[list[str], list[float]]:
    """The values that make a fact specific: quoted strings, emails, dates, times, ids/codes and
    capitalized names (as normalized text), and the remaining numbers (as values).

    >>> distinctive_values("My new email is a.b@x.org and my code is 'Blue Fox', order #W12, 2 items")
    (['blue fox', 'a.b@x.org', '#w12'], [2.0])
    """
    text = unicodedata.normalize("NFKC", fact).translate(_QUOTES)
    found: list[str] = []
    for pattern in (_QUOTED, _EMAIL, _ISO_DATE, _TIME, _CODE):
        for m in pattern.finditer(text):
            found.append(normalize(m.group(1) if pattern is _QUOTED else m.group(0)))
        # blank out what was taken, so the digits of a date or code are not taken again as numbers
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    numbers = [float(m.group(1).replace(",", "")) for m in _NUMBER.finditer(text)]
    for m in _CAPITALIZED.finditer(text):
        before = text[: m.start()]
        last_word = before.rstrip(" .").rsplit(" ", 1)[-1].lower()
        sentence_start = not before.strip() or (_SENTENCE_END.search(before) and last_word not in _TITLES)
        word = m.group(0).lower()
        if not sentence_start and len(word) > 1 and word not in _NOT_NAMES and word not in _TITLES:
            found.append(word)
    return found, numbers


def _shared_ending(a: list[str], b: list[str]) -> int:
    """How many of the last words of ``a`` occur, in a row, in ``b``: the longest run of consecutive
    words shared by both that ends with ``a``'s last word."""
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                current[j] = previous[j - 1] + 1
        previous = current
    return max(previous)


def fact_in_instruction(fact: str, instruction: str) -> bool:
    """Whether the instruction already states a ``reveal_if_asked`` fact: the whole fact appears in
    it; or the fact has distinctive values and every one appears in it; or most of the fact appears
    verbatim: its last words (at least ``MIN_SHARED_RUN`` and half the fact's words) appear in a row.
    The run must end the fact, where its particular value is: "my care visit with Robert Chapman"
    is not stated by "my care visit with Kevin Sexton"."""
    said = normalize(instruction)
    whole = normalize(fact).rstrip(" .!?;,")
    if not whole:
        return False
    if mentions(said, whole):
        return True
    texts, numbers = distinctive_values(fact)
    if texts or numbers:
        said_numbers = numbers_in(said)
        if all(mentions(said, t) for t in texts) and all(n in said_numbers for n in numbers):
            return True
    fact_words = _WORD.findall(whole)
    run = _shared_ending(fact_words, _WORD.findall(said))
    return run >= MIN_SHARED_RUN and 2 * run >= len(fact_words)


@dataclass(frozen=True, slots=True)
class Feature:
    """One describable value of a record: ``key`` identifies it for comparison with sibling records
    (where it comes from and its canonical value); ``spellings`` are how a user may write it."""

    key: tuple[Any, ...]
    spellings: tuple[str, ...] = ()
    number: float | None = None

    def said_in(self, text: str, numbers: set[float]) -> bool:
        """Whether ``text`` (normalized; ``numbers`` = its numbers) mentions this value."""
        if self.number is not None:
            return self.number in numbers
        return any(mentions(text, s) for s in self.spellings)


def value_features(origin: tuple[str, ...], column_type: str, value: Any) -> Iterable[Feature]:
    """The features of one column value. Booleans and JSON are never a description a user gives; a
    datetime is two features (its date and its HH:MM time), since users name either."""
    if value is None or column_type in ("boolean", "json"):
        return []
    if column_type in ("integer", "real") and isinstance(value, int | float):
        return [Feature((*origin, "number", float(value)), number=float(value))]
    text = normalize(str(value))
    if column_type in ("date", "datetime"):
        return _date_features(origin, text)
    if len(text) < 3 and not any(ch.isdigit() for ch in text):
        return []  # "m", "no": too short to be found on word boundaries without luck
    spellings = (text, text.replace("_", " ")) if "_" in text else (text,)
    return [Feature((*origin, "text", text), spellings)]


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _date_features(origin: tuple[str, ...], text: str) -> list[Feature]:
    """A date is named by its ISO date or in words ("February 17"), its weekday ("my Thursday
    appointment") or its month ("my February order"); a datetime also by its time ("09:30", "9:30
    AM"). Each is a feature of its own, so a sibling on another Thursday still fits "Thursday"."""
    out = [Feature((*origin, "date", text[:10]), (text[:10], *spoken_spellings(text[:10])))]
    try:
        day = date.fromisoformat(text[:10])
    except ValueError:
        return out
    weekday, month = _WEEKDAYS[day.weekday()], MONTHS[day.month - 1]
    out.append(Feature((*origin, "weekday", weekday), (weekday,)))
    if month != "may":  # "I may need ..." would name it by chance
        out.append(Feature((*origin, "month", month), (month,)))
    if len(text) >= 16:
        out.append(Feature((*origin, "time", text[11:16]), (text[11:16], *spoken_spellings(text[11:16]))))
    return out


#: Verbs a timestamp column is named after, as the noun a person uses ("departs_at": departure time).
_EVENT_NOUNS = {"departs": "departure", "arrives": "arrival", "starts": "start", "ends": "end", "opens": "opening",
                "closes": "closing", "begins": "beginning", "expires": "expiry", "leaves": "departure"}  # fmt: skip


#: The noun of the event a date column is named for, by the word before ``_on`` / ``_at``
#: ("renews_on" is the renewal date; "incurred_on" just the date).
_DATE_EVENTS = {
    "served": "service",
    "departs": "departure",
    "departed": "departure",
    "arrives": "arrival",
    "arrived": "arrival",
    "renews": "renewal",
    "renewed": "renewal",
    "starts": "start",
    "started": "start",
    "ends": "end",
    "ended": "end",
    "expires": "expiry",
    "issued": "issue",
    "delivered": "delivery",
    "posted": "posting",
    "placed": "order",
    "ordered": "order",
    "purchased": "purchase",
    "paid": "payment",
    "returned": "return",
    "shipped": "shipping",
    "booked": "booking",
    "created": "creation",
    "submitted": "submission",
    "filed": "filing",
    "opened": "opening",
    "closed": "closing",
    "received": "receipt",
    "completed": "completion",
    "registered": "registration",
    "enrolled": "enrollment",
    "approved": "approval",
    "billed": "billing",
    "sold": "sale",
    "signed": "signing",
    "visited": "visit",
    "occurred": "",
    "incurred": "",
    "performed": "",
}


def column_words(column: str) -> str:
    """A column as a person names it: ``lesson_at`` is the "lesson time", ``due_on`` the "due date",
    ``departs_at`` the "departure time", ``renews_on`` the "renewal date"."""
    suffix = ""
    if column.endswith("_at"):
        column, suffix = column[:-3], " time"
    elif column.endswith("_on"):
        column, suffix = column[:-3], " date"
    words = [_EVENT_NOUNS.get(w, w) for w in column.split("_")]
    if suffix and words[-1] in _DATE_EVENTS:
        words = [*words[:-1], _DATE_EVENTS[words[-1]]]
    return " ".join(w for w in words if w) + suffix if any(words) else suffix.strip()


#: Units a column name ends in that a person leaves out when ranking ("the most data used", not "the
#: largest data used gb"); data units rank as an amount of something, the rest as a measure.
_DATA_UNITS = frozenset({"gb", "mb", "kb", "tb"})
_MEASURE_UNITS = frozenset({"kg", "lbs", "lb", "km", "mi", "cm", "mm", "kw", "kwh", "pct", "usd"})
_TIME_UNITS = frozenset({"seconds", "secs", "minutes", "mins"})
#: Words after a counted noun that keep it the thing counted: "the most seats left".
_COUNT_TAILS = frozenset(
    {
        "left",
        "available",
        "remaining",
        "free",
        "open",
        "used",
        "paid",
        "worked",
        "redeemed",
        "claimed",
        "spent",
        "completed",
        "subscribed",
        "purchased",
        "requested",
        "booked",
        "reserved",
        "issued",
        "owed",
        "authorized",
    }
)
#: Nouns ranked as an amount ("the most luggage space left", "the least data used").
_MASS_NOUNS = frozenset({"data", "space", "storage", "credit", "time", "playtime"})
#: Head nouns with words of their own: ("smallest", "largest") for a size.
_HEAD_WORDS = {
    "size": ("smallest", "largest"),
    "capacity": ("smallest", "largest"),
    "duration": ("shortest", "longest"),
    "length": ("shortest", "longest"),
    "distance": ("shortest", "longest"),
    "weight": ("lightest", "heaviest"),
}
#: Words a date column ends in that need a noun after them: "the earliest return-by date".
_OPEN_DATE_WORDS = frozenset({"until", "by", "from", "for", "to", "due", "till"})
_NOT_PLURAL = frozenset({"gross", "bonus", "status", "plus", "bus", "gas", "canvas", "series", "news", "class"})


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _NOT_PLURAL


def superlative(column: str, dated: bool, largest: bool) -> str:
    """How a person ranks records by a column, without "the": ``expires_on`` gives "earliest
    expiry date", ``travel_days_left`` "most travel days left", ``data_used_gb`` "least data used",
    ``duration_seconds`` "shortest duration", ``valid_until`` "latest valid-until date", ``price``
    "highest price". The same words make a task's selector and read it back in the quality report."""
    words = column_words(column).split()
    if dated:
        if words and words[-1] in _OPEN_DATE_WORDS:
            joiner = " " if words[-1] == "due" else "-"
            words = [joiner.join(words), "time" if column.endswith(("_at", "_time")) else "date"]
        return f"{('earliest', 'latest')[largest]} {' '.join(words)}"
    pair = ("lowest", "highest")
    if len(words) > 1 and words[-1] in _DATA_UNITS | _MEASURE_UNITS | _TIME_UNITS:
        unit = words.pop()
        if unit in _DATA_UNITS:
            pair = ("least", "most")
        elif unit in _TIME_UNITS:
            pair = ("least", "most") if words[-1] in _MASS_NOUNS else ("shortest", "longest")
    if len(words) > 1 and words[-2] in _HEAD_WORDS and words[-1] in ("hours", "days", "nights", "weeks"):
        words.pop()  # "the longest duration", not "the most duration hours"
    head = words[-1] if words else ""
    counted = _plural(head) or (len(words) > 1 and head in _COUNT_TAILS and _plural(words[-2]))
    if head in _HEAD_WORDS:
        pair = _HEAD_WORDS[head]
    elif counted:
        pair = ("fewest", "most")
    elif head in _MASS_NOUNS or (len(words) > 1 and head in _COUNT_TAILS and words[-2] in _MASS_NOUNS):
        pair = ("least", "most")
    return f"{pair[largest]} {' '.join(words)}"
