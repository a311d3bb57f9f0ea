"""What a correct final answer says, for the checks of ``envs.grading.answers``: the words that would claim a
refused action happened, and a reference answer that passes every answer check of its task.

The reference answer is what the oracle agent says and what ``check_env`` scores the gold run with;
it is plain and short, as a careful agent would write it: each refused request with its reason,
then the values the user asked for.
"""

from __future__ import annotations

import re

from .phrasing import verb_phrase

#: Past participles that do not add -ed.
_IRREGULAR = {
    "pay": ["paid"],
    "prepay": ["prepaid"],
    "repay": ["repaid"],
    "send": ["sent"],
    "resend": ["resent"],
    "buy": ["bought"],
    "hold": ["held"],
    "make": ["made"],
    "take": ["taken", "took"],
    "give": ["given", "gave"],
    "put": ["put"],
    "set": ["set"],
    "reset": ["reset"],
    "withdraw": ["withdrawn", "withdrew"],
    "choose": ["chosen", "chose"],
    "leave": ["left"],
    "lend": ["lent"],
    "begin": ["begun", "began"],
    "sell": ["sold"],
    "lose": ["lost"],
    "find": ["found"],
    "get": ["got", "gotten"],
    "keep": ["kept"],
    "split": ["split"],
    "shut": ["shut"],
    "undo": ["undone", "undid"],
    "redo": ["redone", "redid"],
    "freeze": ["frozen", "froze"],
    "unfreeze": ["unfrozen", "unfroze"],
    "write": ["written", "wrote"],
    "rewrite": ["rewritten", "rewrote"],
    "drive": ["driven", "drove"],
    "ride": ["ridden", "rode"],
    "bring": ["brought"],
    "spend": ["spent"],
    "build": ["built"],
    "rebuild": ["rebuilt"],
    "draw": ["drawn", "drew"],
    "forgive": ["forgiven", "forgave"],
    "break": ["broken", "broke"],
    "speak": ["spoken", "spoke"],
}
_VOWELS = "aeiou"


def participles(verb: str) -> list[str]:
    """The past participles of a transition's verb (its first word), both spellings where English
    has two: ``cancel_booking`` gives cancelled and canceled; ``check_in`` gives "checked in".

    >>> participles("cancel_booking"), participles("pay"), participles("check_in")
    (['canceled', 'cancelled'], ['paid'], ['checked in'])
    """
    head, *rest = verb.split("_")
    particle = f" {rest[0]}" if rest and rest[0] in ("in", "out", "up", "off", "back", "down") else ""
    if head in _IRREGULAR:
        forms = list(_IRREGULAR[head])
    elif head.endswith("e"):
        forms = [head + "d"]
    elif head.endswith("y") and len(head) > 1 and head[-2] not in _VOWELS:
        forms = [head[:-1] + "ied"]
    else:
        forms = [head + "ed"]
        # a final consonant after one vowel may double (stopped, submitted, cancelled): both are kept,
        # since a spelling nobody writes never matches
        if len(head) >= 3 and head[-1] not in _VOWELS + "wxy" and head[-2] in _VOWELS and head[-3] not in _VOWELS:
            forms.append(head + head[-1] + "ed")
    return sorted({f + particle for f in forms})


#: A status of several words that starts with a thing, not a state word ("delivery attempted", "lab
#: processing", "grade verified"): said as a status; "picked up", "past due", "pending review" are
#: what a record is.
_THING_FIRST = re.compile(
    r"(?![a-z]+(?:ed|en|wn|ing)\b)(?!(?:past|in|on|under|out|over|not|partially|fully|due|open|closed)\b)[a-z]+ [a-z ]+"
)


def _yours(phrase: str) -> str:
    """The user's words for a record, as the agent says them back: "my loan" -> "your loan"."""
    return "your " + phrase[3:] if phrase.startswith("my ") else phrase


def refusal_sentence(verb: str, phrase: str, reason: str, rule: str | None, *, status: bool = False) -> str:
    """How the reference answer turns one request down: what, and why (``status``: the reason is a
    status of the domain's, said as one where it starts with a thing: "its status is lab processing")."""
    action = verb_phrase(verb, _yours(phrase))
    if rule and re.search(rf"(?<![\w.]){re.escape(reason)}(?![\w]|\.\d)", rule):
        why = f"the policy says {rule}"  # the reason is the rule's own limit: "at least 50", "at most 3"
    elif rule:
        why = f"the policy says {rule}, and here it is {reason}"
    elif status and _THING_FIRST.fullmatch(reason):
        why = f"its status is {reason}"  # "it is delivery attempted" reads as no one writes
    else:
        why = f"it is {reason}"
    return f"I'm sorry, I can't {action}: {why}."


def declined_sentence(verb: str, phrase: str, fee: str) -> str:
    """How the reference answer reports an action the user declined because of its fee."""
    return f"I have not gone ahead to {verb_phrase(verb, _yours(phrase))}, because it would cost a fee of {fee}."


def values_sentence(values: list[str], told: list[str] | None = None) -> str:
    """How the reference answer states the values the user asked for: each in its own sentence
    where the task says what it is (``told``: "Your wallet balance is now {}."), else listed."""
    told = told or []
    said = [t.format(v) for t, v in zip(told, values, strict=False)]
    rest = values[len(said) :]
    if rest:
        lead = "The rest of what you asked for: " if said else "Here is what you asked for: "
        said.append(lead + "; ".join(rest) + ".")
    return " ".join(said)


def told_value(phrase: str, noun: str, *, now: bool = False, would: bool = False) -> str:
    """A sentence that states one asked-for value (``{}``): "The status of your repair visit … is {}."."""
    verb = "would be" if would else ("is now" if now else "is")
    whose = f"the {noun} of {_yours(phrase)}" if phrase and phrase != "my account" else f"your {noun}"
    whose = whose.replace("{", "{{").replace("}", "}}")  # a title may hold braces: only {} is the value
    return f"{whose[:1].upper()}{whose[1:]} {verb} {{}}."
