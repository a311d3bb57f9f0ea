"""Where a rule lives: a share of each domain's rules is written in the policy only, the tool then lets
the action through, the spec says which rules are which, and the admission gate accepts it."""

from __future__ import annotations

import math

import pytest

from envs import Environment, check_env
from envs.errors import StateError
from synthesis.domains.enforcement import POLICY_KINDS, assign_enforcement, rule_count
from synthesis.domains.ontology import load_ontology
from synthesis.gate.probe import probe_env
from synthesis.tools.envgen import generate_env

DOMAINS = {d.id: d for d in load_ontology()}


def _guards(domain):
    for e in domain.entities:
        for t in e.lifecycle.transitions if e.lifecycle else []:
            if t.actor == "customer":
                yield from (g for g in t.guards if g.kind != "owner")
        if e.create:
            yield from (g for g in e.create.guards if g.kind != "owner")


def test_the_default_share_of_rules_is_policy_only_and_only_rules_that_may_be():
    total = policy = 0
    for domain in load_ontology():
        marked = [g for g in _guards(assign_enforcement(domain)) if g.enforced_by == "policy"]
        assert all(g.kind in POLICY_KINDS or g.kind == "count_max" for g in marked), domain.id
        assert not any(str(g.field).startswith("param:") and g.kind != "count_max" for g in marked), domain.id
        assert len(marked) <= math.ceil(0.4 * rule_count(domain)), domain.id
        total += rule_count(domain)
        policy += len(marked)
    assert policy / total >= 0.4


def test_assignment_is_deterministic_respects_marks_and_can_be_turned_off():
    domain = DOMAINS["library_loans"]
    first, again = assign_enforcement(domain), assign_enforcement(domain)
    assert first == again and first is not domain
    assert not any(g.enforced_by for g in _guards(domain))  # the ontology's domain is left alone
    assert not any(g.enforced_by == "policy" for g in _guards(assign_enforcement(domain, 0.0)))
    marked = domain.model_copy(deep=True)
    for g in _guards(marked):
        g.enforced_by = "tool"
    assert not any(g.enforced_by == "policy" for g in _guards(assign_enforcement(marked, 1.0)))
    with pytest.raises(ValueError, match="between 0 and 1"):
        assign_enforcement(domain, 1.5)


def test_a_policy_only_rule_is_in_the_policy_and_the_spec_but_not_in_the_tool():
    domain = assign_enforcement(DOMAINS["library_loans"])
    served = generate_env(domain, seed=0).spec
    twin = generate_env(domain, seed=0, enforce_all=True).spec
    policy_rules = [r for r in served.rules if r.enforced_by == "policy"]
    assert policy_rules and any(r.enforced_by == "tool" for r in served.rules)
    for rule in policy_rules:
        assert rule.text in served.policy  # the agent is told
        tool, with_all = served.tool(rule.tool), twin.tool(rule.tool)
        assert tool is not None and with_all is not None
        assert rule.text not in tool.description  # the tool does not claim to check it
        requires = sum(s.kind == "require" for s in tool.steps)
        assert requires < sum(s.kind == "require" for s in with_all.steps)  # and it does not
    assert served.seed == twin.seed and [t.name for t in served.tools] == [t.name for t in twin.tools]
    assert "the tools do not check every rule" in served.policy


def test_the_gate_admits_tools_that_leave_a_rule_to_the_policy():
    for name in ("library_loans", "airline_rebooking", "hotel_room_reservations"):
        domain = assign_enforcement(DOMAINS[name])
        g = generate_env(domain, seed=0)
        report = probe_env(domain, g.spec, g.meta, seed=0)
        assert not report.rejected, (name, report.reasons)
        assert check_env(g.spec).ok


def test_the_served_tool_allows_what_a_policy_only_rule_forbids():
    domain = assign_enforcement(DOMAINS["library_loans"])
    served = Environment(generate_env(domain, seed=0).spec)
    twin = Environment(generate_env(domain, seed=0, enforce_all=True).spec)
    # renew_loan's rules are policy-only here: a loan of a suspended member renews on the served tool only
    assert {r.id for r in served.spec.rules if r.enforced_by == "policy"} >= {"renew_loan.1"}
    members = {m["member_id"]: m for m in served.spec.seed["members"]}
    loan = next(
        row
        for row in served.spec.seed["loans"]
        if row["status"] == "active" and members[row["member_id"]]["status"] == "suspended"
    )
    args = {"loan_id": loan["loan_id"], "member_id": loan["member_id"]}
    assert served.episode().call_tool("renew_loan", args).wrote
    with pytest.raises(StateError, match="suspended"):
        twin.episode().call_tool("renew_loan", args)
