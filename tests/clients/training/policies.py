"""Scripted policies for the fake OpenAI-compatible server: one that solves a task, one that does not."""

from __future__ import annotations

import json

from envs import Catalog

from ..fakes import FakeLLM, call, say


def key_of(task_id: str) -> str:
    """A piece of the task's instruction that the fake server finds in a conversation's messages."""
    key = Catalog().task(task_id)[1].instruction[:48]
    assert json.dumps(key)[1:-1] == key, "the key must read the same inside JSON"
    return key


def script_perfect(llm: FakeLLM, task_id: str) -> None:
    """The gold actions one per turn, then the required outputs as the answer: reward 1.0."""
    task = Catalog().task(task_id)[1]
    turns = [call((a.tool, dict(a.arguments))) for a in task.gold_actions]
    llm.script(key_of(task_id), *turns, say(" ".join(task.outputs) or "Done."))


def script_wrong(llm: FakeLLM, task_id: str) -> None:
    """Only the first gold action, then an answer that states nothing: reward 0, some partial credit at most."""
    task = Catalog().task(task_id)[1]
    first = task.gold_actions[0]
    llm.script(key_of(task_id), call((first.tool, dict(first.arguments))), say("All done."))


Plans = dict[str, tuple[list[tuple[str, dict]], str]]


def gold_plans(perfect: list[str], wrong: list[str]) -> Plans:
    """Per task instruction, the calls and the answer: the gold actions and the required outputs for the
    ``perfect`` tasks; only the first gold action and a vague answer for the ``wrong`` ones (for scripts that
    run in a trainer's environment, where the farm's catalog is not installed)."""
    plans: Plans = {}
    for task_id in perfect + wrong:
        task = Catalog().task(task_id)[1]
        calls = [(a.tool, dict(a.arguments)) for a in task.gold_actions]
        answer = " ".join(task.outputs) or "Done."
        plans[task.instruction] = (calls, answer) if task_id in perfect else (calls[:1], "All done.")
    return plans
