"""The details of a request as a person gives them: "I'd like to pay by check.", "It's a roof
project.", "It's valued at $5,017.17.", "Please move it to March 24 at 10 AM.", "It's for 2 bags.".

Never a form's field and its value ("Please make the project type roof.", "The valuation is
5017.17."). Each keeps the whole value: a day in another year than today's is said with its year, an
amount to the cent, so the gold call's arguments follow from the words alone. The wording of a
detail is chosen by a hash of it, never drawn from the task generator's RNG, so the tasks drawn after
it do not depend on how it is said.
"""

from __future__ import annotations

import re
import zlib
from datetime import date
from typing import Any

from envs.quality.spoken import spoken_money, spoken_when
from envs.quality.text import column_words

from .field_sentences import MORE, agreeing, counted_detail, picked, spoken_code

#: Units a count is said in: "for 2 hours", not "the number of hours should be 2".
_UNITS = frozenset({"minutes", "hours", "days", "nights", "weeks", "months", "years"})
#: Units that alone name how long a thing lasts ("hours": 2); "days" alone may be a shift or a wait.
_LENGTHS = frozenset({"minutes", "hours", "nights"})
_ISO = re.compile(r"\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d)?)?")
#: Text a user dictates word for word (a reason, a note): quoted, as people give it to an agent.
_DICTATED = frozenset(
    {"reason", "note", "notes", "comment", "comments", "details", "description", "message", "case", "instructions",
     "feedback", "review", "summary", "explanation", "remarks", "request", "justification", "statement", "bio"}
)  # fmt: skip
#: Words of a column that hold money: said with its sign ("a limit price of $51.41").
_MONEY = frozenset(
    {"amount", "price", "cost", "fee", "valuation", "value", "budget", "deposit", "total", "payment", "balance",
     "premium", "salary", "income", "rent", "limit", "bid", "offer", "tip", "charge", "fare", "refund", "earnest",
     "payout", "wage", "fees", "dues", "rate", "money", "cash", "spend", "spending", "allowance", "contribution",
     "estimate"}
)  # fmt: skip
#: Columns that say how the user pays: "I'd like to pay by check."
_PAYING = frozenset({"method", "payment_method", "pay_method", "funding_method", "deposit_method", "paid_with"})
#: Last words of a column that name what kind of thing a record is: "It's a roof project."
_KINDS = frozenset({"type", "kind", "category", "class"})
#: Things whose kind is itself their name: "It's a van.", not "It's a van vehicle."
_NAMED_BY_KIND = frozenset({"vehicle", "device", "appliance", "animal", "pet", "equipment"})


def said(name: str, value: Any, options: list[str]) -> str:
    """One of ``options``, the same for the same detail (a hash, not the generator's RNG)."""
    return options[zlib.crc32(f"{name}={value}".encode()) % len(options)]


def dictated(name: str, value: Any) -> bool:
    """Whether ``value`` is text the user gives word for word: a field for prose (a reason, a
    note), or a sentence in any field (it ends like one, or runs to six words or more)."""
    if not isinstance(value, str):
        return False
    return name.split("_")[-1] in _DICTATED or value.endswith((".", "!", "?")) or len(value.split()) >= 6


#: A reason the system keeps as a code ("not_received", "extended_travel"): one of a list, not prose.
_CODE = re.compile(r"[a-z]+(?:[ _][a-z]+){0,3}")


def coded_reason(name: str, value: Any) -> str | None:
    """A reason kept as a code, given as the user's own reason rather than text for the agent to
    type in: "It was not received.", "It falls under extended travel.", not 'Please put
    "extended travel" as the reason.' (which of the tool's codes it is, the agent works out). None
    for any other detail, and for a reason in prose, which the record keeps word for word."""
    if name.split("_")[-1] != "reason" or not isinstance(value, str) or not _CODE.fullmatch(value):
        return None
    words = value.replace("_", " ")
    if words.startswith("not "):  # "It was not my service."
        return f"It was {words}."
    return f"It falls under {words}."  # one of a list: the agent finds which of the tool's codes it is


