"""The built-in dual-control domains: each builds, passes check_env with its tasks, combines faults on
the customer's side, the agent's and both; the customer's status read follows from both sides; an
agent that never asks the customer fails every task with a fault on the customer's side."""

from __future__ import annotations

import json
import re
from functools import cache

import pytest

from envs.catalog import Catalog
from envs.check import check_env
from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task, ToolCall
from envs.grading.scoring import score_episode
from synthesis.dual import DualDomain, build_dual_env, built_in_domains
from synthesis.dual.__main__ import main

DOMAINS = {d.id: d for d in built_in_domains()}


@cache
def built(env_id: str, seed: int = 0) -> tuple[EnvSpec, list[Task]]:
    return build_dual_env(DOMAINS[env_id], seed=seed)


def sides_at_fault(domain: DualDomain, task: Task) -> set[str]:
    """Which sides the task's initial state breaks, read from its patch (not from its tags)."""
    user_tables = {domain.device.table}
    return {"user" if op.table in user_tables else "agent" for op in task.initial_patch}


def test_there_are_at_least_twelve_domains_of_their_own():
    assert len(DOMAINS) >= 12
    assert len({d.company for d in DOMAINS.values()}) == len(DOMAINS)
    assert len({d.device.table for d in DOMAINS.values()}) == len(DOMAINS)


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_a_domain_builds_and_passes_check_env_with_every_task(env_id):
    spec, tasks = built(env_id)
    assert spec.dual_control and spec.tables_of("user") and spec.tools_of("user") and spec.user_guide
    assert 20 <= len(tasks) <= 30
    report = check_env(spec, tasks)
    assert report.ok, report.problems[:3]
    assert report.tasks_passed == len(tasks)
    assert "The current time is 2026-03-10 09:00" in spec.policy
    assert "Troubleshooting order" in spec.policy and "ask the customer to" in spec.policy


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_tasks_break_the_users_side_the_agents_and_both(env_id):
    _, tasks = built(env_id)
    mixes = [frozenset(sides_at_fault(DOMAINS[env_id], t)) for t in tasks]
    assert {frozenset({"user"}), frozenset({"agent"}), frozenset({"user", "agent"})} == set(mixes)
    assert min(mixes.count(m) for m in set(mixes)) >= len(tasks) // 4
    assert len({(t.gold_actions[0].arguments["email"], str(t.initial_patch)) for t in tasks}) == len(tasks)


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_gold_fixes_each_fault_in_the_policys_order_by_the_side_that_owns_it(env_id):
    domain = DOMAINS[env_id]
    spec, tasks = built(env_id)
    actors = {tool.name: tool.actor for tool in spec.tools}
    order = [f.fix_tool for f in domain.faults]
    for task in tasks:
        assert all(call.actor == actors[call.tool] for call in task.gold_actions)
        fixes = [c.tool for c in task.gold_actions if c.tool in order]
        assert fixes == sorted(fixes, key=order.index) and len(fixes) == len(task.initial_patch)
        # the diagnosis takes the customer's reads before any fix, and their check after the last
        first_fix = next(i for i, c in enumerate(task.gold_actions) if c.tool in order)
        assert {c.tool for c in task.gold_actions[:first_fix] if c.actor == "user"} == {
            domain.status_tool,
            domain.settings_tool,
        }
        assert task.gold_actions[-1].tool == domain.status_tool


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_the_customers_status_read_shows_service_faults_too(env_id):
    domain = DOMAINS[env_id]
    spec, tasks = built(env_id)
    env = Environment(spec)
    for task in tasks:
        device = {"device_id": task.gold_actions[2].arguments["device_id"]}
        episode = env.episode(task)
        before = episode.call_tool(domain.status_tool, device, actor="user").content["status"]
        first = next(f for f in domain.faults if any(f.column in op.set for op in task.initial_patch))
        assert before == first.symptom != domain.working
        episode.replay(task.gold_actions)
        assert episode.call_tool(domain.status_tool, device, actor="user").content["status"] == domain.working
    agent_only = [t for t in tasks if sides_at_fault(domain, t) == {"agent"}]
    assert agent_only  # a fault the agent alone can see still shows on the customer's device


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_an_agent_that_never_asks_the_customer_fails_every_task_with_a_device_fault(env_id):
    domain = DOMAINS[env_id]
    spec, tasks = built(env_id)
    env = Environment(spec)
    for task in tasks:
        episode = env.episode(task)
        episode.replay([call for call in task.gold_actions if call.actor == "agent"])
        reward = score_episode(env, task, episode).reward
        if "user" in sides_at_fault(domain, task):
            assert reward == 0.0, task.id
        else:  # the service's faults the agent fixes alone: the customer's reads only diagnose
            assert reward == 1.0, task.id


