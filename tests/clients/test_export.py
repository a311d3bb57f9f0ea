"""SFT and task exports."""

from __future__ import annotations

import itertools
import json

from clients import export_sft, run_eval
from envfarm.cli import main

from .fakes import call, say


def read(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_sft_export_of_an_oracle_run(make_config, tmp_path):
    config = make_config(agent="oracle", tasks="clinic")
    run_eval(config)
    out = tmp_path / "sft.jsonl"
    assert main(["export", "sft", "--from", str(config.out), "--out", str(out)]) == 0
    rows = read(out)
    assert len(rows) == 8
    for row in rows:
        assert set(row) == {"messages", "tools"}
        assert [m["role"] for m in row["messages"][:2]] == ["system", "user"]
        assert row["messages"][-1]["role"] == "assistant" and row["messages"][-1]["content"]
        tools = json.loads(row["tools"])  # JSON text, as TRL reads it
        assert {t["type"] for t in tools} == {"function"}
        assert {"name", "description", "parameters"} <= set(tools[0]["function"])
        ids = set()
        for m in row["messages"]:
            for c in m.get("tool_calls", []):
                assert isinstance(json.loads(c["function"]["arguments"]), dict)
                ids.add(c["id"])
            if m["role"] == "tool":
                assert m["tool_call_id"] in ids and m["name"]

    share = tmp_path / "sharegpt.jsonl"
    assert export_sft(config.out, share, fmt="sharegpt") == 8
    for row in read(share):
        roles = [t["from"] for t in row["conversations"]]
        assert roles[0] == "human" and roles[-1] == "gpt"
        for a, b in itertools.pairwise(roles):
            assert (a in ("human", "observation")) != (b in ("human", "observation"))  # they alternate
        assert isinstance(json.loads(row["tools"]), list) and row["system"]


def test_min_reward_filters(llm, make_config, tmp_path):
    llm.script("Dr. Osei on Wednesday morning", call(("list_providers", {})), say("Sorry, no."))
    config = make_config(agent="openai", base_url=llm.base_url, tasks="clinic-001")
    run_eval(config)
    assert export_sft(config.out, tmp_path / "a.jsonl") == 0
    assert export_sft(config.out, tmp_path / "b.jsonl", min_reward=0.0) == 1


def test_task_export_has_no_gold(farm_url, tmp_path, capsys):
    out = tmp_path / "tasks.jsonl"
    assert main(["export", "tasks", "--tasks", "env:clinic,retail", "--out", str(out), "--server", farm_url]) == 0
    rows = read(out)
    assert len(rows) == 28
    assert set(rows[0]) == {"id", "env", "sector", "instruction", "user", "difficulty", "tags"}
    assert {r["env"] for r in rows} == {"clinic", "retail"}
    assert set(rows[0]["user"]) == {"persona", "known_facts", "reveal_if_asked", "behaviour"}
    assert "wrote 28 tasks" in capsys.readouterr().err


def test_export_from_a_directory_without_a_run(tmp_path, capsys):
    assert main(["export", "sft", "--from", str(tmp_path), "--out", str(tmp_path / "x.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "holds no evaluation run" in err and len(err.strip().splitlines()) == 1
