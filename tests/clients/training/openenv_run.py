"""Run in ``.venv-openenv`` (test_openenv.py): OpenEnv's own client against the adapter's OpenEnv app.

Argument: a JSON job file ``{"app", "llm", "perfect", "wrong"}``: the app's URL (served from this
environment by test_openenv.py) and the fake OpenAI-compatible policy's URL. Two checks:

* ``play``: a chat-completions policy (the real ``openai`` SDK against the fake, which plays PERFECT right
  and WRONG wrong) loops over the client: tool calls become steps, text is the final answer;
* ``edges``: observations, a refused call, truncation at ``max_steps``, an episode left open at disconnect.

Prints one JSON line of what each saw. openenv-core 0.3's ``EnvClient`` is asynchronous; ``.sync()`` is its
synchronous wrapper, used here as docs/training.md shows.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import openai

from clients.training.openenv_env import EnvfarmAction, EnvfarmClient

job = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))


def play(env: Any, task_id: str) -> dict[str, Any]:
    first = env.reset(task_id=task_id).observation
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": first.policy},
        {"role": "user", "content": first.instruction},
    ]
    chat = openai.OpenAI(base_url=job["llm"], api_key="sk-test", max_retries=0)
    steps = []
    for _ in range(20):
        reply = chat.chat.completions.create(model="fake-model", messages=messages, tools=first.openai_tools())
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            end = env.step(EnvfarmAction(message=message.content or ""))
            state = env.state()
            return {
                "steps": steps,
                "done": end.done,
                "reward": end.reward,
                "partial_credit": end.observation.partial_credit,
                "episode_id": end.observation.episode_id,
                "state": {"task_id": state.task_id, "done": state.done, "step_count": state.step_count},
            }
        for call in message.tool_calls:
            step = env.step(EnvfarmAction(tool=call.function.name, arguments=json.loads(call.function.arguments)))
            steps.append([step.done, step.reward, step.observation.is_error])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": step.observation.content})
    raise AssertionError("the policy never answered")


def edges(env: Any) -> dict[str, Any]:
    first = env.reset(seed=1).observation  # a seed picks one of the served tasks
    bad = env.step(EnvfarmAction(tool="no_such_tool", arguments={})).observation
    ok = env.step(EnvfarmAction(tool="list_providers")).observation
    for _ in range(5):
        before_last = env.step(EnvfarmAction(tool="list_providers"))
    last = env.step(EnvfarmAction(tool="list_providers"))  # the 8th call: max_steps
    left_open = env.reset(task_id=job["perfect"]).observation.episode_id
    return {
        "first": {
            "task_id": first.task_id,
            "instruction": bool(first.instruction),
            "policy": bool(first.policy),
            "tool_keys": sorted(first.tools[0]),
            "openai_type": first.openai_tools()[0]["type"],
        },
        "bad": {"is_error": bad.is_error, "content": bad.content},
        "ok": {"is_error": ok.is_error, "result_type": type(ok.result).__name__, "content": ok.content[:1]},
        "before_last_done": before_last.done,
        "last": {"done": last.done, "truncated": last.observation.truncated, "reward": last.reward},
        "left_open": left_open,
    }


out: dict[str, Any] = {"openenv": version("openenv-core")}
with EnvfarmClient(base_url=job["app"]).sync() as env:
    out["play"] = {job["perfect"]: play(env, job["perfect"]), job["wrong"]: play(env, job["wrong"])}
with EnvfarmClient(base_url=job["app"]).sync() as env:
    out["edges"] = edges(env)
try:
    EnvfarmAction(tool="x", message="y")
    out["both_kinds_refused"] = ""
except ValueError as exc:
    out["both_kinds_refused"] = str(exc)
print(json.dumps(out))
