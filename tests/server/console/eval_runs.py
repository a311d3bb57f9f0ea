"""A run folder as ``envfarm eval`` writes it (the clients' own records and report writer), for the
console's run pages: clinic-001 twice, failed on the first trial (a booking in the wrong slot, scored
by the live farm, so its score and diff are real) and passed on the second; clinic-002 passed twice;
retail-001 passed twice. The failed trial's messages and arguments hold hostile text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from clients.records import RESULTS_FILE, ToolCallRecord, TrialRecord
from clients.report import build_report, write_report
from clients.wire import Score

from ..conftest import CLINIC_BOOKING
from .hostile import ALL

RUN_ID = "openai-my-model"


def _score(c: httpx.Client, task_id: str, calls: list[tuple[str, dict[str, Any]]], answer: str) -> Score:
    episode = c.post("/episodes", json={"task_id": task_id}).json()["episode_id"]
    for tool, arguments in calls:
        assert c.post(f"/episodes/{episode}/calls", json={"tool": tool, "arguments": arguments}).status_code == 200
    return Score.model_validate(c.post(f"/episodes/{episode}/score", json={"answer": answer}).json())


#: The episode the failed trial ran in (the trial page links to it).
EPISODE_ID = "ep_trialepisode01"


def _record(task_id: str, trial: int, score: Score | None, **extra: Any) -> TrialRecord:
    return TrialRecord(
        task_id=task_id,
        env_id=task_id.split("-")[0],
        sector="healthcare" if task_id.startswith("clinic") else "retail",
        trial=trial,
        agent="openai",
        model="my-model",
        reward=score.reward if score else 1.0,
        partial_credit=score.partial_credit if score else 1.0,
        score=score,
        **extra,
    )


def write_run(root: Path, farm: httpx.Client) -> Path:
    """The run folder ``root/RUN_ID``; ``farm`` is a client of a live farm that scores the failed trial."""
    wrong = {**CLINIC_BOOKING, "slot_id": "S022", "reason": ALL}
    failed_score = _score(farm, "clinic-001", [("book_appointment", wrong)], "Booked you at 11:30.")
    assert failed_score.reward == 0.0
    call = ToolCallRecord(
        id="call_1",
        tool="book_appointment",
        arguments=wrong,
        raw_arguments=json.dumps(wrong),
        is_error=False,
        result='{"appointment_id": "A1001", "status": "booked"}',
        turn=1,
        latency_ms=4.2,
    )
    # a call of the simulated user's own (dual control): the page marks who made it
    by_user = ToolCallRecord(
        id="call_u",
        tool="check_status_bar",
        arguments={"device_id": "D1"},
        raw_arguments='{"device_id": "D1"}',
        is_error=False,
        result='{"status_bar": "connected"}',
        turn=1,
        latency_ms=1.5,
        actor="user",
    )
    messages = [
        {"role": "system", "content": "# Clinic front desk policy"},
        {"role": "user", "content": "Hi, I'd like to see Dr. Osei on Wednesday morning. " + ALL},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "book_appointment", "arguments": json.dumps(wrong)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": call.result},
        {"role": "assistant", "content": "Booked you at 11:30. " + ALL},
    ]
    records = [
        _record(
            "clinic-001",
            0,
            failed_score,
            messages=messages,
            tool_calls=[call, by_user],
            answer="Booked you at 11:30.",
            episode_id=EPISODE_ID,
        ),
        _record("clinic-001", 1, None),
        _record("clinic-002", 0, None),
        _record("clinic-002", 1, None),
        _record("retail-001", 0, None),
        _record("retail-001", 1, None),
    ]
    out = root / RUN_ID
    out.mkdir(parents=True)
    run = {"agent": "openai", "model": "my-model", "user": "solo", "tasks": "clinic-001,clinic-002,retail-001"}
    (out / "run.json").write_text(json.dumps(run))
    (out / RESULTS_FILE).write_text("".join(r.model_dump_json() + "\n" for r in records) + '{"torn')
    write_report(build_report(records, run={**run, "trials": 2}, trials=2, expected=len(records)), out)
    return out
