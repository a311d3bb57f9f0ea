"""The whole pipeline: determinism, report, CLI, and the generated default catalog."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx

from envfarm.cli import main
from envs import Catalog, check_env
from synthesis.catalog.pipeline import SynthesisConfig, run_pipeline
from synthesis.domains.ontology import load_ontology

from ..domains import library, library_dict


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "synthesis-timing.json"
    }


def test_same_seed_gives_byte_identical_output(tmp_path):
    cfg = dict(tasks_per_env=12, variants=2)
    run_pipeline([library()], SynthesisConfig(out=tmp_path / "a", seed=5, **cfg))
    run_pipeline([library()], SynthesisConfig(out=tmp_path / "b", seed=5, workers=2, **cfg))
    run_pipeline([library()], SynthesisConfig(out=tmp_path / "c", seed=6, **cfg))
    a, b, c = _files(tmp_path / "a"), _files(tmp_path / "b"), _files(tmp_path / "c")
    assert a == b
    assert a.keys() == c.keys() and a != c
    assert "library_loans_v2/tasks.json" in a


def test_report_counts_stages_and_rejections(tmp_path):
    bad = library_dict()
    bad["id"] = "broken_library"
    bad["entities"][2]["lifecycle"]["transitions"][0]["effects"] = [
        {"kind": "add", "target": "via:publisher.copies", "amount": 1}
    ]
    from synthesis.domains.domain import Domain

    report = run_pipeline([library(), Domain.model_validate(bad)], SynthesisConfig(out=tmp_path, tasks_per_env=10))
    assert report["environments"]["attempted"] == 2 and report["environments"]["accepted"] == 1
    assert report["environments"]["rejected"]["broken_library"].startswith("domain_error")
    assert report["tasks"]["total"] == 10 and report["tools"]["average"] >= 20
    md = (tmp_path / "synthesis-report.md").read_text()
    assert "1 accepted of 2 attempted" in md and "broken_library" in md
    assert report["seed_rows"]["stranded_children"] == 0
    assert "seed rows under a parent in a state they could not be made in: 0 of" in md
    saved = json.loads((tmp_path / "synthesis-report.json").read_text())
    assert saved["environments"] == report["environments"]


def test_synthesized_catalog_loads_and_checks(tmp_path):
    run_pipeline([library()], SynthesisConfig(out=tmp_path, tasks_per_env=10))
    entry = Catalog(tmp_path).get("library_loans")
    assert len(entry.tasks) == 10
    assert check_env(entry.spec, entry.tasks).ok


def test_cli_synthesize_and_graph_exports(tmp_path, capsys):
    out = tmp_path / "cat"
    args = ["synthesize", "--domains", "library_loans", "--tasks-per-env", "8", "--out", str(out), "--workers", "1"]
    assert main(args) == 0
    assert "1 of 1 environments accepted" in capsys.readouterr().out
    for fmt in ("json", "graphml", "png"):
        target = tmp_path / f"g.{fmt}"
        assert (
            main(["envs", "graph", "library_loans", "--catalog", str(out), "--format", fmt, "--out", str(target)]) == 0
        )
        assert target.stat().st_size > 500
    g = nx.read_graphml(tmp_path / "g.graphml")
    assert g.has_edge("find_member_by_email", "list_loans_for_member")
    assert any(d.get("kind") == "state" for _, _, d in g.edges(data=True))
    assert main(["synthesize", "--domains", "nonsense", "--out", str(out)]) == 1
    assert "none of these" in capsys.readouterr().err


def test_graph_of_a_hand_written_env_is_inferred(tmp_path, capsys):
    target = tmp_path / "retail.json"
    assert main(["envs", "graph", "retail", "--format", "json", "--out", str(target)]) == 0
    data = json.loads(target.read_text())
    edges = {(e["source"], e["target"]) for e in data["edges"]}
    assert ("find_user_id_by_email", "get_user_details") in edges or len(edges) > 10


def test_default_catalog_is_generated_once_and_joins_the_reference_envs(tmp_path, monkeypatch):
    import synthesis.catalog.default_catalog as dc

    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ENVFARM_CATALOG", raising=False)
    monkeypatch.setattr(dc, "load_ontology", lambda: [library()])
    first = dc.ensure_default_catalog(workers=1)
    stamp = (first / "library_loans" / "tasks.json").stat().st_mtime_ns
    assert dc.ensure_default_catalog(workers=1) == first
    assert (first / "library_loans" / "tasks.json").stat().st_mtime_ns == stamp  # cached, not regenerated
    ids = Catalog().ids()
    assert {"retail", "clinic", "library_loans"} <= set(ids)


def test_a_task_the_checker_refuses_is_dropped_not_the_environment(tmp_path, monkeypatch):
    import synthesis.catalog.pipeline as pipeline
    from envs.formats.task import Assertion

    real = pipeline.generate_tasks

    def with_a_broken_task(*args, **kwargs):
        tasks, rejections = real(*args, **kwargs)
        bad = tasks[0].model_copy(update={"assertions": [Assertion(description="impossible", sql="SELECT 0")]})
        return [bad, *tasks[1:]], rejections

    monkeypatch.setattr(pipeline, "generate_tasks", with_a_broken_task)
    out = pipeline.synthesize_one(library(), 0, SynthesisConfig(out=tmp_path, tasks_per_env=10))
    assert out.status == "accepted" and out.tasks == 10
    assert out.task_rejections["failed_check_env"] == 1
    ids = [t["id"] for t in json.loads((tmp_path / "library_loans" / "tasks.json").read_text())]
    assert "library_loans-001" not in ids and len(ids) == 10


def test_the_pipeline_writes_the_quality_report_of_what_it_accepted(tmp_path):
    run_pipeline([library()], SynthesisConfig(out=tmp_path, seed=1, tasks_per_env=12))
    report = json.loads((tmp_path / "quality-report.json").read_text())
    assert [e["env_id"] for e in report["envs"]] == ["library_loans"]
    totals = report["totals"]
    assert totals["tasks"] == 12 and totals["refusal_share"] > 0
    assert totals["cross_user_write_tasks"] == 0 and totals["staff_tools"] == 0
    assert "# " in (tmp_path / "quality-report.md").read_text()


def test_a_limit_makes_exactly_that_many_environments_every_domain_first(tmp_path):
    """``bench synthesis --envs 200`` over 124 domains once made 248: variants round up, the limit cuts."""
    domains = load_ontology()[:3]
    config = SynthesisConfig(out=tmp_path, tasks_per_env=2, variants=2, limit=4, quality=False)
    report = run_pipeline(domains, config)
    assert report["environments"]["attempted"] == 4 and report["domains"] == 3
