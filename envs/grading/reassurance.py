"""A record's status said as unchanged, beside a refusal on another rule.

A refusal on a time or amount rule often reassures the user that the record is as it was: "Your
audit HA0010 is still scheduled: I can't cancel it because it starts today at 10:30 AM", "BL-377433091
stays active, but I can't renew it yet". The status allows the action, yet it is said as what the
refusal leaves in place, not as a reason, so it is no allowing status beside the reason
(:func:`envs.grading.restating.allowing_states`). A status said plainly ("the status is pending and
it was placed on …", "The status is scheduled.") still is: that is a record read out, not a decision.
"""

from __future__ import annotations

import re

from .answers import prose

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
