"""Tasks that test judgement: refusals, partial refusals, dependent chains, hidden facts, checklists
written from the goals, and the gate against writes to other users' records."""

from __future__ import annotations

import re
from typing import Any

import pytest

from envs import Environment, Task, check_env, score_episode
from envs.formats.spec import EnvSpec
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

from ..domains import library

_DOMAINS = ("airline_rebooking", "library_loans", "pet_insurance_claims")
_USER_TABLES = {"airline_rebooking": "passengers", "library_loans": "members", "pet_insurance_claims": "policyholders"}


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    domains = {d.id: d for d in load_ontology()}
    out = []
    for name in _DOMAINS:
        d = domains[name]
        g = generate_env(d, seed=0)
        out.append((g.spec, generate_tasks(d, g.spec, g.meta, count=30, seed=0)[0]))
    return out


def _all(generated: list[tuple[EnvSpec, list[Task]]]) -> list[tuple[EnvSpec, Task]]:
    return [(spec, t) for spec, tasks in generated for t in tasks]


def test_every_kind_is_verified_by_check_env(generated):
    for spec, tasks in generated:
        report = check_env(spec, tasks)
        assert report.ok, report.problems[:3]


def test_a_quarter_of_tasks_expect_a_refusal(generated):
    tasks = [t for _, t in _all(generated)]
    refusals = [t for t in tasks if {"refusal", "partial-refusal"} & set(t.tags)]
    assert len(refusals) / len(tasks) >= 0.25
    assert any("partial-refusal" in t.tags for t in refusals)


def _refused_key(refusal: Any) -> str:
    """The primary key of the refused record: the refused call's first argument (none for a
    hand-written task that names no call)."""
    return str(next(iter(refusal.call.arguments.values()))) if refusal.call else ""


def test_a_refused_request_is_refused_by_the_tool_and_changes_nothing(generated):
    seen = 0
    for spec, t in _all(generated):
        if not t.refusals:
            continue
        env = Environment(spec)
        reasons = [value for r in t.refusals for value in r.reason]
        assert reasons and t.expects_change == ("refusal" not in t.tags)
        ep = env.episode(t)
        results = ep.replay(t.gold_actions)
        changed = {str(k[0]) for keys in ep.changed_keys().values() for k in keys}
        assert not changed & {_refused_key(r) for r in t.refusals}, t.id  # the refused record is as it was
        if "refusal" in t.tags:
            assert not ep.changed_keys()  # a refusal alone: the expected state is the initial one
        # the reason is in what the agent read, so an agent can state it
        shown = str([r.content for r in results]).lower().replace("_", " ") + spec.policy.lower()
        assert all(value.lower() in shown for value in reasons), (t.id, reasons)  # or a limit the policy states
        seen += 1
    assert seen >= 10


def test_a_refusal_comes_with_a_request_that_is_carried_out(generated):
    """A refusal alone is passed by an agent that turns every request down; most refusal tasks ask
    for the same action on another of the user's records, where it is allowed."""
    refusals = [t for _, t in _all(generated) if t.refusals and "synthesized" in t.tags]
    alone = [t.id for t in refusals if not t.expects_change]
    twins = [t for t in refusals if "same-action-allowed" in t.tags]
    assert len(alone) <= 0.05 * len(refusals), alone
    assert len(twins) >= 0.15 * len(refusals)
    for t in twins:
        refused = {r.call.tool: _refused_key(r) for r in t.refusals if r.call}
        done = [c for c in t.gold_actions if c.tool in refused]
        assert done and all(str(next(iter(c.arguments.values()))) != refused[c.tool] for c in done), t.id


