"""Information-task strategies an outside reviewer wrote blind to the project.

Each agent sees the instruction, the policy, the tools and the clock, replays the gold read calls
and never sees the task's outputs or reference answer. None reads the question: each answers from
where a record stands in the results or from every figure read, so an information task it passes is
one whose answer is guessable or whose grade accepts an answer that does not answer it:

* ``info-last-detail`` — every field of the last record of the last tool result;
* ``info-first-in-list`` — every field of the first record of the first result that is a list;
* ``info-sum-by-status`` — every amount read, grouped by its record's status, each group's sum
  ("Your draft items total $1,240.00; your live ones $310.50");
* ``info-comparisons`` — a pairwise comparison over every number read ("AC0020's budget is higher
  than AC0037's").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..engine import Environment, Episode
from ..formats.task import Task
from .adversaries import Agent, Pair, answer_on_fresh_episode, flatten, reward_on_fresh_episode
from .classes import INFORMATION

#: A field whose number is a sum of money, by its name.
_AMOUNT_FIELD = re.compile(r"(?:amount|price|total|fee|cost|budget|balance|charge|rate|paid|credit|value|spend)")
#: Comparisons said at most, so that an answer over many records stays an answer, not a book.
MAX_COMPARISONS = 40


def _words(name: str) -> str:
    return name.replace("_", " ")


def _said(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _every_field(record: list[Pair]) -> str:
    # the keys are left out: they are what names the record, not what a question asks
    said = [f"The {_words(k)} is {_said(v)}." for k, v in record if not k.endswith("_id")]
    return " ".join(said) or "I found nothing."


def _last_detail(agent: Agent) -> str:
    last = flatten(agent.results[-1]) if agent.results else []
    return "Here is what I found. " + _every_field(last[-1] if last else [])


def _first_in_list(agent: Agent) -> str:
    lists = [flatten(r) for r in agent.results if isinstance(r, list) and r]
    first = lists[0][0] if lists and lists[0] else []
    return "Here is what I found. " + _every_field(first)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _unique_records(agent: Agent) -> list[list[Pair]]:
    return list({tuple(r): r for r in agent.records}.values())


def _status(record: list[Pair]) -> str | None:
    return next((_said(v) for k, v in record if k == "status" or k.endswith("_status")), None)


def _sum_by_status(agent: Agent) -> str:
    sums: dict[tuple[str, str], float] = {}
    for record in _unique_records(agent):
        status = _status(record) or "other"
        for key, value in record:
            if _is_number(value) and _AMOUNT_FIELD.search(key) and not key.endswith("_id"):
                sums[(key, status)] = sums.get((key, status), 0.0) + float(value)
    if not sums:
        return "I couldn't find any amounts."
    said = [f"your {status} items total ${total:,.2f} in {_words(key)}" for (key, status), total in sums.items()]
    return "; ".join(said).capitalize() + "."


def _name(record: list[Pair]) -> str:
    return next((_said(v) for k, v in record if k.endswith("_id") or k == "id"), _said(record[0][1]))


def _comparisons(agent: Agent) -> str:
    by_key: dict[str, list[tuple[str, float]]] = {}
    for record in _unique_records(agent):
        for key, value in record:
            if _is_number(value) and not key.endswith("_id"):
                by_key.setdefault(key, []).append((_name(record), float(value)))
    said = []
    for key, named in by_key.items():
        for i, (a, x) in enumerate(named):
            for b, y in named[i + 1 :]:
                if a != b and x != y:
                    word = "higher" if x > y else "lower"
                    said.append(f"{a}'s {_words(key)} is {word} than {b}'s.")
    return " ".join(said[:MAX_COMPARISONS]) or "There is nothing to compare."


_PLANS: dict[str, Callable[[Agent], str]] = {
    "info-last-detail": _last_detail,
    "info-first-in-list": _first_in_list,
    "info-sum-by-status": _sum_by_status,
    "info-comparisons": _comparisons,
}
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
BLIND_INFO_ADVERSARIES: dict[str, tuple[str, ...]] = {name: (INFORMATION,) for name in _PLANS}


def _run(name: str, env: Environment, task: Task, episode: Episode) -> tuple[list[str], str]:
    agent = Agent(env, episode, task.instruction, list(task.gold_actions))
    for call in task.gold_actions:  # the gold reads only: it never sees what the task asks for
        if call.actor != "user" and agent.is_read(call):
            agent.call(call.tool, call.arguments)
    return agent.calls, _PLANS[name](agent)


def blind_info_answer(name: str, env: Environment, task: Task) -> tuple[list[str], str]:
    """The calls adversary ``name`` makes on a fresh episode of ``task`` and its final answer."""
    return answer_on_fresh_episode(_run, name, env, task)


def play_blind_info(name: str, env: Environment, task: Task) -> float:
    """The reward adversary ``name`` earns on ``task``, played on a fresh episode."""
    return reward_on_fresh_episode(_run, name, env, task)
