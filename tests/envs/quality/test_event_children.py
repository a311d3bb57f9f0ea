"""Records an event makes, before the event (measure 76): a prescription pending on a video visit still
ahead; and the seed rule that keeps them (``synthesis.domains.event_children``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.event_children import children_before_event, event_child_findings, event_children
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.event_children import settle_event_children
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_tool_requiring_the_parent_past_its_event_names_the_rows_that_follow_it(domains):
    spec = generated(domains, "telehealth_consultations")
    # the check is the policy's alone here: the rule's words name the parent and its state
    assert {r.enforced_by for r in spec.rules if r.tool == "change_pharmacy_eprescription"} == {"policy"}
    [rule] = event_children(spec)
    assert (rule.child, rule.column, rule.parent) == ("eprescriptions", "consultation_id", "consultations")
    assert rule.after == {"completed"} and rule.states == {"pending"}
    # a create that requires a checked-in reservation: every row it makes follows the arrival
    [made] = event_children(generated(domains, "campground_site_reservations"))
    assert (made.child, made.after, made.states) == ("equipment_rentals", {"checked_in"}, None)


def test_a_part_of_its_parent_at_rest_is_not_read(domains):
    # an order line is packed from the order's making; reporting it missing needs the order collected
    spec = generated(domains, "click_and_collect_pickups")
    assert all(r.child != "order_lines" for r in event_children(spec))


@pytest.mark.parametrize("name", ["telehealth_consultations", "car_service_booking", "campground_site_reservations"])
def test_generated_seeds_keep_children_after_their_parents_event(domains, name):
    counts = children_before_event(generated(domains, name))
    assert counts.event_children_checked > 10
    assert counts.children_before_event == 0


def _pending(spec: EnvSpec) -> dict[str, Any]:
    return next(r for r in spec.seed["eprescriptions"] if r["status"] == "pending")


def test_a_prescription_on_a_visit_ahead_is_counted_and_moved_to_a_visit_that_took_place(domains):
    spec = generated(domains, "telehealth_consultations")
    ahead = next(
        c for c in spec.seed["consultations"] if c["status"] == "scheduled" and c["scheduled_at"] > "2026-03-03"
    )
    row = _pending(spec)
    row["consultation_id"] = ahead["consultation_id"]
    assert children_before_event(spec).children_before_event == 1
    before = len(spec.seed["eprescriptions"])
    assert settle_event_children(spec) == 1
    assert children_before_event(spec).children_before_event == 0
    if len(spec.seed["eprescriptions"]) == before:  # moved, not dropped: to a completed visit now past
        parent = next(c for c in spec.seed["consultations"] if c["consultation_id"] == row["consultation_id"])
        assert parent["status"] == "completed" and parent["scheduled_at"] <= "2026-03-02 09:00:00"


def test_a_completed_visit_dated_ahead_has_not_happened(domains):
    spec = generated(domains, "telehealth_consultations")
    row = _pending(spec)
    parent = next(c for c in spec.seed["consultations"] if c["consultation_id"] == row["consultation_id"])
    assert parent["status"] == "completed"
    parent["scheduled_at"] = "2026-03-02 15:00:00"  # later today
    early = [r for _, r, before in event_child_findings(spec, spec.seed) if before]
    assert row in early


def test_a_child_no_parent_fits_is_dropped(domains):
    spec = generated(domains, "telehealth_consultations")
    for c in spec.seed["consultations"]:  # every visit still ahead: no prescription has a visit to follow
        c["status"], c["scheduled_at"] = "scheduled", "2026-03-20 10:00:00"
    early = children_before_event(spec).children_before_event
    assert early == sum(r["status"] == "pending" for r in spec.seed["eprescriptions"]) > 0
    assert settle_event_children(spec) == early
    assert not any(r["status"] == "pending" for r in spec.seed["eprescriptions"])


def test_a_kind_only_tools_past_the_event_make_is_read_among_its_table(domains):
    # payments are posted on registering and cancelling too; a score-report fee only on a scored one
    spec = generated(domains, "standardized_exam_registration")
    kinds = {r.kind: r for r in event_children(spec) if r.kind is not None}
    fee = kinds[("payment_type", "score_report_fee")]
    assert (fee.child, fee.column, fee.parent, fee.after) == (
        "exam_payments",
        "registration_id",
        "registrations",
        {"scored"},
    )
    # a registration fee is posted whatever the registration's state; a refund by a tool requiring none past it
    assert ("payment_type", "registration_fee") not in kinds and ("payment_type", "cancellation_refund") not in kinds
    # a tool that moves the parent on as it makes the row leaves it in the state it moved it to
    [credit] = [r for r in event_children(generated(domains, "grocery_delivery")) if r.kind is not None]
    assert (credit.kind, credit.parent, credit.after) == (
        ("refund_method", "store_credit"),
        "grocery_orders",
        {"credited"},
    )


@pytest.mark.parametrize("name", ["standardized_exam_registration", "certificate_of_deposit_accounts"])
def test_generated_seeds_keep_a_kind_after_its_parents_event(domains, name):
    spec = generated(domains, name)
    read = [(rule, row, early) for rule, row, early in event_child_findings(spec, spec.seed) if rule.kind is not None]
    assert len(read) >= 5
    assert not [row for _, row, early in read if early]
    # the kind read is the tool's, and the same rows drawn under any parent are counted
    broken = spec.model_copy(deep=True)
    rule, row, _ = read[0]
    parents = broken.seed[rule.parent]
    key = next(t for t in broken.tables if t.name == rule.parent).primary_key[0]
    early = next(p for p in parents if p.get("status") not in rule.after)
    moved = next(r for r in broken.seed[rule.child] if r == row)
    moved[rule.column] = early[key]
    assert children_before_event(broken).children_before_event == 1
