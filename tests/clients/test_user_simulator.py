"""The LLM user simulator (tau-bench style), over the fake OpenAI-compatible API."""

from __future__ import annotations

import json

from clients import run_eval
from clients.users.llm import STOP_TOKEN
from envs import Catalog

from .fakes import USER_SIM_MARKER, call, say

TASK = "clinic-001"
GOLD = {a.tool: a.arguments for a in Catalog().task(TASK)[1].gold_actions}
PROFILE = Catalog().task(TASK)[1].user


def test_simulated_user_converses_and_stops(llm, make_config):
    # The simulator's script is keyed by the instruction (in its system prompt); the agent's by the user's words.
    llm.user_script(
        "Dr. Osei on Wednesday morning",
        "Hi, I have had a cough for weeks and would like to see Dr. Osei.",
        "It's maria.lopez@example.com. Any time Wednesday morning works.",
        f"Perfect, thank you! {STOP_TOKEN}",
    )
    llm.script(
        "cough for weeks",
        say("Sure. What is the email on your file?"),
        call(("find_patient_by_email", GOLD["find_patient_by_email"]), ("list_providers", GOLD["list_providers"])),
        call(("list_open_slots", GOLD["list_open_slots"])),
        call(("book_appointment", GOLD["book_appointment"])),
        say("Booked A1001 on Wednesday at 10:30; your copay is 20."),
    )
    config = make_config(agent="openai", base_url=llm.base_url, user="llm", user_model="fake-user", tasks=TASK)
    report = run_eval(config)
    (record,) = [json.loads(line) for line in (config.out / "results.jsonl").read_text().splitlines()]
    assert record["reward"] == 1.0, record["diff"]
    assert record["user"] == "llm" and record["user_model"] == "fake-user" and record["model"] == "fake-model"
    assert record["terminated"] and not record["truncated"]
    users = [m["content"] for m in record["messages"] if m["role"] == "user"]
    assert users == [
        "Hi, I have had a cough for weeks and would like to see Dr. Osei.",
        "It's maria.lopez@example.com. Any time Wednesday morning works.",
        "Perfect, thank you!",  # the stop token is stripped; the conversation ends here
    ]
    assert record["tokens"]["user_output"] == 30 and record["tokens"]["agent_output"] == 50
    assert report.overall.pass_hat == {1: 1.0}

    sim = [b for b in llm.calls_to("chat") if b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    agent = [b for b in llm.calls_to("chat") if not b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    assert len(sim) == 3 and len(agent) == 5
    assert {b["model"] for b in sim} == {"fake-user"} and {b["model"] for b in agent} == {"fake-model"}
    system = sim[0]["messages"][0]["content"]
    assert PROFILE.persona in system
    assert all(f in system for f in PROFILE.known_facts)
    assert "ONLY if the agent asks" in system and PROFILE.reveal_if_asked[0] in system
    assert STOP_TOKEN in system
    # Roles are flipped for the simulator, and it never sees tool calls or results.
    last = sim[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert last[3]["content"] == "Sure. What is the email on your file?"
    assert last[5]["content"] == "Booked A1001 on Wednesday at 10:30; your copay is 20."
    assert not any("tool_calls" in m or m["role"] == "tool" for m in last)


def test_the_simulator_model_can_live_elsewhere(llm, make_config):
    config = make_config(
        agent="oracle",
        user="llm",
        user_model="sim",
        user_base_url=llm.base_url,
        user_api_key_env="FAKE_LLM_KEY",
        tasks=TASK,
    )
    llm.user_script("Dr. Osei on Wednesday morning", "I need an appointment with Dr. Osei.", f"Great. {STOP_TOKEN}")
    report = run_eval(config)
    assert report.overall.pass_hat == {1: 1.0}
    assert {b["model"] for b in llm.calls_to("chat")} == {"sim"}


def test_the_simulator_is_told_how_the_user_behaves():
    from clients.agents.base import EpisodeContext
    from clients.models import EpisodeInfo, TaskView
    from clients.users.llm import user_system_prompt
    from clients.wire import UserProfile

    task = TaskView(
        id="t",
        env="e",
        instruction="Renew my loan",
        user=UserProfile(behaviour=["If the agent says no, push back once."], reveal_if_asked=["It is L1."]),
    )
    prompt = user_system_prompt(EpisodeContext(task, EpisodeInfo(episode_id="x", env_id="e", mcp_url="u"), []))
    assert "How you behave in this conversation:\n- If the agent says no, push back once." in prompt
    plain = TaskView(id="t", env="e", instruction="Renew my loan")
    assert "How you behave" not in user_system_prompt(
        EpisodeContext(plain, EpisodeInfo(episode_id="x", env_id="e", mcp_url="u"), [])
    )
