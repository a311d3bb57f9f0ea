"""An information question answered without a single call: the asked column's likeliest value.

A question whose only required output is a record's status or kind can be won by a guess at one
chance in the column's values, and better where the request or the policy leans one way. This agent
reads only what every agent is given before it calls anything (the instruction, the policy, the
tools' descriptions and schemas) and answers with one value of the column the question names:

* the column: a tool parameter with an ``enum`` (``status``, ``payment_type``) or a status table of
  the policy, whose name the question's words share, on the tool whose record the question names;
* the value: one the request itself says ("my refund entry" is a refund), else the first listed
  (where a status table's records start; on a 40-environment sample of the default catalog it
  was right more often than the value the policy names most, 12 of 35 questions against 11).

It targets the information class and is held to the bound: a question must not be won by a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..engine import Environment
from ..formats.task import Task
from ..grading.scoring import score_episode
from .classes import INFORMATION

NAME = "guess-label"
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
GUESS_ADVERSARIES: dict[str, tuple[str, ...]] = {NAME: (INFORMATION,)}
_FILLER = frozenset({"the", "a", "an", "of", "my", "for", "on", "to", "is", "what", "and", "with", "by", "in"})
_STATUS_TABLE = re.compile(r"The status of an? ([a-z ]+?) is one of:\s*\n((?:\s*\|.*\n?)+)")


def _stems(text: str) -> set[str]:
    """Five-letter stems of a text's words: "payments" and "payment" share "payme"."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if w not in _FILLER}


@dataclass(frozen=True)
class Column:
    """A column an agent can see the values of before any call: its name, the record it belongs to
    (in words) and its values as listed."""

    name: str
    record: str
    values: tuple[str, ...]


def visible_columns(env: Environment) -> list[Column]:
    """The labelled columns the tools' schemas and the policy's status tables show."""
    out: list[Column] = []
    for tool in env.spec.tools:
        props = tool.parameters.get("properties", {})
        record = re.sub(r"^(?:list|search|get|find)_|_(?:for|by)_.*$|_details$", "", tool.name)
        for name, schema in props.items():
            if isinstance(schema, dict) and schema.get("enum"):
                out.append(Column(name, record, tuple(str(v) for v in schema["enum"])))
    for m in _STATUS_TABLE.finditer(env.spec.policy):
        values = tuple(re.findall(r"^\s*\|\s*`([^`]+)`", m[2], flags=re.M))
        if values:
            out.append(Column("status", m[1], values))
    return out


def _asked(instruction: str) -> str:
    """The words of the question: what follows "what is", "tell me", "know" and the like, up to the
    record it is asked of ("the status" of "the status of my payee for Old account")."""
    low = instruction.lower()
    m = re.search(r"(?:what is|what's|tell me|know|which)\s+(.+?)[?.!]", low)
    asked = m[1] if m else low
    return re.split(r" of (?:my|the|our|your) ", asked, maxsplit=1)[0]


def guess(env: Environment, instruction: str) -> tuple[Column, str] | None:
    """The column the question names and the value guessed for it; ``None`` when no visible column
    is named."""
    asked = _asked(instruction)
    want, said = _stems(asked), _stems(instruction)

    def fit(c: Column) -> tuple[int, int]:
        return (len(_stems(c.name) & want), len(_stems(c.record) & said))

    named = [c for c in visible_columns(env) if fit(c)[0]]
    if not named:
        return None
    column = max(named, key=fit)
    words = set(re.findall(r"[a-z]+", instruction.lower()))
    # ties keep the first listed, where a status table's records start
    return column, max(column.values, key=lambda v: all(w in words for w in v.lower().split("_")))


def guess_answer(env: Environment, task: Task) -> str:
    """The agent's final answer to ``task``: the guessed value, said as the question's."""
    found = guess(env, task.instruction)
    if found is None:
        return "I'm not able to tell from here."
    column, value = found
    return f"The {column.name.replace('_', ' ')} is {value.replace('_', ' ')}."


def play_guess(name: str, env: Environment, task: Task) -> float:
    """The reward the guessing agent earns on ``task``: no call made, its answer graded."""
    if name not in GUESS_ADVERSARIES:
        raise KeyError(name)
    episode = env.episode(task)
    try:
        return score_episode(env, task, episode, answer=guess_answer(env, task)).reward
    finally:
        episode.close()
