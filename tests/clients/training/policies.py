"""Scripted policies for the fake OpenAI-compatible server: one that solves a task, one that does not,
and the phone's customer, who switches airplane mode off when asked (dual control)."""

from __future__ import annotations

import json

from clients.users.prompt import STOP_TOKEN
from envs import Catalog

from ..fakes import FakeLLM, Reply, call, say

#: What the phone's customer says, in order: the opening, the switch the agent asks for, the report,
#: and the goodbye once the agent has answered.
PHONE_OPENING = "My phone has had no service since yesterday; my line is L1, my phone D1."
PHONE_REPORT = "Done, airplane mode is off."


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


def script_phone_user(llm: FakeLLM) -> None:
    """The simulated customer of the phone task (keyed by its user guide, which only a simulator with
    the user's tools is given)."""
    llm.user_script(
        "You hold your phone",
        PHONE_OPENING,
        Reply(calls=[("toggle_airplane_mode", {"device_id": "D1"})]),
        PHONE_REPORT,
        f"Thanks! {STOP_TOKEN}",
    )
