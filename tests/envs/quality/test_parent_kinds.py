"""Children their parent's state denies (measure 98): a deposit refund charge on an account still
holding its deposit; and the seed rule that keeps them (``synthesis.domains.parent_kinds``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.parent_kinds import children_parent_denies, parent_kinds
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.parent_kinds import settle_parent_kinds
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_kind_only_a_parents_move_makes_is_read_with_the_values_the_move_sets(domains):
    (rule,) = parent_kinds(generated(domains, "gas_service_start_stop"))
    assert (rule.child, rule.column, rule.kind) == ("gas_charges", "charge_type", "deposit_refund")
    assert (rule.parent, rule.status, rule.to) == ("customers", "deposit_status", "deposit_refunded")
    assert rule.states == {"deposit_refunded"} and rule.sets == (("deposit_on_file", "0"),)


def test_a_parent_cancelled_after_the_move_still_fits(domains):
    rules = {r.kind: r for r in parent_kinds(generated(domains, "banquet_event_planning"))}
    # a deposit confirms a booking, which may be cancelled after; a refund only comes with the cancelling
    assert {"confirmed", "cancelled"} <= rules["deposit"].states
    assert rules["refund"].states == {"cancelled"}


def test_a_kind_another_insert_makes_without_the_move_is_not_read(domains):
    spec = generated(domains, "gas_service_start_stop")
    refund = next(t for t in spec.tools if t.name == "refund_deposit_customer")
    refund.steps = [s for s in refund.steps if "deposit_refunded" not in (s.sql or "")]
    assert parent_kinds(spec) == []


def test_generated_seeds_keep_the_rule_and_a_contradiction_drawn_is_settled(domains):
    spec = generated(domains, "gas_service_start_stop")
    counts = children_parent_denies(spec)
    assert counts.parent_kind_rows_checked >= 3 and counts.children_parent_denies == 0
    customers = {r["customer_id"]: r for r in spec.seed["customers"]}
    refunds = [r for r in spec.seed["gas_charges"] if r["charge_type"] == "deposit_refund"]
    owners = [customers[r["customer_id"]] for r in refunds]
    for owner in owners:  # the deposit held again, as the seed once drew it
        owner.update(deposit_status="deposit_held", deposit_on_file=180.0)
    assert children_parent_denies(spec).children_parent_denies == len(refunds)
    assert settle_parent_kinds(spec) >= len(refunds)
    assert children_parent_denies(spec).children_parent_denies == 0
    kept = [r for r in spec.seed["gas_charges"] if r["charge_type"] == "deposit_refund"]
    # half the accounts are refunded, deposit 0; the others keep their deposit and lose the charge
    assert 0 < len(kept) < len(refunds)
    assert all(customers[r["customer_id"]]["deposit_on_file"] == 0 for r in kept)
    assert any(o["deposit_status"] == "deposit_held" and o["deposit_on_file"] == 180.0 for o in owners)


def test_a_parent_in_the_state_but_off_a_value_the_move_sets_gets_it(domains):
    spec = generated(domains, "gas_service_start_stop")
    refund = next(r for r in spec.seed["gas_charges"] if r["charge_type"] == "deposit_refund")
    owner = next(r for r in spec.seed["customers"] if r["customer_id"] == refund["customer_id"])
    owner["deposit_on_file"] = 120.0
    assert children_parent_denies(spec).children_parent_denies >= 1
    settle_parent_kinds(spec)
    assert owner["deposit_on_file"] == 0 and owner["deposit_status"] == "deposit_refunded"
    assert refund in spec.seed["gas_charges"]
