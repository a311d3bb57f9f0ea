"""A detail picked from a list, said as a person says it: "It's a Jeep.", "It's silver.", "They're my
spouse.", "I'd like 5 kW released.", "Saturday would suit me better.", "I'd like the standard service level.".

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
        # "They're my other." is the form's catch-all read out: a person says who they are not
        return "They're not a relative of mine." if shown == "other" else f"They're my {shown}."
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


#: Units said in their own spelling: "5 kW", not "5 kw".
_UNIT_SPELLING = {"kw": "kW", "kwh": "kWh", "mw": "MW", "gb": "GB", "mb": "MB", "tb": "TB"}
#: Units a column names before what is done with them: "kw_released", "miles_claimed".
_AMOUNT_UNITS = frozenset(
    {"kw", "kwh", "mw", "miles", "points", "hours", "units", "credits", "gb", "mb", "tb", "minutes", "days", "shares"}
)  # fmt: skip
#: First words of a column for a count on top of one already held: "extra_hours", said "3 more hours".
MORE = frozenset({"additional", "extra", "more"})


def _singular(noun: str) -> str:
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("ses", "xes", "ches", "shes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


def agreeing(noun: str, value: int | float) -> str:
    """A plural ``noun`` in the number ``value`` says: "1 hour", "2 hours", never "1 hours"."""
    return _singular(noun) if value == 1 else noun


def _plural(noun: str, value: int | float) -> str:
    if value == 1 or noun in _UNIT_SPELLING.values():
        return noun
    return noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


def counted_detail(name: str, value: int | float) -> str:
    """A number that is no money and no count of a unit, as a sentence: "It weighs 3 kg.", "We'll be
    4 people.", "I'd like 5 kW released.", "They should get 10% of it.", "There are 2 packages.",
    else "For the estimate, it's 2." (a field's label, measure 86)."""
    what = column_words(name)
    words = what.split()
    kinds = set(words)
    spelled = [_UNIT_SPELLING.get(w, w) for w in words]
    if "weight" in kinds:
        unit = "lb" if kinds & {"lb", "lbs", "pounds"} else "kg"
        return f"It weighs {value} {unit}."
    if kinds & {"party", "attendance", "headcount", "guests", "people"}:
        if value == 1:  # "We'll be 1 people." is a form's count read out
            return "We expect 1 person." if "expected" in kinds else "It's just 1 person."
        return f"We expect {value} people." if "expected" in kinds else f"We'll be {value} people."
    if "household" in kinds:
        return "It's just me at home." if value == 1 else f"There are {value} of us at home."
    if kinds & {"percent", "percentage", "pct"}:
        return f"They should get {value}% of it." if "share" in kinds else f"I'd like it at {value}%."
    if len(words) == 2 and words[0] in MORE:  # "additional_kw": "I'd like 5 more kW."
        return f"I'd like {value} more {agreeing(spelled[1], value)}."
    if len(words) == 2 and words[0] in _AMOUNT_UNITS and words[1].endswith("ed"):
        if words[1] == "expected":  # "units_expected": "We're expecting 2 units."
            return f"We're expecting {value} {agreeing(spelled[0], value)}."
        return f"I'd like {value} {agreeing(spelled[0], value)} {words[1]}."  # "I'd like 5 kW released."
    if len(words) == 2 and words[1] == "count":  # "package_count": "There are 2 packages."
        thing = _plural(words[0], value)
        return f"There's {value} {thing}." if value == 1 else f"There are {value} {thing}."
    if words and words[-1] == "number" and len(words) > 1:  # "dose_number": "It's dose number 2."
        return f"It's {what} {value}."
    if words == ["rating"]:
        return f"I'd rate it {value}."
    return f"For the {what}, it's {value}."
