"""What an answer may report of what the task itself did, and what no report says.

An agent that carried out a task tells the user what it did: the flight it booked (route, day,
miles, taxes), the record it turned down (its id and the parent record that decides it). Such a
report states many fields of a record the tools showed, yet reads nothing out (docs/formats.md,
"Answers"):

* :func:`call_ids` — the ids the task's own calls and refused calls send: an answer names records by
  them ("MD0018 … its subscription PS0030"), so they are names, never fields read out;
* :func:`acted_on` — the records the task's writes act on: what the agent did to them is the
  report, so only stating every field of one reads it out;
* :func:`required_values` — the values the task's writes sent and returned and its assertions check
  (the new balance, the miles redeemed): outcomes the answer reports;
* :func:`turned_down` — an answer that turns down the task's own request ("I'm sorry, I can't do
  that.") where nothing was to be refused: the writes it made are reported as not made, so the
  values after it are no answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..engine import Environment
from ..formats.task import Task, ToolCall
from .answers import says_no, sentences, without_json
from .restating import shown_values, values_in


def _ids(arguments: dict[str, Any]) -> set[str]:
    return {v for k, v in arguments.items() if k.endswith("_id") and isinstance(v, str) and v.strip()}


def _refused_calls(task: Task) -> list[ToolCall]:
    return [r.call for r in task.refusals if r.call is not None]


def call_ids(task: Task) -> set[str]:
    """The ids (``*_id`` arguments) the task's gold calls and refused calls send."""
    return {i for call in [*task.gold_actions, *_refused_calls(task)] for i in _ids(call.arguments)}


def _writes(env: Environment, task: Task, results: Iterable[Any]) -> list[tuple[ToolCall, Any]]:
    return [(c, r) for c, r in zip(task.gold_actions, results, strict=False) if env.tools[c.tool].kind == "write"]


def acted_on(env: Environment, task: Task, results: Iterable[Any]) -> set[str]:
    """The ids of the records the task's gold writes act on: the ids they send, and the own id of
    each record a write returns (a ticket it made). A refused record is none: nothing was done to it,
    and its values listed are a record read out ("can't check in RV0033: 2026-03-20 booked 3 nights")."""
    writes = _writes(env, task, results)
    out = {i for call, _ in writes for i in _ids(call.arguments)}
    for _, result in writes:
        for record in result if isinstance(result, list) else [result]:
            if isinstance(record, dict) and record:
                key, value = next(iter(record.items()))
                if key.endswith("_id") and isinstance(value, str):
                    out.add(value)
    return out


def required_values(env: Environment, task: Task, results: Iterable[Any]) -> set[str]:
    """The values the task's gold writes sent and returned, and those its assertions check (numbers,
    dates and quoted literals of their SQL): what the agent did, which it may report."""
    writes = _writes(env, task, results)
    out = shown_values([c.arguments for c, _ in writes] + [r for _, r in writes])
    for assertion in task.assertions:
        out |= values_in(assertion.sql)
        out |= {v for v in re.findall(r"'([^']{3,})'", assertion.sql)}
    return out


#: What a refusal of the request as a whole says beside its refusal cue: an apology, the request
#: itself as "that", "this" or "your request", and nothing of what was asked.
_FILLER = frozenset(
    re.findall(
        r"[a-z]+",
        "i i'm im am me we my sorry so very really truly unfortunately afraid but however though that this it "
        "with your the request help assist do process complete handle go ahead proceed there anything able "
        "be to for you can can't cannot could couldn't not unable won't will m s",
    )
)


def turned_down(answer: str) -> str | None:
    """The first sentence of ``answer`` that turns down the request as a whole and says nothing
    else ("I'm sorry, I can't do that.", "Unfortunately I'm unable to help with this request."), or
    None. A refusal that names what it turns down ("you can't change the seat after check-in") is
    about something else.

    >>> turned_down("I'm sorry, I can't do that. 52339 54061 135261")
    "i'm sorry, i can't do that."
    >>> turned_down("Done. Note that you can't cancel the new ticket after March 20.") is None
    True
    """
    for sentence in sentences(without_json(answer)):
        if not says_no(sentence):
            continue
        if set(re.findall(r"[a-z]+", sentence.replace("'", " "))) <= _FILLER:
            return sentence
    return None
