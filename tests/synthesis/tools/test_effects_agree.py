"""Tool effects that keep the state within the environment's own rules (the seed-59 review): a cancel
carries the children it would leave live, a check on a flag counts the rows it stands for, a payment
of the whole refuses when nothing is left."""

from __future__ import annotations

from typing import Any

import pytest

from envs import Environment, check_env
from envs.errors import StateError
from envs.formats.task import PatchOp
from synthesis.domains.domain import Domain
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import GeneratedEnv, generate_env


def _domain(domain_id: str) -> Domain:
    return next(d for d in load_ontology() if d.id == domain_id)


def _env(domain_id: str) -> GeneratedEnv:
    return generate_env(_domain(domain_id), seed=0)


def _tool(g: GeneratedEnv, name: str) -> Any:
    return next(t for t in g.spec.tools if t.name == name)


def test_cancelling_an_event_takes_its_submitted_catering_orders_back_from_the_kitchen():
    g = _env("banquet_event_planning")
    orders = g.spec.seed["catering_orders"]
    env = Environment(g.spec)
    tried = 0
    for booking in g.spec.seed["event_bookings"]:
        mine = [o for o in orders if o["event_booking_id"] == booking["event_booking_id"]]
        if booking["status"] not in ("tentative", "confirmed") or not any(o["status"] == "submitted" for o in mine):
            continue
        ep = env.episode()
        try:
            ep.call_tool(
                "cancel_event_booking",
                {"event_booking_id": booking["event_booking_id"], "client_id": booking["client_id"]},
            )
        except StateError:  # too close to the event to cancel: try another
            continue
        after = {o["catering_order_id"]: o["status"] for o in ep.dump("catering_orders")}
        for o in mine:
            assert after[o["catering_order_id"]] == ("draft" if o["status"] == "submitted" else o["status"])
        others = [o for o in orders if o["event_booking_id"] != booking["event_booking_id"]]
        assert all(after[o["catering_order_id"]] == o["status"] for o in others)
        tried += 1
    assert tried, "no cancellable event with a submitted catering order in the seed"


def test_the_policy_says_a_cancel_takes_the_orders_back():
    g = _env("banquet_event_planning")
    assert "its submitted catering orders go back to draft" in _tool(g, "cancel_event_booking").description
    assert "its submitted catering orders go back to draft" in g.spec.policy


def test_a_move_that_goes_ahead_leaves_children_waiting():
    """Checking in for a flight keeps its special service requests: only ending a parent carries them."""
    g = _env("airline_rebooking")
    steps = " ".join(s.sql for s in _tool(g, "check_in_booking").steps)
    assert "special_service_requests" not in steps


def test_a_vehicle_flagged_available_under_an_active_hold_is_not_held_again():
    g = _env("dealership_test_drives")
    hold = next(h for h in g.spec.seed["vehicle_holds"] if h["status"] == "active")
    vehicle = hold["inventory_vehicle_id"]
    shopper = next(
        s["shopper_id"]
        for s in g.spec.seed["shoppers"]
        if not any(h["shopper_id"] == s["shopper_id"] and h["status"] == "active" for h in g.spec.seed["vehicle_holds"])
    )
    ep = Environment(g.spec).episode()
    # the flag out of step with its rows, as the review found it
    ep.apply_patch(
        [
            PatchOp(
                op="update",
                table="inventory_vehicles",
                where={"inventory_vehicle_id": vehicle},
                set={"availability": "available"},
            )
        ]
    )
    with pytest.raises(StateError, match=f"Vehicle {vehicle} already has an active deposit hold"):
        ep.call_tool("create_vehicle_hold", {"shopper_id": shopper, "inventory_vehicle_id": vehicle, "deposit": 300})
    held = ep.query(
        "SELECT count(*) AS n FROM \"vehicle_holds\" WHERE inventory_vehicle_id = :v AND status = 'active'",
        {"v": vehicle},
    )
    assert held[0]["n"] == 1


def test_a_bill_paid_in_full_by_card_is_not_paid_again_from_credit():
    g = _env("phone_bill_disputes")
    bill = next(b for b in g.spec.seed["monthly_bills"] if b["status"] in ("open", "overdue") and b["amount_due"] >= 10)
    holder = bill["account_holder_id"]
    ep = Environment(g.spec).episode()
    ep.apply_patch(
        [
            PatchOp(
                op="update", table="account_holders", where={"account_holder_id": holder}, set={"account_credit": 500}
            )
        ]
    )
    ep.call_tool(
        "create_bill_payment",
        {
            "account_holder_id": holder,
            "monthly_bill_id": bill["monthly_bill_id"],
            "amount": bill["amount_due"],
            "method": "card",
        },
    )
    with pytest.raises(StateError, match=f"Bill {bill['monthly_bill_id']} has no amount due left"):
        ep.call_tool(
            "pay_from_credit_monthly_bill", {"monthly_bill_id": bill["monthly_bill_id"], "account_holder_id": holder}
        )
    payments = [p for p in ep.dump("bill_payments") if p["monthly_bill_id"] == bill["monthly_bill_id"]]
    assert all(p["amount"] > 0 for p in payments)


@pytest.mark.parametrize("domain_id", ["banquet_event_planning", "dealership_test_drives", "phone_bill_disputes"])
def test_tasks_follow_the_derived_rules(domain_id):
    domain = _domain(domain_id)
    g = generate_env(domain, seed=0)
    tasks, _ = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)
    assert tasks and check_env(g.spec, tasks).ok


def test_the_policy_says_a_payment_of_the_whole_needs_something_left():
    policy = _env("phone_bill_disputes").spec.policy
    assert "the bill's amount due must be above 0." in policy
    assert "The bill's amount due must be above 0, because an amount already settled cannot be paid again." in policy
