"""Whether a refusal ties its reason to the record and rule it decides, or lists values for the reader
to choose from (docs/formats.md, "Answers").

An agent that understood the rule says the deciding value of the refused record, against the rule. One
that did not lists: the status of every record it read ("AC0020 is draft; AC0037 is live"), or every
number of the policy ("the limits are 1, 3, 30, 7"). The right value is among them whatever the rule,
and nothing says which one decides:

* :func:`other_records_statuses` — records the request is not about (neither refused, acted on, nor
  named by the user) each said with a status; or one record said with two statuses;
* :func:`bare_numbers` — three or more numbers listed with no unit or field tied to any of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..formats.task import Refusal
from .answers import without_json

_ID = re.compile(r"\b[A-Z]{1,4}-?\d{3,}\b")
#: What stands between a record's id and the status said of it: "AC0020 is draft", "AC0020 (live)",
#: "AC0020: submitted", "AC0020's status is currently paused".
_LINK = (
    r"(?:'s)?\s*(?:status\s*)?(?:\(|:|-|–|—|,)?\s*(?:is|was|are|has been|shows(?: as)?|status(?: is)?)?\s*"
    r"(?:(?:currently|now|still|already|marked|listed as|set to|in)\s+)*(?:an?\s+|the\s+)?"
)
_NUMBER = r"(?<![\w$€£.:/,-])\d+(?:\.\d+)?(?![\w%:/-]|\.\d)"
#: Three or more numbers in a list, none with a unit after it ("1, 3, 30, 7, and the record is …").
_BARE_RUN = re.compile(rf"{_NUMBER}(?:(?:,\s+|,?\s+(?:and|or)\s+){_NUMBER}){{2,}}(?!\s*(?:%|[a-z]))")


@dataclass(frozen=True)
class RecordNames:
    """How records are named in an answer: ``about`` the ones a refusal may give the status of (the
    refused ones, those acted on, those the user names), ``shown`` every record key the reads showed
    (a tracking number or an order code names a record as an id does)."""

    about: frozenset[str]
    shown: frozenset[str] = frozenset()


def _said_statuses(answer: str, labels: Iterable[str], shown: Iterable[str]) -> dict[str, set[str]]:
    """Each record name of ``answer`` with the statuses (of ``labels``) said right after it."""
    words = sorted({w.replace("_", " ").lower() for w in labels if w}, key=len, reverse=True)
    if not words:
        return {}
    status = re.compile(_LINK + r"(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)
    keys = sorted({k for k in shown if len(k) >= 4}, key=len, reverse=True)
    name = re.compile(r"|".join([_ID.pattern, *(rf"(?<![\w-]){re.escape(k)}(?![\w-])" for k in keys)]))
    text = without_json(answer).replace("_", " ")
    out: dict[str, set[str]] = {}
    for found in name.finditer(text):
        if m := status.match(text, found.end()):
            out.setdefault(found.group(0), set()).add(m.group(1).lower())
    return out


def other_records_statuses(answer: str, labels: Iterable[str], names: RecordNames) -> list[str]:
    """The records ``answer`` gives a status of that it should not: those not ``names.about``, and
    any said with two statuses.

    >>> about = RecordNames(frozenset({"AC0020"}))
    >>> other_records_statuses("AC0020 is draft; AC0037 is live.", ["draft", "live"], about)
    ['AC0037']
    >>> other_records_statuses("Your campaign AC0020 is draft, so I can't resume it.", ["draft"], about)
    []
    """
    said = _said_statuses(answer, labels, names.shown)
    return [i for i, statuses in said.items() if i not in names.about or len(statuses) > 1]


def bare_numbers(answer: str) -> str | None:
    """The first list of three or more numbers with nothing tied to them, or None.

    >>> bare_numbers("Sorry, the limits are 1, 3, 30, 7, and the record is submitted.")
    '1, 3, 30, 7'
    >>> bare_numbers("Refunds are allowed within 7, 14 or 30 days of purchase.") is None
    True
    """
    found = _BARE_RUN.search(without_json(answer))
    return found.group(0) if found else None


def record_names(
    refusals: Iterable[Refusal], acted: Iterable[str], user: str, reads: list[Any], keys: Iterable[str]
) -> RecordNames:
    """The records a refusal may give the status of (the refused ones, those acted on, those the user
    names), and every value of a key column (``keys``) the ``reads`` showed."""
    refused = {str(v) for r in refusals if r.call is not None for v in r.call.arguments.values()}
    columns = set(keys)
    shown = {str(v) for k, v in _pairs(reads) if k in columns and isinstance(v, str)}
    return RecordNames(frozenset(refused | set(acted) | set(_ID.findall(user))), frozenset(shown))


def _pairs(data: Any, key: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _pairs(v, str(k))]
    if isinstance(data, list):
        return [p for v in data for p in _pairs(v, key)]
    return [(key, data)]
