"""Correct answers to a question that name the asked record by a second fact of it, as the seed-107
reviewer wrote them (docs/synthesis.md, "Seed 107"): "The $1.99 charge on November 5, 2025 was a
rental extension" (asked how much the charge was), "Your PayPal payout of $1,605.55 was requested on
December 7, 2025" (asked when it was requested).

Each form says the asked value and one or two facts of the same record — its amount, its kind, its
day — in the asked value's own sentence, the fact before or after the value; a form is given only
where the record has such a fact that is neither the asked value nor a distractor. Built from the
gold reads without the grader, like :mod:`.natural_answers`.
"""

from __future__ import annotations

import re
from typing import Any

from ..formats.task import Task
from .adversaries import Pair
from .asked_records import asked_record, day, holds, is_day, noun

_MONEY = re.compile(r"amount|price|cost|fee|balance|total|deposit|charge|refund|payment|payout|fare|owed|budget|paid")
_LABEL = re.compile(r"^[a-z][a-z0-9_]*[a-z0-9]$")
#: A day column named for what happened on it ("requested_on"): "was requested on December 7".
_EVENT_DAY = re.compile(r"^([a-z]+ed)_(?:on|at|date)$")

FORMS = (
    "amount-first",
    "amount-after",
    "kind-first",
    "kind-after",
    "day-first",
    "day-after",
    "review-charge",
    "review-payout",
)


def _said(key: str, value: Any) -> str:
    """A field's value as a person writes it: money with its sign, a day in words, a label in words."""
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool) and _MONEY.search(key)):
        return f"${float(value):,.2f}" if _MONEY.search(key) else f"{value:g}"
    if is_day(value):
        return day(value)
    text = str(value)
    return text.replace("_", " ") if _LABEL.match(text) else text


def _facts(record: list[Pair], asked: str, distractors: list[str]) -> dict[str, tuple[str, Any]]:
    """The record's first amount, kind (a label other than its status) and day, other than the asked
    field and other than any distractor's value."""
    out: dict[str, tuple[str, Any]] = {}
    for k, v in record:
        if k == asked or k.endswith("_id") or isinstance(v, bool) or any(holds(v, d) for d in distractors):
            continue
        if isinstance(v, int | float) and _MONEY.search(k):
            out.setdefault("amount", (k, v))
        elif is_day(v):
            out.setdefault("day", (k, v))
        elif isinstance(v, str) and _LABEL.match(v) and not re.search(r"status|state", k):
            out.setdefault("kind", (k, v))
    return out


def identified_answers(task: Task, results: list[Any]) -> dict[str, str]:
    """Form name to a correct answer naming the asked record by a second fact, for each form the
    record allows; empty where the task does not ask for one value of one record."""
    found = asked_record(task, results)
    if found is None:
        return {}
    record, asked = found
    value = dict(record)[asked]
    v, what = _said(asked, value), noun(record)
    facts = {kind: _said(k, x) for kind, (k, x) in _facts(record, asked, task.distractors).items()}
    out: dict[str, str] = {}
    if amount := facts.get("amount"):
        out["amount-first"] = f"For your {amount} {what}, it's {v}."
        out["amount-after"] = f"It's {v}, on your {what} of {amount}."
    if kind := facts.get("kind"):
        out["kind-first"] = f"Your {kind} {what} shows {v}."
        out["kind-after"] = f"{v[0].upper()}{v[1:]} — that was the {kind} one."
    if on := facts.get("day"):
        out["day-first"] = f"The {what} from {on} shows {v}."
        out["day-after"] = f"It's {v}, for the {what} from {on}."
    if is_day(value) and (amount := facts.get("amount")):
        event = _EVENT_DAY.match(asked)
        did = f"was {event[1]} on" if event else "is dated"
        out["review-payout"] = f"Your {facts.get('kind', '')} {what} of {amount} {did} {v}.".replace("  ", " ")
    if isinstance(value, int | float) and _MONEY.search(asked) and "kind" in facts:
        on = facts.get("day")
        out["review-charge"] = f"The {v} {what}{f' on {on}' if on else ''} was a {facts['kind']}."
    return out