def blind_fixes(domain: DualDomain, task: Task) -> list[ToolCall]:
    """Every fix of both sides, once, with no diagnosis: what an agent that skips the troubleshooting
    (and a customer who does whatever it says) would do."""
    service_id, device_id = task.gold_actions[1].arguments["service_id"], task.gold_actions[2].arguments["device_id"]
    return [
        ToolCall(
            tool=f.fix_tool,
            arguments={domain.key(f.side): service_id if f.side == "agent" else device_id},
            actor=f.side,
        )
        for f in domain.faults
    ]


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_fixing_everything_without_diagnosis_fails(env_id):
    domain = DOMAINS[env_id]
    spec, tasks = built(env_id)
    env = Environment(spec)
    for task in tasks:
        episode = env.episode(task)
        episode.replay(blind_fixes(domain, task))
        # an order the service did not need, or a switch flipped that was right, shows in the state:
        # no task breaks every service setting, and none breaks every switch of the device
        assert score_episode(env, task, episode).reward == 0.0, task.id


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_instructions_say_what_the_customer_sees_not_the_cause(env_id):
    domain = DOMAINS[env_id]
    _, tasks = built(env_id)
    for task in tasks:
        device_id = task.gold_actions[2].arguments["device_id"]
        assert task.gold_actions[0].arguments["email"] in task.instruction and device_id in task.instruction
        for fault in domain.faults:
            hidden = [fault.column, fault.fix_tool, *([fault.bad] if isinstance(fault.bad, str) else [])]
            assert not any(re.search(rf"\b{re.escape(word)}\b", task.instruction) for word in hidden), task.id


def test_the_same_seed_gives_the_same_environments_and_tasks():
    domain = DOMAINS["home_internet"]
    first, again = build_dual_env(domain, seed=3), build_dual_env(domain, seed=3)
    assert first[0].model_dump() == again[0].model_dump()
    assert [t.model_dump() for t in first[1]] == [t.model_dump() for t in again[1]]
    other = build_dual_env(domain, seed=4)
    assert [t.model_dump() for t in other[1]] != [t.model_dump() for t in first[1]]


def test_the_catalog_folders_load_back_and_check(tmp_path, capsys):
    assert main([]) == 2 and "usage" in capsys.readouterr().err
    assert main([str(tmp_path)]) == 0  # python -m synthesis.dual OUT
    figures = json.loads((tmp_path / "dual-control-measures.json").read_text(encoding="utf-8"))
    assert json.loads(capsys.readouterr().out) == figures["total"]
    catalog = Catalog(tmp_path)
    assert catalog.ids() == sorted(DOMAINS)
    for entry in catalog.entries():
        spec, tasks = built(entry.spec.id)
        assert entry.spec.model_dump() == spec.model_dump()
        assert [t.model_dump() for t in entry.tasks] == [t.model_dump() for t in tasks]
    assert check_env(catalog.get("mobile_phone").spec, catalog.get("mobile_phone").tasks).ok
    total = figures["total"]
    assert total["envs"] == len(DOMAINS)
    # an agent that never asks solves the tasks whose faults are all the service's, and no other
    assert total["agent_alone_solved_needing_user"] == 0
    assert total["agent_alone_solved"] == total["tasks"] - total["tasks_needing_user_actions"]


@pytest.mark.parametrize("env_id", sorted(DOMAINS))
def test_the_customer_is_introduced_with_the_right_article(env_id):
    spec, tasks = built(env_id)
    texts = [spec.user_guide or "", *(t.user.persona for t in tasks if t.user and t.user.persona)]
    wrong = [m.group(0) for text in texts for m in re.finditer(r"\b[Aa] [AEIOU]\w*|\b[Aa]n [B-DF-HJ-NP-TV-Z]\w*", text)]
    assert wrong == []
