"""The OpenAI-compatible agent, driven through the official ``openai`` SDK against the fake API."""

from __future__ import annotations

import json

from clients import run_eval
from envs import Catalog

from .fakes import call, say

TASK = "clinic-001"
KEY = "Dr. Osei on Wednesday morning"  # from the task's instruction
GOLD = {a.tool: a.arguments for a in Catalog().task(TASK)[1].gold_actions}


def script_clinic_001(llm) -> None:
    llm.script(
        KEY,
        # two calls in parallel
        call(("find_patient_by_email", GOLD["find_patient_by_email"]), ("list_providers", GOLD["list_providers"])),
        # arguments that are not JSON, and arguments that break the tool's schema, in parallel
        call(("list_open_slots", '{"provider_id": "PR01", '), ("find_patient_by_email", {"emial": "x"})),
        # a tool that does not exist
        call(("book_slot", {"slot_id": "S021"})),
        call(("list_open_slots", GOLD["list_open_slots"])),
        call(("book_appointment", GOLD["book_appointment"]), text="Booking it now."),
        say("You are booked: appointment A1001 with Dr. Osei on Wednesday at 10:30; your copay is 20."),
    )


def records_of(config) -> list[dict]:
    return [json.loads(line) for line in (config.out / "results.jsonl").read_text().splitlines()]


def test_tool_calls_errors_and_final_answer(llm, make_config):
    script_clinic_001(llm)
    config = make_config(agent="openai", base_url=llm.base_url, tasks=TASK)
    report = run_eval(config)
    (record,) = records_of(config)
    assert record["reward"] == 1.0, record["diff"]
    assert record["error_class"] is None and record["terminated"] and not record["truncated"]
    assert record["turns"] == 6
    calls = [(c["tool"], c["is_error"]) for c in record["tool_calls"]]
    assert calls == [
        ("find_patient_by_email", False),
        ("list_providers", False),
        ("list_open_slots", True),  # not JSON
        ("find_patient_by_email", True),  # schema
        ("book_slot", True),  # hallucinated
        ("list_open_slots", False),
        ("book_appointment", False),
    ]
    errors = [c["result"] for c in record["tool_calls"] if c["is_error"]]
    assert "expected a JSON object" in errors[0]
    assert "emial" in errors[1]
    assert "Tool 'book_slot' not found." in errors[2]
    assert record["tokens"]["agent_output"] == 60 and record["tokens"]["agent_input"] > 600
    assert report.overall.pass_hat == {1: 1.0}

    # What the model was sent: the policy as system prompt, the instruction as the user's message,
    # function tools from the MCP schemas, and every result (errors prefixed) as a tool message.
    requests = llm.calls_to("chat")
    first, last = requests[0], requests[-1]
    policy = Catalog().get("clinic").spec.policy
    assert first["messages"][0] == {"role": "system", "content": policy}
    assert first["messages"][1]["role"] == "user" and KEY in first["messages"][1]["content"]
    tools = {t["function"]["name"]: t for t in first["tools"]}
    assert tools["book_appointment"]["type"] == "function"
    assert tools["book_appointment"]["function"]["parameters"]["required"] == ["patient_id", "slot_id", "reason"]
    tool_messages = [m for m in last["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages[:2]] == ["call_0_0", "call_0_1"]
    assert [m["content"].startswith("Error: ") for m in tool_messages] == [False, False, True, True, True, False, False]
    assert "name" not in tool_messages[0]  # the OpenAI API takes no name on tool messages
    # the record keeps the whole conversation in OpenAI form, tool names included
    final = "You are booked: appointment A1001 with Dr. Osei on Wednesday at 10:30; your copay is 20."
    assert record["messages"][-1] == {"role": "assistant", "content": final}
    assert record["answer"] == "Booking it now.\n" + final
    assert record["messages"][3]["name"] == "find_patient_by_email"


def test_rate_limit_and_server_error_are_retried(llm, make_config):
    script_clinic_001(llm)
    llm.fail(429, retry_after="0.05")
    llm.fail(500)
    config = make_config(agent="openai", base_url=llm.base_url, tasks=TASK)
    report = run_eval(config)
    (record,) = records_of(config)
    assert record["retries"] == 2
    assert record["reward"] == 1.0 and record["error_class"] is None
    assert len(llm.calls_to("chat")) == 6 + 2
    assert report.infra_errors == []


def test_persistent_api_errors_are_infra_errors_not_zero_reward(llm, make_config):
    script_clinic_001(llm)
    llm.fail(503, 503, 503, 503)
    config = make_config(agent="openai", base_url=llm.base_url, tasks=TASK)
    report = run_eval(config)
    (record,) = records_of(config)
    assert record["error_class"] == "infra" and record["error_type"] == "LLMAPIError"
    assert "503" in record["error"]
    assert record["reward"] is None and record["score"] is None and record["retries"] == 3
    assert report.trials_counted == 0 and report.overall.pass_hat == {1: None}
    assert [(e.task_id, e.trial) for e in report.infra_errors] == [(TASK, 0)]


def test_a_wrong_final_state_scores_zero_with_a_diff(llm, make_config):
    llm.script(KEY, call(("find_patient_by_email", GOLD["find_patient_by_email"])), say("All done, see you Wednesday."))
    config = make_config(agent="openai", base_url=llm.base_url, tasks=TASK)
    report = run_eval(config)
    (record,) = records_of(config)
    assert record["reward"] == 0.0 and record["error_class"] is None
    assert 0.0 <= record["partial_credit"] < 1.0
    assert any("appointments" in line for line in record["diff"])
    signatures = [f.signature for f in report.failures]
    assert "appointments: expected row missing" in signatures
    assert "output not stated: A1001" in signatures
