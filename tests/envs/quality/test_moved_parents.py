"""Children under a parent their making never moved (measure 91): a scheduled pickup on a return still
authorized; and the seed rule that keeps them (``synthesis.domains.moved_parents``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.moved_parents import children_on_unmoved_parents, moved_parents
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.moved_parents import settle_moved_parents
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_create_moving_the_parent_it_names_is_read_from_its_sql(domains):
    (rule,) = moved_parents(generated(domains, "returns_pickup_scheduling"))
    assert (rule.child, rule.via, rule.made) == ("return_pickups", "return_authorization_id", "scheduled")
    assert (rule.parent, rule.to) == ("return_authorizations", "pickup_scheduled")
    # states past the move that no tool reaches from one before it; cancelled is reached from authorized
    assert "pickup_scheduled" in rule.states and "picked_up" in rule.states
    assert "authorized" not in rule.states and "cancelled" not in rule.states


def test_a_child_some_create_makes_without_moving_the_parent_is_not_read(domains):
    spec = generated(domains, "returns_pickup_scheduling")
    create = next(t for t in spec.tools if t.name == "create_return_pickup")
    create.steps = [s for s in create.steps if "pickup_scheduled" not in (s.sql or "")]
    assert moved_parents(spec) == []


def test_generated_seeds_leave_no_child_under_an_unmoved_parent_and_a_drawn_one_is_settled(domains):
    spec = generated(domains, "returns_pickup_scheduling")
    counts = children_on_unmoved_parents(spec)
    assert counts.moved_parent_rows_checked >= 10 and counts.children_on_unmoved_parents == 0
    pickups = [r for r in spec.seed["return_pickups"] if r["status"] == "scheduled"]
    returns = {r["return_authorization_id"]: r for r in spec.seed["return_authorizations"]}
    for pickup in pickups[:4]:
        returns[pickup["return_authorization_id"]]["status"] = "authorized"
    moved_back = {p["return_authorization_id"] for p in pickups[:4]}
    assert children_on_unmoved_parents(spec).children_on_unmoved_parents >= len(moved_back)
    assert settle_moved_parents(spec) >= len(moved_back)
    assert children_on_unmoved_parents(spec).children_on_unmoved_parents == 0
    statuses = {returns[r]["status"] for r in moved_back}
    # half the parents move on, the others keep their state and see their pickups cancelled
    assert statuses == {"pickup_scheduled", "authorized"}
    cancelled = [p for p in pickups[:4] if returns[p["return_authorization_id"]]["status"] == "authorized"]
    assert cancelled and all(p["status"] == "cancelled" for p in cancelled)


def test_a_child_under_a_parent_past_the_move_another_way_is_called_off(domains):
    spec = generated(domains, "hospital_bill_payment_plans")
    (rule,) = moved_parents(spec)
    bills = {r["hospital_bill_id"]: r for r in spec.seed["hospital_bills"]}
    plan = next(r for r in spec.seed["payment_plans"] if r["status"] == rule.made)
    bills[plan[rule.via]]["status"] = "paid"  # paid in full some other way: the plan cannot still run
    assert children_on_unmoved_parents(spec).children_on_unmoved_parents >= 1
    settle_moved_parents(spec)
    assert bills[plan[rule.via]]["status"] == "paid" and plan["status"] != rule.made
    assert children_on_unmoved_parents(spec).children_on_unmoved_parents == 0
