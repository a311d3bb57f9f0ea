"""Agents that do a task's writes and then misreport them: held to the bound on write tasks.

Each replays the task's gold calls, as an agent that did the work would, and then answers:

* ``sorry-after-acting`` — "I'm sorry, I can't do that.": the writes made, reported as not made (a
  reviewer found it scoring 1 after a hand-over to staff);
* ``denied-after-acting`` — "Unfortunately, I wasn't able to <verb> your <thing>.", the request's own
  verb and words (:meth:`envs.quality.adversaries.Agent.action`);
* ``old-and-new-bare`` — every field a read after the writes shows changed from the same read made
  before them, as "<field>: <old>, <new>", with nothing telling which is which;
* ``amounts-read`` — every amount read before and after the writes, listed bare (a reviewer found
  such a list scoring 1 where the task asks for the new value).

None reads the task's outputs, reference answer or assertions: the values come from calls any agent
may make (a read made again before the writes). The first two target every class whose tasks make
writes and refuse nothing; the last two, write tasks that ask for a value.
"""

from __future__ import annotations

from typing import Any

from ..engine import Environment
from ..errors import ToolError
from ..formats.task import Task
from ..grading.scoring import score_episode
from .adversaries import Agent, Pair, flatten
from .classes import DOCUMENT_WRITES, USER_ACTS, WRITE, WRITE_VALUE

_WRITES = (WRITE, WRITE_VALUE, USER_ACTS, DOCUMENT_WRITES)
#: Adversary name -> the task classes (``envs.quality.gaming``) it is built to pass.
WRITE_ADVERSARIES: dict[str, tuple[str, ...]] = {
    "sorry-after-acting": _WRITES,
    "denied-after-acting": _WRITES,
    "old-and-new-bare": (WRITE_VALUE,),
    "amounts-read": (WRITE_VALUE,),
}


def _pairs(results: list[Any]) -> list[Pair]:
    return [p for content in results for record in flatten(content) for p in record]


def _answer(name: str, agent: Agent, before: list[Any]) -> str:
    if name == "sorry-after-acting":
        return "I'm sorry, I can't do that."
    if name == "denied-after-acting":
        verb, thing, _ = agent.action()
        return f"Unfortunately, I wasn't able to {verb} your {thing}."
    if name == "amounts-read":
        amounts = [
            str(v)
            for _, v in dict.fromkeys(_pairs(before) + _pairs(agent.results))
            if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool))
        ]
        return "Here are the amounts: " + ", ".join(dict.fromkeys(amounts)) + "."
    old = dict(_pairs(before))
    now = dict(_pairs(agent.results[-len(before) :] if before else []))
    lines = [f"{k.replace('_', ' ')}: {old[k]}, {v}" for k, v in now.items() if k in old and old[k] != v]
    return "\n".join(lines) or "Done."


def play_write(name: str, env: Environment, task: Task) -> float:
    """The reward write adversary ``name`` earns on ``task``, played on a fresh episode."""
    if name not in WRITE_ADVERSARIES:
        raise KeyError(name)
    episode = env.episode(task)
    try:
        agent = Agent(env, episode, task.instruction, list(task.gold_actions))
        writes = [i for i, c in enumerate(task.gold_actions) if not agent.is_read(c)]
        # the reads made after the last write, made again before the first: what they showed before
        after = [c for c in task.gold_actions[writes[-1] + 1 :] if agent.is_read(c)] if writes else []
        for call in after:
            agent.call(call.tool, call.arguments)
        before, agent.results = agent.results, []
        for call in task.gold_actions:
            agent.call(call.tool, call.arguments) if call.actor != "user" else _as_user(agent, call)
        return score_episode(env, task, episode, answer=_answer(name, agent, before)).reward
    finally:
        episode.close()


def _as_user(agent: Agent, call: Any) -> None:
    """The user's own part of a dual-control task, done as the gold run does it."""
    try:
        agent.results.append(agent.episode.call_tool(call.tool, call.arguments, actor="user").content)
    except ToolError:  # a refused step shows nothing, as with the agent's own calls
        pass
