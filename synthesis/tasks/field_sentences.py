"""A detail picked from a list, said as a person says it: "It's a Jeep.", "It's silver.", "They're my
spouse.", "Saturday would suit me better.", "I'd like the standard service level.".

Never a choice off a form ("I'd go with jeep for the make.", "Slow speed symptom, please."; measure
64). One sentence per kind of field, read from the column's words; the value is kept whole (a
code of two letters said in capitals, "EP"), so the gold call's argument follows from the words.
"""

from __future__ import annotations

from envs.quality.text import column_words

_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
#: Two-letter words that are words, not codes ("EP", "EV", "LP" are codes, said in capitals).
_SMALL_WORDS = frozenset(
    {"of", "to", "in", "on", "at", "by", "no", "or", "an", "up", "us", "it", "is", "be", "do", "go", "me", "my",
     "we", "he", "so", "as", "if", "am", "a", "i"}
)  # fmt: skip
_MAKES = frozenset({"make", "brand", "manufacturer", "model", "carrier", "network"})
_LOOKS = frozenset({"color", "colour", "finish", "shade"})
_ANIMALS = frozenset({"species", "breed", "animal"})
_TROUBLE = frozenset({"symptom", "symptoms", "problem", "fault", "trouble"})
_TIMES_OF_DAY = frozenset({"morning", "afternoon", "evening", "night", "early", "late", "midday", "noon"})
#: Last words of a column that only qualify what the value names: "window seat", not "window seat preference".
_QUALIFIERS = frozenset({"preference", "choice", "selection"})


def _an(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def spoken_code(text: str) -> str:
    """``text`` with its two-letter codes in capitals: "ep" "EP", "ev rate" "EV rate"."""
    return " ".join(w.upper() if len(w) == 2 and w.isalpha() and w not in _SMALL_WORDS else w for w in text.split())


def picked(name: str, value: str) -> str:
    """A lower-case value of a list field (no digits) as a sentence (see the module doc)."""
    what = column_words(name)
    words = what.split()
    shown = spoken_code(value.replace("_", " "))
    last = words[-1] if words else ""
    if shown in _WEEKDAYS or shown in _TIMES_OF_DAY:
        better = "better" if "new" in words else "best"
        return f"{shown.capitalize()} would suit me {better}."
    if "new" in words:  # a record changed: "I'd like to switch to budget billing."
        return f"I'd like to switch to {shown}."
    if last in _MAKES:
        titled = " ".join(w if w.isupper() else w.capitalize() for w in shown.split())
        return f"It's {_an(titled)} {titled}."
    if last in _LOOKS:
        return f"It's {shown}."
    if last in _ANIMALS:
        return f"It's {_an(shown)} {shown}."
    if last in _TROUBLE:
        return f"What I'm seeing is {shown}."
    if last == "issue":
        return f"It's {_an(shown)} {shown} I need help with."
    if last == "relationship":
        return f"They're my {shown}."
    if last in ("ground", "grounds"):
        return f"It's on {shown} grounds."
    if last == "need":
        return f"I have {_an(shown)} {shown} need."
    if last in ("item", "occasion"):
        return "There's no special occasion." if shown == "none" else f"It's for {_an(shown)} {shown}."
    if last in ("priority", "severity", "urgency"):
        return f"I'd call it {shown} {last}."
    if last in _QUALIFIERS and len(words) > 1:
        words = words[:-1]
    return f"I'd like the {shown} {' '.join(words)}."


def counted_detail(name: str, value: int | float) -> str:
    """A number that is no money and no count of a unit, as a sentence: "It weighs 3 kg.", "We'll be
    4 people.", else "For the dose number, it's 2."."""
    what = column_words(name)
    words = set(what.split())
    if "weight" in words:
        unit = "lb" if words & {"lb", "lbs", "pounds"} else "kg"
        return f"It weighs {value} {unit}."
    if words & {"party", "attendance", "headcount", "guests", "people"}:
        return f"We expect {value} people." if "expected" in words else f"We'll be {value} people."
    return f"For the {what}, it's {value}."
