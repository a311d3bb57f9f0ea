"""A record's status said as unchanged, beside a refusal on another rule.

A refusal on a time or amount rule often reassures the user that the record is as it was: "Your
audit HA0010 is still scheduled: I can't cancel it because it starts today at 10:30 AM", "BL-377433091
stays active, but I can't renew it yet". The status allows the action, yet it is said as what the
refusal leaves in place, not as a reason, so it is no allowing status beside the reason
(:func:`envs.grading.restating.allowing_states`). A status said plainly ("the status is pending and
it was placed on …", "The status is scheduled.") still is: that is a record read out, not a decision.
So is one said as kept where the sentence that says no does not give the reason ("It is still
scheduled, but I'm sorry, I can't cancel it. The audit at is 2026-03-02 10:30."): the values after it
are any record's, and the status beside them has not been set apart from the rule that stops it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from .answers import prose, says_no, sentences, without_json
from .labels import value_stated
from .outputs import Reading

#: Before a status, what says it is kept as it was: "is still", "stays", "remains", "is still … as before".
_KEPT = r"\b(?:(?:is|are|'s|'re)\s+)?(?:still|stays|stay|remains|remain)\s+(?:currently\s+|as\s+)?"


def without_kept_status(answer: str, status: str) -> str:
    """``answer``'s own words with ``status`` cut out where it is said as kept ("still scheduled",
    "stays active", "remains booked").

    >>> without_kept_status("Your audit is still scheduled: I can't cancel it.", "scheduled")
    "Your audit : I can't cancel it."
    >>> without_kept_status("The status is scheduled.", "scheduled")
    'The status is scheduled.'
    """
    word = re.escape(status.lower().replace("_", " "))
    text = prose(answer).replace("_", " ")
    return re.sub(rf"{_KEPT}{word}\b", "", text, flags=re.IGNORECASE)


def refusal_gives_reason(answer: str, reason: Iterable[str], today: date | None = None, request: str = "") -> bool:
    """Whether a sentence of ``answer`` that says no also states every ``reason`` value ("I can't
    cancel it because it starts today at 10:30 AM").

    >>> refusal_gives_reason("It is still scheduled: I can't cancel it, it starts 2026-03-02.", ["2026-03-02"])
    True
    >>> refusal_gives_reason("It is still scheduled, but I can't cancel it. It is 2026-03-02.", ["2026-03-02"])
    False
    """
    values = list(reason)
    return any(
        says_no(sentence) and all(value_stated(Reading(sentence, today=today), v, request=request) for v in values)
        for sentence in sentences(without_json(answer))
    )
