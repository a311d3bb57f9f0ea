"""A count said as a span of time where the rule counts no time.

A refusal's reason may be a small whole number (2 kW subscribed, 3 rentals open), and small whole
numbers are said in every answer for other things: "please allow 2 business days", "call back in 3
hours". Where the rule deciding the request counts no time at all, that number said only as days,
hours or weeks is the answer's own promise, not the reason: "I wasn't able to reduce the share;
please allow 2 business days" gives no reason for refusing to release 9 kW of a 2 kW share. Where the
rule does count time ("within 30 days"), a span is how the reason is said ("it's 38 days away").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .outputs import as_number

_DURATION = r"(?:business |working |calendar )?(?:days?|hours?|minutes?|weeks?|months?|years?)"
#: A whole number standing alone: not part of an amount, a decimal, a code or a date's digits.
_ALONE = r"(?<![\w.,$/:-]){n}(?![\w]|[.,]\d|[/:-]\d)"
_TIME_WORDS = re.compile(r"\b(?:days?|hours?|minutes?|weeks?|months?|years?|daily|weekly|monthly|annual\w*)\b", re.I)


def said_only_as_span(answer: str, value: str, deciding: Iterable[str]) -> bool:
    """Whether ``value``, a whole number, appears in ``answer`` only as a span of time ("2 business
    days") while no text of ``deciding`` (the rule's, the tool's) counts time.

    >>> said_only_as_span("I can't release it; please allow 2 business days.", "2", ["kW released ≤ kW subscribed"])
    True
    >>> said_only_as_span("Your share has only 2 kW; allow 2 business days.", "2", ["kW released ≤ kW subscribed"])
    False
    >>> said_only_as_span("It renews in 38 days.", "38", ["renewals no more than 30 days before"])
    False
    """
    number = as_number(value)
    if number is None or number != int(number) or any(_TIME_WORDS.search(t) for t in deciding):
        return False
    n = str(int(number))
    alone = list(re.finditer(_ALONE.format(n=re.escape(n)), answer))
    spans = re.findall(_ALONE.format(n=re.escape(n)) + r"\s+" + _DURATION + r"\b", answer, re.I)
    return bool(alone) and len(spans) == len(alone)
