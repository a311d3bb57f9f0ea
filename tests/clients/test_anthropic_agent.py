"""The Anthropic agent, driven through the official ``anthropic`` SDK against the fake Messages API."""

from __future__ import annotations

import json

from clients import run_eval
from envs import Catalog

from .fakes import call, say

TASK = "clinic-001"
KEY = "Dr. Osei on Wednesday morning"
GOLD = {a.tool: a.arguments for a in Catalog().task(TASK)[1].gold_actions}


def test_tool_use_with_errors_retries_and_final_answer(llm, make_config):
    llm.script(
        KEY,
        call(("find_patient_by_email", GOLD["find_patient_by_email"]), ("list_providers", GOLD["list_providers"])),
        call(("book_slot", {"slot_id": "S021"}), ("list_open_slots", {"provider": "PR01"})),
        call(("list_open_slots", GOLD["list_open_slots"]), text="Let me check Wednesday."),
        call(("book_appointment", GOLD["book_appointment"])),
        say("Booked: A1001 on Wednesday at 10:30 with Dr. Osei. Copay 20."),
    )
    llm.fail(429, 529)
    config = make_config(agent="anthropic", base_url=llm.anthropic_url, tasks=TASK)
    report = run_eval(config)
    (record,) = [json.loads(line) for line in (config.out / "results.jsonl").read_text().splitlines()]
    assert record["reward"] == 1.0, record["diff"]
    assert record["agent"] == "anthropic" and record["retries"] == 2
    assert [c["is_error"] for c in record["tool_calls"]] == [False, False, True, True, False, False]
    assert record["tokens"]["agent_output"] == 100
    assert report.overall.pass_hat == {1: 1.0}

    requests = llm.calls_to("messages")
    first, last = requests[2], requests[-1]  # the first two were answered by faults
    assert first["system"] == Catalog().get("clinic").spec.policy
    assert first["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": first["messages"][0]["content"][0]["text"]}]}
    ]
    assert {t["name"] for t in first["tools"]} >= {"book_appointment", "list_open_slots"}
    assert "input_schema" in first["tools"][0]
    roles = [m["role"] for m in last["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    # parallel tool results come back together in one user turn, errors flagged
    results = last["messages"][4]["content"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result"]
    assert [b.get("is_error", False) for b in results] == [True, True]
    assert "Tool 'book_slot' not found." in results[0]["content"]
    assert last["messages"][5]["content"][0] == {"type": "text", "text": "Let me check Wednesday."}
    assert last["messages"][5]["content"][1]["type"] == "tool_use"
