"""Run in ``.venv-verifiers`` (test_verifiers.py): the envfarm taskset on verifiers 0.4, against the test farm.

Arguments: ``cli`` or ``python``, the farm's URL, the model's base URL, a task selector, rollouts per task, an
output directory. ``cli`` runs ``vf-eval envfarm-verifiers`` (the console script of this environment) and reads
its ``traces.jsonl``; ``python`` runs the same through ``load_environment`` and ``Env.run_slot``. The model's key
is ``$FAKE_LLM_KEY``. An optional seventh argument names a simulated user's model (``python`` mode; it is
reached at the model's base URL with the same key).

Prints ``{"verifiers": version, "rollouts": [{task_id, episode_id, ok, errors, stop, rewards, metrics,
tool_texts}, ...]}``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import verifiers
import verifiers.v1 as vf
from envfarm_verifiers import load_environment

mode, farm_url, base_url, tasks, rollouts, out = sys.argv[1:7]
user_model = sys.argv[7] if len(sys.argv) > 7 else None


def summary(trace: dict[str, Any], episode_errors: list[Any]) -> dict[str, Any]:
    messages = [n.get("message") or {} for n in trace.get("nodes", [])]
    envfarm = trace.get("info", {}).get("envfarm", {})
    return {
        "task_id": envfarm.get("task_id") or trace["task"]["data"].get("task_id"),
        "episode_id": envfarm.get("episode_id"),
        "ok": trace["ok"],
        "errors": [e.get("message") for e in trace.get("errors", []) + episode_errors],
        "stop": trace.get("stop_condition"),
        "rewards": {k: v["score"] for k, v in trace.get("rewards", {}).items()},
        "metrics": trace.get("metrics", {}),
        "tool_texts": [m.get("content") for m in messages if m.get("role") == "tool"],
        "user_texts": [m.get("content") for m in messages if m.get("role") == "user"],
    }


def by_cli() -> list[dict[str, Any]]:
    vf_eval = Path(sys.executable).parent / "vf-eval"
    command = [str(vf_eval), "envfarm-verifiers", "--env.taskset.server", farm_url, "--env.taskset.tasks", tasks]
    command += ["-m", "fake-model", "--client.base-url", base_url, "--client.api-key-var", "FAKE_LLM_KEY"]
    command += ["-r", rollouts, "--no-push", "--rich", "None", "-o", out]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-5000:])
    (traces,) = Path(out).glob("*/traces.jsonl")
    episodes = [json.loads(line) for line in traces.read_text().splitlines() if line.strip()]
    return [summary(t, e.get("errors", [])) for e in episodes for t in e["traces"]]


async def by_python() -> list[dict[str, Any]]:
    user = {"user_model": user_model, "user_base_url": base_url, "user_api_key_var": "FAKE_LLM_KEY"}
    env = load_environment(server=farm_url, tasks=tasks, **(user if user_model else {}))
    ctx = vf.ModelContext(model="fake-model", client=vf.EvalClientConfig(base_url=base_url, api_key_var="FAKE_LLM_KEY"))
    async with env.serving():
        slots = [slot for task in env.taskset for slot in env.slots(task, int(rollouts))]
        episodes = await asyncio.gather(*(env.run_slot(slot, ctx) for slot in slots))
    return [
        summary(t.model_dump(mode="json"), [e.model_dump(mode="json") for e in episode.errors])
        for episode in episodes
        for t in episode.traces
    ]


found = by_cli() if mode == "cli" else asyncio.run(by_python())
print(json.dumps({"verifiers": verifiers.__version__, "rollouts": found}))
