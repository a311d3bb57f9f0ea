"""The admission gate: good tools pass; deliberately broken tools are rejected for the right reason."""

from __future__ import annotations

from typing import Any

from envs.formats.spec import EnvSpec
from synthesis.gate.probe import probe_env
from synthesis.tools.envgen import generate_env

from ..domains import library


def _broken(spec: EnvSpec, tool: str, edit: Any) -> EnvSpec:
    data = spec.model_dump(mode="json")
    for t in data["tools"]:
        if t["name"] == tool:
            edit(t)
    return EnvSpec.model_validate(data)


def test_generated_tools_all_pass_the_gate():
    g = generate_env(library(), seed=1)
    report = probe_env(library(), g.spec, g.meta, seed=1)
    assert report.rejected == {}
    assert report.cases > 200 and report.guards_checked >= 6 and report.sequence_steps == 300


def test_a_missing_status_check_is_rejected():
    d = library()
    g = generate_env(d, seed=1)

    def drop_status(t: dict[str, Any]) -> None:
        t["steps"] = [s for s in t["steps"] if not (s["kind"] == "require" and "needs it to be" in s["message"])]

    report = probe_env(d, _broken(g.spec, "return_loan", drop_status), g.meta, seed=1)
    assert report.rejected["return_loan"].startswith("guard_not_enforced")
    assert set(report.rejected) == {"return_loan"}


def test_a_guard_whose_predicate_was_weakened_is_caught_by_the_oracle():
    d = library()
    g = generate_env(d, seed=1)

    def weaken(t: dict[str, Any]) -> None:
        for s in t["steps"]:
            if s["kind"] == "require" and "in the future" in s["message"]:
                s["sql"] = "SELECT 1"

    report = probe_env(d, _broken(g.spec, "renew_loan", weaken), g.meta, seed=1)
    # the call the oracle refuses for its date either succeeds or fails on a later rule: caught either way
    reason = report.rejected["renew_loan"]
    assert reason.startswith(("guard_not_enforced", "wrong_guard_error")), reason
    assert "the call succeeded" in reason or "due_date" in reason


def test_a_tool_that_breaks_an_invariant_is_rejected():
    d = library()
    g = generate_env(d, seed=1)

    def overdraw(t: dict[str, Any]) -> None:
        for s in t["steps"]:
            if s["kind"] == "exec" and '"copies_available" + 1' in s["sql"]:
                s["sql"] = s["sql"].replace('"copies_available" + 1', "copies_available - 100")

    report = probe_env(d, _broken(g.spec, "return_loan", overdraw), g.meta, seed=1)
    assert "return_loan" in report.rejected
    assert report.rejected["return_loan"].split(":")[0] in ("valid_call_failed", "invariant_broken")
    assert "CHECK constraint failed" in report.rejected["return_loan"] or "invariant" in report.rejected["return_loan"]


def test_a_read_tool_that_ignores_its_schema_or_fails_is_rejected():
    d = library()
    g = generate_env(d, seed=1)

    def loosen(t: dict[str, Any]) -> None:
        t["parameters"] = {"type": "object", "properties": {"member_id": {}}}

    report = probe_env(d, _broken(g.spec, "get_member_details", loosen), g.meta, seed=1)
    assert report.rejected["get_member_details"].startswith("schema_not_enforced")

    def wrong_table(t: dict[str, Any]) -> None:
        t["steps"][-1]["sql"] = (
            t["steps"][-1]["sql"].replace('FROM "members" t', 'FROM "books" t').replace("t.member_id", "t.book_id")
        )

    report = probe_env(d, _broken(g.spec, "get_member_details", wrong_table), g.meta, seed=1)
    assert "get_member_details" in report.rejected


def test_the_pipeline_drops_rejected_tools_and_counts_reasons(tmp_path):
    from synthesis.catalog.pipeline import SynthesisConfig, synthesize_one

    data_dir = tmp_path / "out"
    outcome = synthesize_one(library(), 0, SynthesisConfig(out=data_dir, tasks_per_env=10))
    assert outcome.status == "accepted" and outcome.tool_rejections == {}
    assert (data_dir / "library_loans" / "graph.json").exists()
