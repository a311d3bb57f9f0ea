"""The verifiers environment end to end: real verifiers, the real farm, the fake OpenAI-compatible server as the policy."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

from envs import Catalog

from ..fakes import call, say
from .conftest import need
from .policies import key_of, script_perfect, script_wrong

vf = need("verifiers")
from verifiers.types import ClientConfig  # noqa: E402

from clients.training.verifiers_env import EnvfarmEnv, FarmRubric, load_environment  # noqa: E402

PERFECT, WRONG = "clinic-001", "clinic-002"


def evaluate(env: EnvfarmEnv, llm, *, rollouts: int = 1) -> list[dict]:
    async def go() -> list[dict]:
        try:
            results = await env.evaluate(
                client=ClientConfig(api_base_url=llm.base_url, api_key_var="FAKE_LLM_KEY", max_retries=0),
                model="fake-model",
                rollouts_per_example=rollouts,
                state_columns=["episode_id", "farm_seconds"],
                on_progress=lambda *_: None,
            )
        finally:
            await env.aclose()
        return list(results["outputs"])

    return asyncio.run(go())


def episodes(farm_url: str) -> list[dict]:
    return httpx.get(f"{farm_url}/episodes", params={"limit": 500}).json()["items"]


def test_each_rollout_is_an_episode_scored_by_the_farm(farm_url, llm, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")
    script_perfect(llm, PERFECT)
    script_wrong(llm, WRONG)
    before = {e["episode_id"] for e in episodes(farm_url)}
    env = load_environment(server=farm_url, tasks=f"{PERFECT},{WRONG}")
    assert isinstance(env.rubric, vf.Rubric)
    outputs = evaluate(env, llm, rollouts=2)

    by_task = {t: [o for o in outputs if o["info"]["task_id"] == t] for t in (PERFECT, WRONG)}
    for o in by_task[PERFECT]:
        assert o["error"] is None and o["stop_condition"] == "answered"
        assert o["reward"] == 1.0 and o["metrics"]["farm_reward"] == 1.0 and o["metrics"]["partial_credit"] == 1.0
    for o in by_task[WRONG]:
        assert o["error"] is None and o["reward"] == 0.0 == o["metrics"]["farm_reward"]
        assert 0.0 <= o["metrics"]["partial_credit"] < 1.0
    # every rollout had an episode of its own, and every one is closed
    ids = {o["episode_id"] for o in outputs}
    assert len(ids) == 4 and all(o["farm_seconds"] > 0 for o in outputs)
    mine = [e for e in episodes(farm_url) if e["episode_id"] not in before]
    assert {e["episode_id"] for e in mine} == ids and {e["status"] for e in mine} == {"closed"}
    # the model saw the episode's MCP tools, the policy as system prompt and the instruction
    env_tools = {t.name for t in Catalog().get("clinic").environment.spec.tools}
    first = llm.calls_to("chat")[0]
    assert {t["function"]["name"] for t in first["tools"]} == env_tools
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    # the perfect policy's tool results came from the episode
    tool_texts = [m["content"] for m in by_task[PERFECT][0]["completion"] if m["role"] == "tool"]
    assert any("A1001" in t for t in tool_texts)


def test_failed_rollouts_close_their_episode_and_bad_calls_are_tool_errors(farm_url, llm, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")
    llm.fail(400)  # the model API refuses the first request: the rollout ends with an error
    before = {e["episode_id"] for e in episodes(farm_url)}
    (failed,) = evaluate(load_environment(server=farm_url, tasks=PERFECT), llm)
    assert failed["error"] is not None and failed["reward"] == 0.0
    (episode,) = [e for e in episodes(farm_url) if e["episode_id"] not in before]
    assert episode["status"] == "closed"

    llm.reset()
    llm.script(key_of(PERFECT), call(("list_providers", "{not json"), ("no_such_tool", {})), say("Sorry."))
    env = EnvfarmEnv(farm_url, tasks=PERFECT, transport="rest", reward="partial")
    (out,) = evaluate(env, llm)
    errors = [m["content"] for m in out["completion"] if m["role"] == "tool"]
    assert errors[0].startswith("Error: invalid arguments for tool 'list_providers'")
    assert errors[1].startswith("Error: ") and "no_such_tool" in errors[1]
    assert out["error"] is None and out["reward"] == out["metrics"]["partial_credit"]
    assert isinstance(env.rubric, vf.Rubric) and FarmRubric("partial").weights == [0.0, 1.0]


def test_vf_eval_runs_the_environment_by_name(farm_url, llm, tmp_path: Path):
    script_perfect(llm, PERFECT)
    script_wrong(llm, WRONG)
    vf_eval = Path(sys.executable).parent / "vf-eval"
    args = {"server": farm_url, "tasks": f"{PERFECT},{WRONG}"}
    model = ["-m", "fake-model", "-b", llm.base_url, "-k", "FAKE_LLM_KEY"]
    run_opts = ["-n", "2", "-r", "1", "-C", "episode_id,farm_seconds", "--disable-tui", "--save-results"]
    run_opts += ["--output-dir", str(tmp_path)]
    command = [str(vf_eval), "envfarm", "-a", json.dumps(args), *model, *run_opts]
    run = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "FAKE_LLM_KEY": "sk-test"},
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    (results,) = tmp_path.glob("evals/envfarm--fake-model/*/results.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    got = sorted((r["info"]["task_id"], r["reward"], r["farm_reward"], r["partial_credit"] < 1) for r in rows)
    assert got == [(PERFECT, 1.0, 1.0, False), (WRONG, 0.0, 0.0, True)]
    assert all(r["episode_id"].startswith("ep_") and r["farm_seconds"] > 0 for r in rows)