def test_an_agent_that_does_what_a_rule_forbids_scores_zero(generated):
    """Forcing the refused change through (by editing the state) fails the task and its checklist."""
    checked = 0
    for spec, t in _all(generated):
        kept = [
            a
            for a in t.assertions
            if any(f"'{_refused_key(r)}'" in a.sql for r in t.refusals) and " still " in a.description
        ]
        if not kept:
            continue
        env = Environment(spec)
        ep = env.episode(t)
        ep.replay(t.gold_actions)
        table = kept[0].sql.split(" FROM ")[1].split()[0]
        where = kept[0].sql.split(" WHERE ")[1].split(" AND ")[0]
        column = kept[0].sql.split(" AND ")[1].split(" = ")[0]
        if column.startswith("abs("):
            continue
        from envs.formats.task import PatchOp

        key_col, _, key = where.partition(" = ")
        current = kept[0].sql.split(" AND ")[1].split(" = ")[1].strip("'")
        col = next(c for c in spec.table(table).columns if c.name == column)  # type: ignore[union-attr]
        other = next((v for v in col.enum or [] if v != current), None)
        if other is None:
            continue
        ep.apply_patch([PatchOp(op="update", table=table, where={key_col: key.strip("'")}, set={column: other})])
        score = score_episode(env, t, ep, answer=t.answer or "")
        assert score.reward == 0.0 and score.partial_credit < 1.0, t.id
        checked += 1
    assert checked >= 3


def test_dependent_chains_act_on_what_an_earlier_write_made_or_changed(generated):
    dependent = [(spec, t) for spec, t in _all(generated) if "dependent-chain" in t.tags]
    assert len(dependent) >= 10
    for spec, t in dependent:
        env = Environment(spec)
        ep = env.episode(t)
        touched: set[Any] = set()
        found = False
        for call in t.gold_actions:
            before = {k: set(v) for k, v in ep.changed_keys().items()}
            result = ep.call_tool(call.tool, call.arguments)
            if spec.tool(call.tool).kind != "write":  # type: ignore[union-attr]
                continue
            if touched & {str(v) for v in call.arguments.values()}:
                found = True
            after = ep.changed_keys()
            touched |= {k[0] for table, keys in after.items() for k in keys - before.get(table, set())}
            if isinstance(result.content, dict):
                touched |= {str(v) for v in result.content.values()} & {k[0] for keys in after.values() for k in keys}
        assert found, t.id


