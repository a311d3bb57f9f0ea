"""Task generation mended after the seed-73 review (docs/synthesis.md, "Seed 73"): a time rule's reason
on a record falling today carries its time, and an amount the policy says to tell after an action is
required of every task doing it."""

from __future__ import annotations

from datetime import datetime

from synthesis.domains.domain import Guard
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.rules import _moment
from synthesis.tasks.writes import policy_tells

NOW = datetime(2026, 3, 2, 9)


def test_a_reason_on_today_carries_its_time():
    day_rule = Guard(kind="future", field="field:starts_at", hours=24)
    assert _moment("2026-03-02 13:45:00", day_rule, NOW) == "2026-03-02 13:45"  # not today's bare date
    assert _moment("2026-03-09 13:45:00", day_rule, NOW) == "2026-03-09"
    assert _moment("2026-03-03 08:00:00", day_rule, NOW) == "2026-03-03 08:00"  # the edge's day, as before


def test_the_policy_says_which_amount_to_tell_after_which_action():
    rules = [
        "Tell the owner the new estimate after approving additional work.",
        "Tell the member their new points balance after every change.",
    ]
    assert policy_tells(rules, "estimate", "approve")
    assert not policy_tells(rules, "estimate", "decline")
    assert policy_tells(rules, "points_balance", "cancel")  # "every change"
    assert not policy_tells(rules, "wallet_credit", "cancel")
    car = next(d for d in load_ontology() if d.id == "car_service_booking")
    assert policy_tells(car.rules, "estimate", "approve")


def test_an_amount_is_told_by_the_noun_of_its_column_not_its_kind():
    # "the remaining account balance" is the service account's balance_due, not its due-ness
    power = next(d for d in load_ontology() if d.id == "electricity_utility_billing")
    assert policy_tells(power.rules, "balance_due", "pay_utility_bill")
    assert not policy_tells(power.rules, "amount_paid", "pay_utility_bill")
    assert not policy_tells(["Tell the customer the new due date after any change."], "balance_due", "pay")


def test_after_a_payment_is_after_any_way_of_paying():
    # seed 83, self_storage_rentals-021: "Tell the renter the new balance after a payment" and a prepayment
    rules = ["Tell the renter the new balance after a payment."]
    assert policy_tells(rules, "balance_due", "prepay_unit_rental")
    assert policy_tells(rules, "balance_due", "pay_balance")
    assert not policy_tells(rules, "balance_due", "cancel_unit_rental")


def test_the_balance_a_payment_leaves_on_its_own_record_is_told():
    """self_storage_rentals: "Tell the renter the new balance after a payment" of the unit rental's
    own balance_due (the write's effect is on the record, not on a parent): it is a required output."""
    from synthesis.domains.enforcement import DEFAULT_POLICY_SHARE, assign_enforcement
    from synthesis.tasks.taskgen import generate_tasks
    from synthesis.tools.envgen import generate_env

    d = assign_enforcement(next(x for x in load_ontology() if x.id == "self_storage_rentals"), DEFAULT_POLICY_SHARE)
    gen, twin = generate_env(d, seed=0), generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=33, seed=0, twin=twin.spec)
    paying = [t for t in tasks if t.expects_change and any(a.tool == "pay_balance_unit_rental" for a in t.gold_actions)]
    assert paying and all(t.outputs for t in paying)


def test_the_balance_a_new_record_takes_from_is_told_after_every_change():
    """hotel_loyalty_points-007 (seed 89): "Tell the member their new points balance after every
    change", and a redemption made takes its points; the new balance is a required output."""
    from synthesis.domains.enforcement import DEFAULT_POLICY_SHARE, assign_enforcement
    from synthesis.tasks.taskgen import generate_tasks
    from synthesis.tools.envgen import generate_env

    d = assign_enforcement(next(x for x in load_ontology() if x.id == "hotel_loyalty_points"), DEFAULT_POLICY_SHARE)
    gen, twin = generate_env(d, seed=0), generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=33, seed=0, twin=twin.spec)
    redeeming = [t for t in tasks if any(a.tool == "create_redemption" for a in t.gold_actions)]
    assert redeeming and all(t.outputs for t in redeeming)
