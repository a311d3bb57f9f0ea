"""A record said to be any of several statuses: a hedge, not a reason.

"I can't cancel it: it is draft, pending, submitted or cancelled" names the reason among the statuses
its column holds and has not said which one the record is in, however few the others are (the
reason and the request's own participle among them). "Only draft and pending orders can be
cancelled; yours is submitted" says the rule's statuses as the rule, then the record's own, and
"an order that is draft or pending can be cancelled" describes which records the rule allows: a list
in a clause with a rule word, or about records the relative pronoun picks out, is no hedge
(docs/formats.md, "Answers", check 4).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .answers import prose

#: Words that make a clause a rule about which records may be acted on, not a record's state.
RULE_WORDS = frozenset({
    "only", "must", "can", "may", "allowed", "eligible", "if", "unless", "when", "while", "needs", "need", "required",
    "requires", "possible", "permitted",
})  # fmt: skip
#: What says a record is in a state just before the list: "it is", "it's", "its status is", "status:".
_SAYS = r"(?:\bis|\bit's|\bstatus:|\bstatus)\s+(?:(?:currently|still|now|either|already)\s+)*"
#: How a list's items are joined: commas, "or", "and", a slash.
_JOIN = r"(?:\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+|\s*/\s*)"
#: Where the list ends: the clause ends, or a word that says nothing of the record follows.
_END = r"(?=\s*(?:[.;:!?,)]|$)|\s+(?:so|but|now|currently|right now|at the moment|at this point)\b)"
#: A relative pronoun before the verb: "an order that is draft or pending" is a kind of record.
_RELATIVE = frozenset({"that", "which", "who", "whose"})


def _plain(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


def hedged_statuses(answer: str, own_kind: Iterable[str], labels: Iterable[str]) -> list[str]:
    """The values of a status reason's own column (``own_kind``) that ``answer`` says the record is,
    two or more in one list after "is"/"it's"/"status:", outside a rule's clause; an empty list
    where it says one. ``labels`` are every label of the environment, which such a list may mix in
    (a hedge over the record's every column still names its status among several).

    >>> own = ["draft", "pending", "submitted", "cancelled"]
    >>> hedged_statuses("I can't cancel it: it is draft, pending, submitted or cancelled.", own, own)
    ['cancelled', 'draft', 'pending', 'submitted']
    >>> hedged_statuses("Only draft and pending orders can be cancelled; yours is submitted.", own, own)
    []
    >>> hedged_statuses("It can only be cancelled while it is draft or pending; it is submitted.", own, own)
    []
    >>> hedged_statuses("An order that is draft or pending can be cancelled. Yours is submitted.", own, own)
    []
    >>> hedged_statuses("It's submitted, not draft or pending.", own, own)
    []
    """
    own = {_plain(v) for v in own_kind}
    items = sorted({_plain(v) for v in [*labels, *own_kind]} - {""}, key=len, reverse=True)
    if len(own) < 2 or not items:
        return []
    item = "(?:" + "|".join(re.escape(v) for v in items) + r")\b"
    listed = re.compile(rf"{_SAYS}(?P<list>{item}(?:{_JOIN}{item})+){_END}")
    text = _plain(prose(answer))
    found: set[str] = set()
    for m in listed.finditer(text):
        clause = re.split(r"[.;:!?]", text[: m.start()])[-1].split()
        if RULE_WORDS & set(clause) or (clause and clause[-1] in _RELATIVE):
            continue  # the rule's statuses, or the records it allows
        named = {v for v in own if re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", m["list"])}
        if len(named) >= 2:
            found |= named
    return sorted(found)