def test_facts_the_user_reveals_only_when_asked_are_not_in_the_instruction(generated):
    hidden = 0
    for _, t in _all(generated):
        for fact in t.user.reveal_if_asked:
            hidden += 1
            assert fact not in t.instruction
            # a day in words is one value ("June 19"), found as a whole: "19" is no part of "1973"
            days = re.findall(r"[A-Z][a-z]+ \d{1,2}(?:, \d{4})?", fact)
            rest = re.sub(r"[A-Z][a-z]+ \d{1,2}(?:, \d{4})?", " ", fact)
            values = days + [w.strip(".,'") for w in rest.split() if any(ch.isdigit() for ch in w) or "@" in w]
            said = [re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", t.instruction) for v in values]
            assert not values or not all(said), (t.id, fact, t.instruction)
    assert hidden >= 20  # "you mean …" facts only where two records could be meant and nothing is refused


def test_no_raw_enum_identifiers_in_what_a_person_reads(generated):
    for spec, t in _all(generated):
        enums = {v for table in spec.tables for c in table.columns for v in (c.enum or []) if "_" in v}
        text = " ".join([t.instruction, *t.user.known_facts, *t.user.reveal_if_asked, *t.outputs])
        assert not [v for v in enums if v in text.split() or f" {v}." in text], (t.id, text)


def test_checklists_say_what_must_not_change(generated):
    tasks = [t for _, t in _all(generated)]
    kept = [t for t in tasks if any(" still " in a.description or "unchanged" in a.description for a in t.assertions)]
    assert len(kept) / len(tasks) >= 0.3


def test_write_tools_are_covered_by_tasks(generated):
    for spec, tasks in generated:
        writes = {t.name for t in spec.tools if t.kind == "write"}
        used = {c.tool for t in tasks for c in t.gold_actions} & writes
        assert len(used) / len(writes) >= 0.7, (spec.id, writes - used)


def test_a_tool_that_disagrees_with_its_domain_fails_the_checklist():
    """The checklist is written from the domain, not from the gold run: a tool whose effect was changed
    after the tasks were made no longer satisfies them."""
    d = library()
    g = generate_env(d, seed=1)
    tasks, _ = generate_tasks(d, g.spec, g.meta, count=30, seed=1)
    data = g.spec.model_dump(mode="json")
    tool = next(t for t in data["tools"] if t["name"] == "renew_loan")
    for step in tool["steps"]:
        if step["kind"] == "exec" and "days" in step["sql"]:
            step["sql"] = step["sql"].replace("'+' ||", "'+1' ||")  # renews for 10x the days
    broken = EnvSpec.model_validate(data)
    renewals = [t for t in tasks if any(c.tool == "renew_loan" for c in t.gold_actions)]
    assert renewals
    report = check_env(broken, renewals)
    assert not report.ok
    assert any("does not hold" in p.message or "scores 0.0" in p.message for p in report.problems)


def test_no_task_writes_to_another_users_records(generated):
    for spec, t in _all(generated):
        if not t.expects_change:
            continue
        ep = Environment(spec).episode(t)
        ep.replay(t.gold_actions)
        user_table = _USER_TABLES[spec.id]
        changed_users = {k[0] for k in ep.changed_keys().get(user_table, set())}
        assert len(changed_users) <= 1, t.id


def test_the_quality_report_finds_nothing_to_fault(generated):
    """The generated environments pass the catalog quality report's data measures."""
    from types import SimpleNamespace

    from envs.quality import quality_report

    entries = [SimpleNamespace(spec=s, tasks=t, environment=Environment(s), env_id=s.id) for s, t in generated]
    totals = quality_report(entries).totals
    assert totals.coherence_rows_checked > 100 and totals.coherence_violations == 0
    assert totals.after_event_in_future == 0 and totals.before_event_in_past == 0
    assert totals.ambiguous_goals == 0 and totals.cross_user_write_tasks == 0
    assert totals.reveal_facts_in_instruction == 0 and totals.staff_tools == 0
    assert totals.refusal_share >= 0.25 and totals.replay_errors == 0


def test_named_statuses_get_dates_on_their_side_of_the_clock():
    from synthesis.domains.timing import settle_named_dates

    d = library()
    g = generate_env(d, seed=1)
    data = g.spec.model_dump(mode="json")
    data["tables"].append(
        {
            "name": "visits",
            "primary_key": ["visit_id"],
            "columns": [
                {"name": "visit_id", "type": "text"},
                {"name": "visit_at", "type": "datetime"},
                {"name": "status", "type": "text", "enum": ["scheduled", "completed", "cancelled"]},
            ],
        }
    )
    data["seed"]["visits"] = [
        {"visit_id": "V1", "visit_at": "2026-05-01 10:00:00", "status": "completed"},
        {"visit_id": "V2", "visit_at": "2025-05-01 10:00:00", "status": "scheduled"},
        {"visit_id": "V3", "visit_at": "2026-05-01 10:00:00", "status": "cancelled"},
    ]
    spec = EnvSpec.model_validate(data)
    assert settle_named_dates(spec) == 2
    today = spec.clock.strftime("%Y-%m-%d")
    v1, v2, v3 = spec.seed["visits"]
    assert v1["visit_at"][:10] < today < v2["visit_at"][:10]
    assert v3["visit_at"] == "2026-05-01 10:00:00" and v1["visit_at"].endswith("10:00:00")


def test_a_staff_action_is_handed_over_not_done(generated):
    """The user asks for a staff action: the gold hands it to a human agent and changes nothing else;
    the wording of the hand-over is free, leaving it out fails the task."""
    seen = 0
    for spec, t in _all(generated):
        if "escalation" not in t.tags:
            continue
        seen += 1
        env = Environment(spec)
        transfer = t.gold_actions[-1]
        assert transfer.tool == "transfer_to_human_agent" and t.ignore == ["escalations.summary"]
        ep = env.episode(t)
        ep.replay(t.gold_actions)
        assert set(ep.changed_keys()) == {"escalations"}
        reworded = env.episode(t)
        reworded.replay(t.gold_actions[:-1])
        reworded.call_tool(transfer.tool, {**transfer.arguments, "summary": "Customer needs staff help with this"})
        assert score_episode(env, t, reworded, answer="").reward == 1.0
        skipped = env.episode(t)
        skipped.replay(t.gold_actions[:-1])
        assert score_episode(env, t, skipped, answer="").reward == 0.0
    assert seen >= 3
