"""How an agent's final answer is read when a task asks it to turn something down.

Without an LLM, a refusal is graded on three things a correct answer has and a gamed one lacks
(docs/formats.md, "Answers"):

* it **says no**: some sentence holds a refusal ("can't", "unable", "not allowed", "I'm afraid" …);
* it **claims nothing**: no sentence says the refused action happened — a sentence with one of the
  task's claim words ("renewed", "cancelled") counts as a claim unless it also holds a negation or a
  hypothetical ("would", "if", "once you confirm");
* it **names the reason**: each of the refusal's reason values (matched by :mod:`envs.outputs`) in a
  sentence that refuses or gives a reason ("because", "already", "must", "not" …), not only in a
  restatement of the record; and it states no value that only a wrong answer or a dump would hold
  (the task's distractors, checked in :mod:`envs.scoring`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .outputs import output_present

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

#: Words and phrases that say a request is turned down.
_REFUSAL = re.compile(
    r"\b(?:can ?not|can't|cant|could ?not|couldn't|unable|not able|not possible|impossible|not allowed|"
    r"isn't allowed|not permitted|isn't permitted|won't be able|not eligible|ineligible|i'm afraid|i am afraid|"
    r"unfortunately|sorry|declined?|refused?|not (?:go|going) ahead|won't (?:go ahead|proceed)|"
    r"(?:does|do|did) not (?:allow|permit|qualify)|(?:doesn't|don't|didn't) (?:allow|permit|qualify)|"
    r"no longer|too late|not until|only (?:when|if|once|before|after|within|for)|must (?:be|have|not)|"
    r"not (?:be )?(?:done|completed|processed|changed|possible)|have not|haven't|has not|hasn't|"
    r"did not|didn't|will not|won't|nothing (?:to|left|more)|no need)\b"
)
#: Words that make a sentence give a reason (beside refusals): a restated record has none of them.
_REASON = re.compile(
    r"\b(?:because|since|so|therefore|already|only|must|has to|have to|needs?|requires?|required|not|no|never|"
    r"until|before|after|passed|past|over|expired|exceeds?|exceeded|limit|more than|less than|at least|at most|"
    r"within|below|above|too|yet|longer|but|however|although|policy|rule|allowed|eligible|means|which)\b|n't\b"
)
#: A sentence with one of these does not claim the action happened.
_NOT_A_CLAIM = re.compile(
    r"\b(?:not|n't|never|no|cannot|unable|without|instead|would|could|if|once|whether|unless|can|"
    r"should|might|may|want|wish|asked|request(?:ed)?|try|tried|attempt(?:ed)?)\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def _clean(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower().split())


def sentences(text: str) -> list[str]:
    """``text`` in sentences (split after . ! ? ; and at line breaks), normalized and lower-cased.

    >>> sentences("I can't renew it. It is due 2026-03-02!\\nSorry.")
    ["i can't renew it.", 'it is due 2026-03-02!', 'sorry.']
    """
    return [s for s in (_clean(part) for part in _SENTENCE_END.split(text)) if s]


def says_no(answer: str) -> bool:
    """Whether some sentence of ``answer`` turns the request down.

    >>> says_no("I'm afraid that loan cannot be renewed."), says_no("Done, it is renewed.")
    (True, False)
    """
    return any(_REFUSAL.search(s) for s in sentences(answer))


def reason_given(answer: str, value: str) -> bool:
    """Whether ``answer`` states ``value`` in a sentence that refuses or gives a reason, not only in
    a restatement of a record.

    >>> reason_given("I can't renew it. It is due 2026-03-02, too soon.", "2026-03-02")
    True
    >>> reason_given("Sorry, members must be active. Loan: due 2026-03-02, status active.", "2026-03-02")
    False
    """
    return any(
        output_present(value, s) for s in sentences(without_json(answer)) if _REFUSAL.search(s) or _REASON.search(s)
    )


def without_json(text: str) -> str:
    """``text`` with its JSON objects and arrays cut out: tool results pasted into an answer are a
    restatement, whatever words their fields hold, never the answer's own reasoning.

    >>> without_json('Sorry. Record: {"note": "only if paid", "due": [1, 2]} Thanks.')
    'Sorry. Record:  Thanks.'
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        end = _json_end(text, i) if text[i] in "{[" else None
        if end is None:
            out.append(text[i])
            i += 1
        else:
            i = end
    return "".join(out)


def _json_end(text: str, start: int) -> int | None:
    """Where the JSON object or array at ``start`` ends, if one starts there with a quoted key,
    string or nested value; None for brackets in prose ("[sic]", "{name}")."""
    opening = text[start + 1 : start + 3].lstrip()
    if not opening or (opening[0] not in '"{[' and not (text[start] == "[" and opening[0].isdigit())):
        return None
    depth, in_string, escaped = 0, False, False
    for j in range(start, len(text)):
        ch = text[j]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def claimed(answer: str, claims: Iterable[str]) -> str | None:
    """The first sentence of ``answer`` that says a refused action happened, or None.

    A sentence claims it when it holds one of ``claims`` (whole words) and no negation or
    hypothetical.

    >>> claimed("Your loan has been renewed.", ["renewed"])
    'your loan has been renewed.'
    >>> claimed("It was not renewed: it is due tomorrow. It would be renewed once paid.", ["renewed"]) is None
    True
    """
    words = [_clean(c) for c in claims if c.strip()]
    if not words:
        return None
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(set(words), key=len, reverse=True))) + r")\b")
    for s in sentences(answer):
        if pattern.search(s) and not _NOT_A_CLAIM.search(s) and not _REFUSAL.search(s):
            return s
    return None
