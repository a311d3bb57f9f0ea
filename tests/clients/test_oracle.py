"""The oracle end to end: every task of the default catalog scores 1.0, through MCP."""

from __future__ import annotations

import json

import httpx

from clients import run_eval
from envfarm.cli import main
from envs import Catalog


def test_cli_eval_oracle_on_the_whole_catalog_with_an_embedded_server(tmp_path, capsys):
    out = tmp_path / "oracle"
    code = main(
        ["eval", "--agent", "oracle", "--tasks", "all", "--out", str(out), "--concurrency", "8", "--no-progress"]
    )
    assert code == 0, capsys.readouterr().err
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    catalog = Catalog()
    expected = {t.id for env_id in catalog.ids() for t in catalog.get(env_id).tasks}
    assert {r["task_id"] for r in records} == expected
    assert len(records) == len(expected)
    for r in records:
        assert r["reward"] == 1.0, (r["task_id"], r["diff"])
        assert r["error_class"] is None and not r["truncated"] and r["terminated"]
        gold = catalog.task(r["task_id"])[1].gold_actions
        assert [c["tool"] for c in r["tool_calls"]] == [a.tool for a in gold]
    report = json.loads((out / "report.json").read_text())
    assert report["overall"]["pass_hat"] == {"1": 1.0}
    assert report["trials_counted"] == len(expected)
    assert "pass^1" in capsys.readouterr().out


def test_oracle_calls_travel_over_mcp(make_config, farm_url):
    report = run_eval(make_config(agent="oracle", tasks="clinic-001,clinic-002", trials=2))
    assert report.overall.pass_hat == {1: 1.0, 2: 1.0}
    out = make_config(agent="oracle").out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    with httpx.Client(base_url=farm_url) as http:
        for r in records:
            status = http.get(f"/episodes/{r['episode_id']}").json()
            assert status["status"] == "closed"  # the helper closes episodes at the end
            assert {c["transport"] for c in status["log"]} == {"mcp"}
            assert [c["tool"] for c in status["log"]] == [c["tool"] for c in r["tool_calls"]]


def test_eval_serves_the_documents_where_knowledge_says(tmp_path, capsys):
    """``--knowledge full``: the document tools are withheld, so the oracle leaves their gold calls out
    and still scores 1.0; the run remembers the mode, and resuming with another is refused."""
    from ..envs.engine.test_knowledge import write_knowledge_catalog

    write_knowledge_catalog(tmp_path / "catalog")
    out = tmp_path / "full"
    args = ["eval", "--agent", "oracle", "--tasks", "card_help-001", "--out", str(out), "--no-progress"]
    code = main([*args, "--knowledge", "full", "--catalog", str(tmp_path / "catalog")])
    assert code == 0, capsys.readouterr().err
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["reward"] == 1.0 and [c["tool"] for c in record["tool_calls"]] == ["get_card"]
    assert json.loads((out / "run.json").read_text())["knowledge"] == "full"
    code = main([*args, "--knowledge", "none", "--catalog", str(tmp_path / "catalog")])
    assert code != 0 and "knowledge" in capsys.readouterr().err


def test_eval_searches_by_meaning_only_with_an_embedding_model(tmp_path, capsys, monkeypatch):
    """``--knowledge embeddings``: refused in one line before a farm starts when the embedded farm would
    have no model; with ``ENVFARM_EMBEDDINGS=local`` the oracle's search runs by meaning and scores 1.0."""
    from ..envs.engine.test_knowledge import write_knowledge_catalog

    write_knowledge_catalog(tmp_path / "catalog")
    args = ["eval", "--agent", "oracle", "--tasks", "card_help-001", "--no-progress", "--knowledge", "embeddings"]
    args += ["--catalog", str(tmp_path / "catalog")]
    monkeypatch.delenv("ENVFARM_EMBEDDINGS", raising=False)
    assert main([*args, "--out", str(tmp_path / "refused")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ENVFARM_EMBEDDINGS=local" in err and not (tmp_path / "refused").exists()
    monkeypatch.setenv("ENVFARM_EMBEDDINGS", "local")
    out = tmp_path / "meaning"
    assert main([*args, "--out", str(out)]) == 0, capsys.readouterr().err
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["reward"] == 1.0 and [c["tool"] for c in record["tool_calls"]][1] == "search_articles"
    assert json.loads((out / "run.json").read_text())["knowledge"] == "embeddings"
    assert json.loads(record["tool_calls"][1]["result"])[0]["article_id"] == "A1"
