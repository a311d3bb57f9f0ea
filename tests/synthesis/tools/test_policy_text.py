"""The generated policy reads like tau2-bench's: general conduct rules, one section per entity with a
status table, every action's rules in their exact words with the reason beside each, and nothing the
flat policy used to say lost."""

from __future__ import annotations

import re
import statistics
from datetime import datetime
from typing import get_args

import pytest

from envs.grading.decidable import stated_now
from synthesis.domains.domain import Guard, GuardKind
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env
from synthesis.tools.escalation import TOOL, policy_lines
from synthesis.tools.policy_text import REASONS, reason
from synthesis.tools.toolkit import upper_first

CLOCK = datetime(2026, 3, 2, 9, 0)
ALL_REASONS = {phrase for phrases in REASONS.values() for phrase in phrases}


@pytest.fixture(scope="module")
def generated():
    out = []
    for domain in load_ontology():
        domain = assign_enforcement(domain)
        out.append((domain, generate_env(domain, seed=0, clock=CLOCK)))
    return out


def _sections(policy: str) -> dict[str, str]:
    """Each ``## `` section's text, by heading."""
    parts = re.split(r"^## (.+)$", policy, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def _heading(entity) -> str:
    return upper_first(entity.table.replace("_", " "))


def test_every_line_of_the_flat_policy_is_kept_word_for_word(generated):
    for domain, g in generated:
        policy, lines = g.spec.policy, g.spec.policy.splitlines()
        user = domain.entity(domain.user_entity)
        assert lines[0] == f"# {domain.name}: agent policy" and domain.description in lines
        assert "The current time is 2026-03-02 09:00 (UTC)." in lines and stated_now(policy) == CLOCK
        identity = _sections(policy)["Identity"].strip()
        assert identity.startswith(f"Before you change anything, identify the {user.human} you are helping")
        assert identity.endswith("Act only on records that belong to them.")
        policy_of = {m.tool: m.policy for m in g.meta}
        for tool in g.spec.tools:
            if tool.kind == "write":
                assert f"- `{tool.name}`: {policy_of.get(tool.name) or tool.description}" in lines, tool.name
        for line in [*policy_lines(domain), *(f"- {r}" for r in domain.rules)]:
            assert line in lines, (domain.id, line)
        for rule in g.spec.rules:
            assert rule.text in policy, (domain.id, rule.id)
        assert "the tools do not check every rule" in policy


def test_each_action_is_listed_under_its_entity(generated):
    for domain, g in generated:
        sections = _sections(g.spec.policy)
        for m in g.meta:
            if m.kind != "write":
                continue
            heading = "What only our staff can do" if m.tool == TOOL else _heading(domain.entity(m.entity))
            assert f"- `{m.tool}`: " in sections[heading], (domain.id, m.tool, heading)
        assert "What each action allows" not in sections


def test_status_tables_say_what_each_state_means_and_allows(generated):
    for domain, g in generated:
        sections = _sections(g.spec.policy)
        tools = {(m.entity, m.transition) for m in g.meta if m.role == "transition"}
        updated = {(m.entity, m.attribute) for m in g.meta if m.role == "update"}
        for e in domain.entities:
            if e.lifecycle is None:
                continue
            text = sections[_heading(e)]
            assert "| status | meaning | what can be done |" in text, (domain.id, e.name)
            rows = {
                m.group(1): (m.group(2), m.group(3))
                for m in re.finditer(r"^\| `([a-z0-9_]+)` \| (.+) \| (.+) \|$", text, flags=re.MULTILINE)
            }
            assert list(rows) == e.lifecycle.states, (domain.id, e.name)
            assert "starts here" in rows[e.lifecycle.initial][0]
            for state, (meaning, allowed) in rows.items():
                out = [t for t in e.lifecycle.transitions if state in t.from_states]
                changes = [
                    a.name.replace("_", " ")
                    for a in e.attributes
                    if (e.name, a.name) in updated and state in (e.editable_states(a) or [state])
                ]
                for change in changes:  # an edit the update tool allows in this state is listed with it
                    assert f"change the {change}" in allowed, (domain.id, e.name, state, change)
                if not out and not changes:
                    reached = any(t.to == state for t in e.lifecycle.transitions)
                    final = "nothing more can be done; it is final"
                    assert allowed == (final if reached else "nothing you can do at this stage"), (e.name, state)
                for t in out:
                    if t.actor == "customer" and (e.name, t.name) in tools:
                        assert t.name.replace("_", " ") in allowed.split("; only our staff")[0], (e.name, state)
                    elif t.actor != "customer":
                        assert "only our staff: " in allowed and t.name.replace("_", " ") in allowed
                for t in e.lifecycle.transitions:
                    if t.to == state and state not in t.from_states and t.actor == "customer":
                        assert "reached when the customer asks to" in meaning


def test_each_rule_is_repeated_with_a_reason_for_its_kind(generated):
    explained = 0
    for domain, g in generated:
        for line in g.spec.policy.splitlines():
            if line.startswith("  - ") and not line.startswith("  - Each one is held"):
                assert line.endswith(".") and any(line.endswith(f", {r}.") for r in ALL_REASONS), line
                explained += 1
        for rule in g.spec.rules:
            if rule.text not in get_args(GuardKind):  # a rule with no words of its own is named by its kind
                assert f"  - {upper_first(rule.text)}, " in g.spec.policy, (domain.id, rule.id)
    assert explained > 500


def test_reasons_follow_the_kind_of_rule_and_are_deterministic():
    domain = next(d for d in load_ontology() if d.id == "airline_rebooking")
    booking = domain.entity("booking")

    def why(action: str, on=booking, **guard) -> str:
        return reason(domain, on, f"{action}_{on.name}", action, Guard(**guard), "a rule")

    assert why("cancel", kind="future", field="via:flight.departure_time", hours=72) in REASONS["future_release"]
    assert why("upgrade_cabin", kind="future", field="via:flight.departure_time", hours=24) in REASONS["future_notice"]
    assert why("check_in", kind="past", field="via:flight.departure_time", hours=24) in REASONS["past_window"]
    assert why("refund", kind="within", field="field:booked_at", hours=720) in REASONS["within"]
    assert why("upgrade_cabin", kind="min", field="via:passenger.travel_credit", amount=120) in REASONS["min_balance"]
    assert why("create", kind="min", field="via:flight.seats_left", amount=1) in REASONS["min_capacity"]
    limit = {"kind": "count_max", "field": "field:passenger_id", "entity": "booking", "match": "passenger_id"}
    assert why("create", **limit, amount=3) in REASONS["count_max_new"]
    assert why("create", **limit, amount=1) in REASONS["count_one"]
    assert why("upgrade_cabin", kind="equals", field="field:cabin", value="economy") in REASONS["condition"]
    assert why("upgrade_cabin", kind="not_equals", field="field:cabin", value="business") in REASONS["exclusion"]
    request = domain.entity("special_service_request")
    assert why("create", request, kind="equals", field="via:booking.status", value="confirmed") in REASONS["status"]
    window = Guard(kind="within", field="field:booked_at", hours=1)
    picks = {reason(domain, booking, f"tool_{i}", "cancel", window, "r") for i in range(40)}
    assert picks == set(REASONS["within"])  # each phrasing is used somewhere, the same one for the same tool
    assert why("cancel", kind="within", field="x", hours=1) == why("cancel", kind="within", field="x", hours=1)


def test_conduct_rules_are_stated_and_hand_over_follows_the_staff_section(generated):
    with_staff = without = 0
    for domain, g in generated:
        sections = _sections(g.spec.policy)
        conduct = sections["Conduct"]
        for phrase in (
            'explicit "yes"',
            "at most one tool call at a time",
            "Do not invent information, procedures, policies or compensation",
            "naming the rule and the value",
            "the tools do not check every rule",
            "Never guess an id, a date or an amount.",
            "If a tool refuses an action, explain the reason it gave",
        ):
            assert phrase in conduct, (domain.id, phrase)
        if policy_lines(domain):
            with_staff += 1
            assert f"Use `{TOOL}` only for a request listed under" in conduct
        else:
            without += 1
            assert "No hand-over" in conduct and TOOL not in g.spec.policy
        assert ("Always" in sections) == bool(domain.rules)
    assert with_staff and without


def test_the_policy_is_tau2_length_deterministic_and_adds_no_number(generated):
    words = [len(g.spec.policy.split()) for _, g in generated]
    assert 900 <= statistics.median(words) <= 1400
    assert sum(900 <= w <= 1400 for w in words) >= 0.85 * len(words)
    for domain, g in generated[:10]:
        assert generate_env(domain, seed=0, clock=CLOCK).spec.policy == g.spec.policy
    for domain, g in generated:
        stated = " ".join(
            [domain.name, domain.description, *domain.rules, *policy_lines(domain), "2026-03-02 09:00"]
            + [m.policy for m in g.meta]
            + [t.description for t in g.spec.tools]
        )
        known = set(re.findall(r"\d+(?:\.\d+)?", stated))
        assert set(re.findall(r"\d+(?:\.\d+)?", g.spec.policy)) <= known, domain.id


def test_a_rule_on_a_value_the_caller_gives_is_not_said_of_the_record(generated):
    """ "Deposits must be at least 50" is about the amount asked for, not the booking's own amount."""
    from synthesis.tools.guards import describe_guard

    domain = next(d for d, _ in generated if d.id == "banquet_event_planning")
    said = describe_guard(domain, Guard(kind="min", field="param:amount", amount=50), "event booking")
    assert said == "the amount requested must be at least 50"
    texts = [r.text for _, g in generated for r in g.spec.rules if "requested" in r.text]
    assert texts and not any("'s amount requested" in t for t in texts)


def test_staff_actions_handed_over_in_tasks_are_ones_customers_ask_for():
    from synthesis.domains.domain import Transition
    from synthesis.tools.escalation import asked_by_customers

    def asked(name: str) -> bool:
        return asked_by_customers(Transition(name=name, description="", from_states=["a"], to="b", actor="staff"))

    assert asked("approve") and asked("waive_fee") and asked("release_results") and asked("reinstate")
    assert not asked("deny") and not asked("mark_no_show") and not asked("uphold") and not asked("record_collection")
