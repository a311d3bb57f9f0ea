"""Dual control from the client side: the oracle pair replays the gold across both sides, and the LLM
user simulator calls its own tools when the agent asks it to act (over the fake OpenAI-compatible
API), its tool use seen by the user alone."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from clients import FarmEnv, LLMSettings, run_eval
from clients.errors import SelectionError
from clients.training.episode import load_task_rows
from clients.users.llm import STOP_TOKEN
from envfarm.embedded import EmbeddedServer
from envs.paths import BUILTIN_CATALOG

from ..envs.engine.test_dual_control import PHONE, write_phone_catalog
from .fakes import USER_SIM_MARKER, Reply, call, say

TASK = "phone_support-001"


@pytest.fixture(scope="module")
def phone_farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real farm serving the phone environment, where the user holds the phone, and the clinic,
    where only the agent acts."""
    folder = tmp_path_factory.mktemp("phone")
    write_phone_catalog(folder / "catalog")
    shutil.copytree(BUILTIN_CATALOG / "clinic", folder / "catalog" / "clinic")
    with EmbeddedServer(catalog=folder / "catalog", data_dir=folder / "data") as url:
        yield url


def _record(out: Path) -> dict:
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return record


def _farm_log(farm: str, episode_id: str) -> list[tuple[str, str, str]]:
    log = httpx.get(f"{farm}/episodes/{episode_id}", timeout=30).json()["log"]
    return [(c["tool"], c["actor"], c["transport"]) for c in log]


def test_the_oracle_pair_replays_the_gold_across_both_sides(phone_farm, make_config):
    config = make_config(agent="oracle", server=phone_farm, tasks=TASK)
    report = run_eval(config)
    record = _record(config.out)
    assert record["reward"] == 1.0, record["diff"]
    assert record["user"] == "oracle" and record["terminated"]
    assert [(c["tool"], c["actor"]) for c in record["tool_calls"]] == [
        ("get_line", "agent"),
        ("resume_line", "agent"),
        ("toggle_airplane_mode", "user"),
        ("check_status_bar", "user"),
    ]
    # The transcript is the agent's view: the user's tool use is not in it.
    assert not any("toggle" in json.dumps(m) for m in record["messages"] if m["role"] != "assistant")
    assert _farm_log(phone_farm, record["episode_id"]) == [
        ("get_line", "agent", "mcp"),
        ("resume_line", "agent", "mcp"),
        ("toggle_airplane_mode", "user", "mcp"),
        ("check_status_bar", "user", "mcp"),
    ]
    assert report.overall.pass_hat == {1: 1.0}
    assert report.tool_calls == {"agent": 2, "user": 2}
    assert "Tool calls: agent 2; user 2" in (config.out / "report.html").read_text()
    assert "Tool calls: agent 2; user 2" in (config.out / "summary.md").read_text()


