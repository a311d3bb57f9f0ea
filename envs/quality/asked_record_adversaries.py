"""Read-outs that know which record and field a question asks about: the other side of the answers of
:mod:`.identified_answers`, which name the asked record by a second fact of it.

Unlike the blind strategies, each is handed the asked value's record and field (:mod:`.asked_records`),
so it bounds what reading out earns an agent that found the right record; each replays the gold
reads and says the asked value, then

* ``info-asked-record-whole`` — every field of the asked record, keys and all, in the same sentence;
* ``info-asked-record-sentence`` — every field but the keys, each under its column's name, in one
  sentence ("The amount is 1.99, the charge type is rental_extension and the charged on is …");
* ``info-asked-record-apart`` — every field but the keys, each in a sentence of its own, in words
  ("It's $1.99. It was a rental extension. It was on November 5, 2025.");
* ``info-asked-record-list`` — every field but the keys in words, listed in one sentence after the
  record's name ("Here's your billing charge: 1.99, rental extension, November 5, 2025.");
* ``info-asked-field-every-record`` — the asked field of every record read that has it, each by id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine import Environment, Episode
from ..formats.task import Task
from .adversaries import Agent, Pair, answer_on_fresh_episode, reward_on_fresh_episode
from .asked_records import asked_record, day, is_day, noun
from .classes import INFORMATION


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _words(name: str) -> str:
    return name.replace("_", " ")


def _in_words(value: Any) -> str:
    return day(value) if is_day(value) else _text(value).replace("_", " ")


def _whole(record: list[Pair], asked: str) -> str:
    fields = ", ".join(f"{_words(k)} {_text(v)}" for k, v in record)
    return f"The {_words(asked)} is {_text(dict(record)[asked])}, on the record {fields}."


def _sentence(record: list[Pair], asked: str) -> str:
    said = [f"the {_words(k)} is {_text(v)}" for k, v in record if not k.endswith("_id")]
    head = ", ".join(said[:-1])
    return (f"{head} and {said[-1]}" if head else said[-1]).capitalize() + "."


def _apart(record: list[Pair], asked: str) -> str:
    value = dict(record)[asked]
    rest = [f"It was {_in_words(v)}." for k, v in record if not k.endswith("_id") and k != asked]
    return " ".join([f"It's {_in_words(value)}.", *rest])


def _list(record: list[Pair]) -> str:
    listed = ", ".join(_in_words(v) for k, v in record if not k.endswith("_id"))
    return f"Here's your {noun(record)}: {listed}."


def _every_record(agent: Agent, asked: str) -> str:
    seen = {tuple(r): r for r in agent.records if any(k == asked for k, _ in r)}
    said = [f"{_text(r[0][1])}: {_text(v)}" for r in seen.values() for k, v in r if k == asked]
    return f"The {_words(asked)} of each: " + "; ".join(dict.fromkeys(said)) + "."


_PLANS: dict[str, Callable[[Agent, list[Pair], str], str]] = {
    "info-asked-record-whole": lambda _a, r, k: _whole(r, k),
    "info-asked-record-sentence": lambda _a, r, k: _sentence(r, k),
    "info-asked-record-apart": lambda _a, r, k: _apart(r, k),
    "info-asked-record-list": lambda _a, r, _k: _list(r),
    "info-asked-field-every-record": lambda a, _r, k: _every_record(a, k),
}
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
ASKED_RECORD_ADVERSARIES: dict[str, tuple[str, ...]] = {name: (INFORMATION,) for name in _PLANS}


def _run(name: str, env: Environment, task: Task, episode: Episode) -> tuple[list[str], str]:
    agent = Agent(env, episode, task.instruction, list(task.gold_actions)).read()
    found = asked_record(task, agent.results)
    if found is None:  # no one record holds the asked value (a sum, a count): nothing to read out
        return agent.calls, "I couldn't find it."
    record, asked = found
    return agent.calls, _PLANS[name](agent, record, asked)


def asked_record_answer(name: str, env: Environment, task: Task) -> tuple[list[str], str]:
    """The calls adversary ``name`` makes on a fresh episode of ``task`` and its final answer."""
    return answer_on_fresh_episode(_run, name, env, task)


def play_asked_record(name: str, env: Environment, task: Task) -> float:
    """The reward adversary ``name`` earns on ``task``, played on a fresh episode."""
    return reward_on_fresh_episode(_run, name, env, task)