def quoted(value: str) -> str:
    """``value`` in quotes, ending the sentence: a value that ends in a stop needs no second one."""
    return f'"{value}"' if value.endswith((".", "!", "?")) else f'"{value}".'


def is_money(name: str, value: Any) -> bool:
    """Whether a number given for ``name`` is an amount of money ("limit_price", "valuation")."""
    return isinstance(value, int | float) and not isinstance(value, bool) and bool(set(name.split("_")) & _MONEY)


def spoken_value(name: str, value: Any, today: date | None = None) -> str:
    """A value as a person says it in a sentence: a date or time in words, money with its sign."""
    if isinstance(value, str) and _ISO.fullmatch(value):
        return spoken_when(value, today)
    if is_money(name, value):
        return spoken_money(float(value))
    return str(value)


def _an(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _counted(name: str, value: int) -> str | None:
    """A count: "It's for 2 hours.", "I'd like 1 more night.", "It's for 2 bags."."""
    what = column_words(name)
    words = what.split()
    if words and words[-1] in _UNITS:
        *kind, last = words
        unit = last[:-1] if value == 1 else last
        if kind in (["duration"], ["length"]) or (not kind and last in _LENGTHS):
            return f"It's for {value} {unit}."
        if kind and kind[0] in MORE:  # "extra_hours": "I'd like 3 more hours.", not a form's "3 extra hours"
            return f"I'd like {value} {' '.join(['more', *kind[1:], unit])}."
        if kind:
            return said(name, value, [f"The {' '.join(kind)} should run {value} {unit}.", f"I'm after {value} {unit}."])
    noun = agreeing(what, value)
    return said(name, value, [f"It's for {value} {noun}.", f"I need {value} {noun}."])


#: First words of a yes-or-no column that are verbs: "donate_papers" is done, not switched on.
SWITCH_VERBS = frozenset(
    {"donate", "send", "include", "allow", "receive", "share", "notify", "skip", "keep", "leave", "add", "use",
     "require", "request", "email", "text", "call", "print", "deliver", "waive", "hold", "ship", "gift"}
)  # fmt: skip


#: Participles of a thing the user has done themselves: "I've uploaded the invoice.", not "I'd like
#: the invoice uploaded.".
_DONE = frozenset({"uploaded", "attached", "signed", "submitted", "enclosed", "provided", "scanned", "sent"})
#: Participles of a leave the user gives: "You have my permission for access.".
_GRANTED = frozenset({"permitted", "allowed", "granted", "authorized", "authorised"})


def switched(name: str, value: bool) -> str:
    """A yes-or-no detail in a person's words: "Please donate the papers." for a column that is a verb,
    "I'll need a loaner." for one that is asked for, "I'd like the card frozen." for one that is a
    state, "There are allergies to note." for ``has_``; "I'd like autopay on." for a thing switched
    on or off."""
    what = column_words(name)
    words = what.split()
    if words[0] == "has" and len(words) > 1:
        rest = " ".join(words[1:])
        return f"There are {rest} to note." if value else f"There are no {rest}."
    if words[0] in SWITCH_VERBS and len(words) > 1:
        return f"Please {what}." if value else f"Please don't {what}."
    if len(words) > 1 and words[-1] in ("requested", "needed", "wanted"):  # "I'll need a loaner."
        thing = " ".join(words[:-1])
        return f"I'll need {_an(thing)} {thing}." if value else f"I won't need {_an(thing)} {thing}."
    if len(words) > 1 and words[-1] in _DONE:  # the user did it: "I've uploaded the invoice."
        thing = " ".join(words[:-1])
        return f"I've {words[-1]} the {thing}." if value else f"I haven't {words[-1]} the {thing} yet."
    if len(words) > 1 and words[-1] in _GRANTED:  # "access_permitted": the user's leave, no state to set
        thing = " ".join(words[:-1])
        return f"You have my permission for {thing}." if value else f"I don't give permission for {thing}."
    if len(words) > 1 and words[-1].endswith("ed"):
        thing, state = " ".join(words[:-1]), words[-1]
        return f"I'd like the {thing} {state}." if value else f"I don't want the {thing} {state}."
    return f"I'd like {what} {'on' if value else 'off'}."


def detail(name: str, value: Any, today: date | None = None) -> str:
    """A detail of a request, as a user gives it (see the module doc); ``today``: the clock's day, so
    a day this year is said without its year."""
    if isinstance(value, bool):
        return switched(name, value)
    if isinstance(value, int) and name.endswith("s"):
        return _counted(name, value) or ""
    what = column_words(name)
    if (why := coded_reason(name, value)) is not None:
        return why
    if dictated(name, value):
        if value.endswith((".", "!", "?")):  # 'For the note, please put "Ring twice."', no second stop
            return said(
                name, value, [f'Please put this as the {what}: "{value}"', f'For the {what}, please put "{value}"']
            )
        return said(
            name,
            value,
            [
                f'Please put "{value}" as the {what}.',
                f'For the {what}, please put "{value}".',
                f'The {what} is "{value}".',
            ],
        )
    shown = spoken_value(name, value, today)
    if isinstance(value, str) and _ISO.fullmatch(value):
        first_word = what.split()[0]
        if first_word == "new":  # a record moved: "Please move it to March 24 at 10 AM."
            return said(name, value, [f"Please move it to {shown}.", f"{shown} would suit me better."])
        if first_word in ("preferred", "requested", "desired"):  # "I'd like it on March 24."
            return said(name, value, [f"I'd like it on {shown}.", f"{shown} would suit me best."])
        return said(name, value, [f"For the {what}, {shown} works for me.", f"I'm thinking {shown} for the {what}."])
    if is_money(name, value):
        if what.split()[-1] in ("valuation", "value"):
            return f"It's valued at {shown}."
        if what == "amount":  # "It's for $23.86.", not "An amount of $23.86, please."
            return said(name, value, [f"It's for {shown}.", f"It comes to {shown}."])
        return said(
            name,
            value,
            [f"I'm looking at {_an(what)} {what} of {shown}.", f"{_an(what).capitalize()} {what} of {shown}, please."],
        )
    if name in _PAYING:
        return f"I'd like to pay by {shown}."
    words = what.split()
    if isinstance(value, str) and words[-1] in _KINDS and value == value.lower():
        noun = " ".join(words[:-1])
        if noun and shown[:3] == noun[:3]:  # loss_type lost: "It was lost.", not "It's a lost loss."
            return f"It was {shown}."
        shown = spoken_code(shown)  # "It's an EP release.", not "an ep release"
        spaced = shown.replace("_", " ")
        if noun and (spaced.split()[-1] == noun.split()[-1] or noun in _NAMED_BY_KIND):
            return f"It's {_an(spaced)} {spaced}."  # "It's a brake service.", not "… service service"
        return f"It's {_an(shown)} {shown} {noun}." if noun else f"It's the {shown} {words[-1]}."
    if isinstance(value, str) and "@" in value and words[-1] in ("email", "address"):
        owner = " ".join(words[:-1])  # "The recommender's email is …", not "I'd like the … recommender email."
        return f"The {owner}'s email is {value}." if owner else f"The email is {value}."
    if isinstance(value, str) and value == value.lower() and not any(ch.isdigit() for ch in value):
        return picked(name, value)  # "It's a Jeep.", not "I'd go with jeep for the make."
    if isinstance(value, int | float):
        return counted_detail(name, value)
    if len(words) >= 2 and words[-1] == "name" and re.fullmatch(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)+", str(value)):
        return f"The {' '.join(words[:-1])} is {shown}."  # "The recommender is Patricia Watkins."
    return f"The {what} is {shown}."  # an address, a code: "The pickup address is 14 Elm Street."