def test_the_llm_user_acts_on_their_side_when_asked_and_reports_what_they_saw(phone_farm, llm, make_config):
    llm.script(
        "no service since yesterday",
        call(("get_line", {"line_id": "L1"})),
        call(("resume_line", {"line_id": "L1"})),
        say("Your line is active again. Please switch airplane mode off and tell me what the status bar shows."),
        say("Great, you are connected."),
    )
    llm.user_script(
        "You hold your phone",  # the user guide, in the simulator's prompt only where the user has tools
        "My phone has had no service since yesterday; my line is L1, my phone D1.",
        Reply(calls=[("toggle_airplane_mode", {"device_id": "D1"})]),
        Reply(calls=[("check_status_bar", {"device_id": "D1"})]),
        "Done: airplane mode is off and the status bar says connected.",
        f"Thanks! {STOP_TOKEN}",
    )
    config = make_config(
        agent="openai", base_url=llm.base_url, user="llm", user_model="fake-user", tasks=TASK, server=phone_farm
    )
    run_eval(config)
    record = _record(config.out)
    assert record["reward"] == 1.0, record["diff"]
    assert [(c["tool"], c["actor"], c["is_error"]) for c in record["tool_calls"]] == [
        ("get_line", "agent", False),
        ("resume_line", "agent", False),
        ("toggle_airplane_mode", "user", False),
        ("check_status_bar", "user", False),
    ]
    assert json.loads(record["tool_calls"][-1]["result"]) == {"status_bar": "connected"}
    users = [m["content"] for m in record["messages"] if m["role"] == "user"]
    assert users[-2:] == ["Done: airplane mode is off and the status bar says connected.", "Thanks!"]

    chats = llm.calls_to("chat")
    sim = [b for b in chats if b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    agent = [b for b in chats if not b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    assert all(
        sorted(t["function"]["name"] for t in b["tools"]) == ["check_status_bar", "toggle_airplane_mode"] for b in sim
    )
    assert PHONE["user_guide"] in sim[0]["messages"][0]["content"]
    # The user saw their own calls and results, as function calls of their own model ...
    seen = sim[-1]["messages"]
    assert [m["role"] for m in seen if m["role"] == "tool"] == ["tool", "tool"]
    assert any(m.get("tool_calls") and m["tool_calls"][0]["function"]["name"] == "check_status_bar" for m in seen)
    # ... and the agent saw neither, nor the user's tools.
    for body in agent:
        assert sorted(t["function"]["name"] for t in body["tools"]) == ["get_line", "resume_line"]
        assert not any(m.get("user_side") or "status_bar" in str(m.get("content")) for m in body["messages"])
    last_seen = agent[-1]["messages"]  # the agent's tool results are its own two calls'
    assert [m["tool_call_id"] for m in last_seen if m["role"] == "tool"] == ["call_0_0", "call_1_0"]
    assert _farm_log(phone_farm, record["episode_id"])[2:] == [
        ("toggle_airplane_mode", "user", "mcp"),
        ("check_status_bar", "user", "mcp"),
    ]


def test_a_user_without_tools_in_a_single_actor_environment_sees_none(llm, make_config):
    llm.user_script("Dr. Osei on Wednesday morning", "I need an appointment with Dr. Osei.", f"Bye. {STOP_TOKEN}")
    run_eval(
        make_config(
            agent="oracle",
            user="llm",
            user_model="sim",
            user_base_url=llm.base_url,
            user_api_key_env="FAKE_LLM_KEY",
            tasks="clinic-001",
        )
    )
    sim = llm.calls_to("chat")
    assert sim and all("tools" not in b for b in sim)
    assert "your own tools" not in sim[0]["messages"][0]["content"]


def test_trainer_datasets_leave_dual_control_tasks_out_and_say_why(phone_farm, caplog):
    with caplog.at_level(logging.WARNING, logger="envfarm.clients"):
        rows = load_task_rows(phone_farm, "all")
    assert rows and {r["env_id"] for r in rows} == {"clinic"}
    assert "1 selected task(s) are of dual-control environments (phone_support)" in caplog.text
    with pytest.raises(SelectionError, match=r"selects only dual-control tasks.*envfarm eval --user llm"):
        load_task_rows(phone_farm, "phone_support")


def test_the_gym_env_shows_the_users_side_and_runs_the_users_tools_as_the_user(phone_farm):
    env = FarmEnv(phone_farm)
    try:
        obs = env.reset(TASK)
        assert [t["name"] for t in obs["user_tools"]] == ["check_status_bar", "toggle_airplane_mode"]
        assert obs["user_guide"] == PHONE["user_guide"]
        as_agent, *_ = env.step({"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}})
        assert as_agent["is_error"] and "not found" in as_agent["content"]
        for action in (
            {"tool": "resume_line", "arguments": {"line_id": "L1"}},
            {"tool": "toggle_airplane_mode", "arguments": {"device_id": "D1"}, "actor": "user"},
        ):
            out, *_ = env.step(action)
            assert not out["is_error"], out
        _, reward, terminated, _, _ = env.step({"message": "Your line is back."})
        assert terminated and reward == 1.0
        clinic = env.reset("clinic-001")
        assert "user_tools" not in clinic
    finally:
        env.close()


def test_a_gym_env_with_a_simulated_user_converses_and_the_user_acts_on_their_side(phone_farm, llm):
    llm.user_script(
        "You hold your phone",
        "My phone has had no service since yesterday; my line is L1, my phone D1.",
        Reply(calls=[("toggle_airplane_mode", {"device_id": "D1"})]),
        Reply(calls=[("check_status_bar", {"device_id": "D1"})]),
        "Done. The status bar says connected now.",
        f"Thanks! {STOP_TOKEN}",
    )
    user = LLMSettings(model="fake-user", api_key="sk-test", base_url=llm.base_url)
    env = FarmEnv(phone_farm, user=user)
    try:
        obs = env.reset(TASK)
        assert obs["user_message"] == "My phone has had no service since yesterday; my line is L1, my phone D1."
        out, *_ = env.step({"tool": "resume_line", "arguments": {"line_id": "L1"}})
        assert not out["is_error"]
        ask = "Your line is active again. Please switch airplane mode off and tell me what the status bar shows."
        obs, reward, terminated, _, _ = env.step({"message": ask})
        assert not terminated and reward == 0.0
        assert obs["user_message"] == "Done. The status bar says connected now."
        episode_id = env.episode.episode_id if env.episode else ""
        obs, reward, terminated, _, info = env.step({"message": "Great, you are connected."})
        assert terminated and reward == 1.0 and obs["user_message"] == "Thanks!"
        assert info["score"].reward == 1.0
    finally:
        env.close()
    assert _farm_log(phone_farm, episode_id) == [
        ("resume_line", "agent", "rest"),
        ("toggle_airplane_mode", "user", "rest"),
        ("check_status_bar", "user", "rest"),
    ]
    sim = [b for b in llm.calls_to("chat") if b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    assert len(sim) == 5 and all("tools" in b for b in sim)
    assert ask in json.dumps(sim[1]["messages"])  # the user heard the agent, and then saw their own results
    assert [m["role"] for m in sim[3]["messages"]][-4:] == ["assistant", "tool", "assistant", "tool"]
