"""The verifiers taskset end to end on verifiers 0.4: ``vf-eval envfarm-verifiers`` (and the Python API) in
``.venv-verifiers``, where the farm is not installed, against this suite's farm, with the fake
OpenAI-compatible server as the policy. verifiers runs its own chat loop (the ``null`` harness, a uv script),
its own MCP tool server (ours, forwarding to the farm over REST) and its own model proxy (which streams)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from packaging.version import Version

from envfarm.embedded import EmbeddedServer
from envs import Catalog

from ...envs.engine.test_dual_control import write_phone_catalog
from ..fakes import USER_SIM_MARKER, FakeLLM, call, say
from .policies import PHONE_OPENING, PHONE_REPORT, key_of, script_perfect, script_phone_user, script_wrong
from .trainers import assert_trainer_kept, run_script

PERFECT, WRONG = "clinic-001", "clinic-002"


@pytest.fixture
def model_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake model's key, read by verifiers from ``$FAKE_LLM_KEY``."""
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")


def episodes(farm_url: str) -> dict[str, str]:
    """Every episode of the farm: its status, by id."""
    items = httpx.get(f"{farm_url}/episodes", params={"limit": 500}).json()["items"]
    return {e["episode_id"]: e["status"] for e in items}


def run(mode: str, farm_url: str, llm: FakeLLM, tasks: str, rollouts: int, tmp_path: Path) -> Any:
    """``verifiers_run.py`` in ``.venv-verifiers``: ``cli`` (vf-eval) or ``python`` (load_environment)."""
    out = tmp_path / f"out-{mode}"
    args = [mode, farm_url, llm.base_url, tasks, str(rollouts), str(out)]
    return run_script("verifiers", "verifiers_run.py", *args, cwd=tmp_path)


def test_vf_eval_scores_each_rollout_as_its_own_farm_episode(farm_url, llm, model_key, tmp_path):
    script_perfect(llm, PERFECT)
    script_wrong(llm, WRONG)
    before = episodes(farm_url)
    out = run("cli", farm_url, llm, f"{PERFECT},{WRONG}", 2, tmp_path)

    assert Version(out["verifiers"]) >= Version("0.4")
    rollouts = out["rollouts"]
    by_task = {t: [r for r in rollouts if r["task_id"] == t] for t in (PERFECT, WRONG)}
    assert len(by_task[PERFECT]) == 2 and len(by_task[WRONG]) == 2
    for r in by_task[PERFECT]:
        assert r["ok"] and not r["errors"] and r["stop"] == "agent_completed"
        assert r["rewards"] == {"envfarm": 1.0}
        assert r["metrics"]["farm_reward"] == 1.0 and r["metrics"]["partial_credit"] == 1.0
    for r in by_task[WRONG]:
        assert r["ok"] and r["rewards"] == {"envfarm": 0.0} and r["metrics"]["farm_reward"] == 0.0
        assert 0.0 <= r["metrics"]["partial_credit"] < 1.0
    # one farm episode per rollout, every one closed
    ids = {r["episode_id"] for r in rollouts}
    assert len(ids) == 4 and all(r["metrics"]["farm_seconds"] > 0 for r in rollouts)
    after = episodes(farm_url)
    assert set(after) - set(before) == ids and {after[i] for i in ids} == {"closed"}
    # the model saw the episode's tools, the policy as system prompt and the instruction; results came from
    # the episode
    first = llm.calls_to("chat")[0]
    env_tools = {t.name for t in Catalog().get("clinic").environment.spec.tools}
    assert {t["function"]["name"] for t in first["tools"]} == env_tools
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert any("A1001" in text for text in by_task[PERFECT][0]["tool_texts"])


def test_bad_calls_are_tool_errors_and_failed_rollouts_close_their_episode(farm_url, llm, model_key, tmp_path):
    bad = call(("list_providers", "{not json"), ("no_such_tool", {}), ("find_patient_by_email", {}))
    llm.script(key_of(PERFECT), bad, say("Sorry."))
    before = episodes(farm_url)
    (r,) = run("python", farm_url, llm, PERFECT, 1, tmp_path)["rollouts"]
    invalid, unknown, refused = r["tool_texts"]
    assert "invalid JSON" in invalid and "no_such_tool" in unknown and refused.startswith("Error: ")
    assert r["ok"] and r["rewards"] == {"envfarm": 0.0} and r["metrics"]["partial_credit"] < 1.0
    assert episodes(farm_url)[r["episode_id"]] == "closed"

    llm.reset()
    llm.fail(*[500] * 50)  # the model endpoint fails every request of the rollout (its retries included)
    (failed,) = run("cli", farm_url, llm, PERFECT, 1, tmp_path)["rollouts"]
    assert not failed["ok"] and failed["errors"] and not failed["rewards"].get("envfarm")
    after = episodes(farm_url)
    new = set(after) - set(before) - {r["episode_id"]}
    assert failed["episode_id"] in new and {after[i] for i in new} == {"closed"}


def test_the_client_kept_what_verifiers_installed():
    versions = assert_trainer_kept("verifiers")
    assert Version(versions["verifiers"]) >= Version("0.4")


def test_with_a_simulated_user_a_rollout_is_a_conversation_and_the_user_acts_on_their_side(
    llm, model_key, tmp_path: Path
):
    llm.script(
        "no service since yesterday",
        call(("resume_line", {"line_id": "L1"})),
        say("Your line is active again. Please switch airplane mode off on your phone."),
        say("Great, you are connected."),
    )
    script_phone_user(llm)
    write_phone_catalog(tmp_path / "catalog")
    with EmbeddedServer(catalog=tmp_path / "catalog", data_dir=tmp_path / "data") as phone_farm:
        args = ["python", phone_farm, llm.base_url, "phone_support", "1", str(tmp_path / "out"), "fake-user"]
        (rollout,) = run_script("verifiers", "verifiers_run.py", *args, cwd=tmp_path)["rollouts"]
        log = httpx.get(f"{phone_farm}/episodes/{rollout['episode_id']}").json()["log"]
    assert rollout["ok"] and not rollout["errors"], rollout
    assert rollout["rewards"] == {"envfarm": 1.0}
    assert rollout["user_texts"] == [
        PHONE_OPENING,
        PHONE_REPORT,
    ]
    assert [(c["tool"], c["actor"]) for c in log] == [("resume_line", "agent"), ("toggle_airplane_mode", "user")]
    sim = [b for b in llm.calls_to("chat") if b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    assert len(sim) == 4 and all("tools" in b for b in sim)
