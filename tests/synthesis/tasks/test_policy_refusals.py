"""Tasks that test judgment, end to end through the pipeline: refusals that rest on rules the tools do
not check, answers that must tell records apart, and scripted agents that try to pass without
judgment (``envfarm bench gaming``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from envfarm.cli import cli
from envs import Environment
from envs.catalog import CatalogEntry, load_env_dir
from envs.grading.outputs import output_present
from envs.grading.scoring import score_episode
from envs.quality.already import refusals_of_done_actions
from envs.quality.derived import derived_arguments
from envs.quality.gaming import (
    DOCUMENT_WRITES,
    DOCUMENTS,
    INFORMATION,
    OPEN_AGENTS,
    POLICY_REFUSAL,
    TARGETS,
    USER_ACTS,
    WRITE_VALUE,
    bench_gaming,
    task_class,
)
from envs.quality.judgment import asks_why
from envs.quality.spec import Ownership
from synthesis.catalog.pipeline import SynthesisConfig, synthesize_one
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

DOMAINS = (
    "library_loans",
    "airline_rebooking",
    "hotel_room_reservations",
    "pet_insurance_claims",
    "collision_repair_shop",
)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[CatalogEntry]]:
    out = tmp_path_factory.mktemp("judgment")
    by_id = {d.id: d for d in load_ontology()}
    for name in DOMAINS:
        outcome = synthesize_one(by_id[name], 0, SynthesisConfig(out=out, quality=False))
        assert outcome.status == "accepted", outcome.reason
    return out, [load_env_dir(out / name) for name in DOMAINS]


def test_refusals_resting_on_policy_only_rules_change_the_state_when_acted_on(catalog):
    _, entries = catalog
    seen = 0
    for entry in entries:
        env = entry.environment
        for task in entry.tasks:
            for refusal in task.refusals:
                rule = env.spec.rule(refusal.rule) if refusal.rule else None
                if rule is None or rule.enforced_by != "policy" or refusal.call is None:
                    continue
                ep = env.episode(task)
                ep.replay(task.gold_actions)
                before = ep.state_hash()
                assert ep.call_tool(refusal.call.tool, refusal.call.arguments).wrote, task.id
                assert ep.state_hash() != before
                # the right words do not save an agent that acted
                assert score_episode(env, task, ep, answer=task.answer or "").reward == 0.0
                seen += 1
    assert seen >= 15


def test_no_instruction_gives_a_refusal_away_and_no_question_is_answered_by_a_dump(catalog):
    _, entries = catalog
    assert not [t.id for e in entries for t in e.tasks if asks_why(t.instruction)]
    questions = 0
    for entry in entries:
        for t in entry.tasks:
            if "information" not in t.tags:
                continue
            questions += 1
            assert t.answer is not None and not any(output_present(d, t.answer) for d in t.distractors), t.id
            ep = entry.environment.episode(t)
            shown = json.dumps([r.content for r in ep.replay(t.gold_actions)])
            # either other records' values must be left out, or the answer is a value no tool shows
            assert t.distractors or not any(output_present(o, shown) for o in t.outputs), t.id
    assert questions >= 10


def test_policy_refusals_are_a_sixth_of_the_tasks(catalog):
    _, entries = catalog
    classes = [task_class(e.environment, t) for e in entries for t in e.tasks]
    assert classes.count(POLICY_REFUSAL) / len(classes) >= 0.15


def test_gaming_agents_fail_the_tasks_they_target_and_the_oracle_passes_all(catalog):
    _, entries = catalog
    report = bench_gaming(entries)
    assert report.tasks[POLICY_REFUSAL] >= 15 and report.tasks[INFORMATION] >= 10
    for cls in report.tasks:
        assert report.rate("oracle", cls) == 1.0, cls
    # Over the tasks each agent targets taken together: on four domains a class holds ~20 tasks, so
    # one task is 5 % of it, and an agent whose answer happens to be right once (quoting a policy line
    # that says "not yet in review" beside the status in review) is no gaming. The bound per class is
    # the bench's, over the whole catalog (docs/synthesis.md, "Gaming").
    for agent, targets in TARGETS.items():
        if (
            agent == "oracle"
            or agent in OPEN_AGENTS
            or set(targets)
            <= {
                USER_ACTS,
                DOCUMENTS,
                DOCUMENT_WRITES,
            }
        ):  # no dual control nor documents
            continue  # here: tests/envs/quality/test_dual_control_gaming.py, tests/synthesis/knowledge/
        n = sum(report.tasks[cls] for cls in targets)
        passed = sum(report.passed[agent][cls] for cls in targets)
        # an answer from the last record the gold calls read ("When was my payment of 420.01 paid?",
        # its details read last) is the open info-latest-field kind; on 25 questions two such are 8 %
        allowed = 2 if set(targets) == {INFORMATION} else 0.05 * n
        # write tasks that ask for a value are fewer here (15 on four domains): the bound still holds
        assert n >= 20 or set(targets) == {WRITE_VALUE}, (agent, n)
        assert passed <= max(allowed, 0.05 * n), (agent, passed, n)
    assert report.rate("act-anyway", POLICY_REFUSAL) == 0.0


def test_the_gaming_bench_command_writes_its_json(catalog, tmp_path):
    out_dir, entries = catalog
    out = tmp_path / "gaming.json"
    result = CliRunner().invoke(cli, ["bench", "gaming", "--catalog", str(out_dir), "--out", str(out), DOMAINS[0]])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["pass_rate"]["oracle"][POLICY_REFUSAL] == 1.0
    # the bound is a catalog's share (docs/synthesis.md, "Gaming"); on one domain's few tasks of a class
    # a single task that only a refusal answers (no allowed twin, no other write) is the whole share
    for agent, classes in data["targets"].items():
        if agent == "oracle" or agent in data["open_agents"]:
            continue
        for cls in classes:
            n = data["tasks"].get(cls, 0)
            passed = round((data["pass_rate"][agent].get(cls) or 0.0) * n)
            assert passed <= max(1, 0.05 * n), (agent, cls, passed, n)
    assert data["worst_gaming_rate_on_target"] is not None
    assert set(data["open_agents"]) == OPEN_AGENTS and data["worst_open_rate_on_target"] is not None
    assert sum(data["tasks"].values()) == len(entries[0].tasks)


def test_the_twin_is_the_served_environment_with_every_rule_checked(catalog):
    _, entries = catalog
    entry = entries[0]
    env = Environment(entry.spec)
    assert any(r.enforced_by == "policy" for r in env.spec.rules)
    assert all(env.spec.tool(r.tool) is not None for r in env.spec.rules)


def test_a_third_of_the_tasks_need_a_value_worked_out(catalog):
    _, entries = catalog
    derived = [bool(derived_arguments(e.environment, Ownership.of(e.spec), t)) for e in entries for t in e.tasks]
    assert sum(derived) / len(derived) >= 0.2  # the default catalog: see docs/synthesis.md


def test_some_users_push_back_or_hold_a_wrong_belief_only_when_a_refusal_is_coming(catalog):
    _, entries = catalog
    tasks = [t for e in entries for t in e.tasks]
    acting = [t for t in tasks if any("push back" in b or "you believe" in b for b in t.user.behaviour)]
    assert all(t.refusals for t in acting)
    # users who change their mind are rare (a tenth of first writes that are moves): drawn until some are
    d = assign_enforcement(next(d for d in load_ontology() if d.id == "hotel_room_reservations"))
    g, twin = generate_env(d, seed=0), generate_env(d, seed=0, enforce_all=True)
    minded = [t for t in tasks if any("change your mind" in b for b in t.user.behaviour)]
    for seed in range(1, 16):
        if minded:
            break
        more = generate_tasks(d, g.spec, g.meta, count=30, seed=seed, twin=twin.spec)[0]
        minded = [t for t in more if any("change your mind" in b for b in t.user.behaviour)]
    assert minded and all(t.expects_change and not t.refusals for t in minded)
    for t in minded:  # the record first asked for and then dropped is not also asked for in earnest
        script = next(b for b in t.user.behaviour if "change your mind" in b)
        first = script.removeprefix("Start by asking the agent to ").split(". Once the agent", 1)[0]
        assert first not in t.instruction, t.id
    refused = [t for t in tasks if t.refusals]
    assert 0.25 <= len(acting) / len(refused) <= 0.8
    said = " ".join(b for t in acting for b in t.user.behaviour)
    assert "push back once" in said and "you believe" in said


def test_every_refusal_has_claim_words_unless_another_action_shares_its_verb(catalog):
    # a participle that is the reason ("paid") is still a claim word: the grader reads "it's already
    # paid" as the record's state; only another write of the same verb leaves a refusal without them
    _, entries = catalog
    missing = [
        (t.id, r.request)
        for e in entries
        for t in e.tasks
        for r in t.refusals
        if not r.claims
        and not any(
            g.tool.split("_")[0] == r.request.split()[0] and e.environment.tools[g.tool].kind == "write"
            for g in t.gold_actions
        )
    ]
    assert sum(len(t.refusals) for e in entries for t in e.tasks)
    assert not missing


def test_no_refusal_asks_for_what_its_record_already_is(tmp_path):
    # paying a citation that is already paid: the user knows it is paid, and asks for nothing it
    # already is (measure 85); seed 3's draw held such refusals before, and still refuses others
    domain = next(d for d in load_ontology() if d.id == "parking_citation_appeals")
    assert synthesize_one(domain, 3, SynthesisConfig(out=tmp_path, quality=False)).status == "accepted"
    entry = load_env_dir(next(tmp_path.glob("*/spec.json")).parent)
    refusals = [r for t in entry.tasks for r in t.refusals]
    assert refusals
    assert not [r for r in refusals if r.reason == ["paid"] and r.request.startswith("pay ")]
    assert refusals_of_done_actions(entry.spec, entry.tasks).refusals_of_done_action == 0
