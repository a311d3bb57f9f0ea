"""The quality report counts motives that contradict the record they are given for, read against the
seed of a generated environment, and the task generator gives none."""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

import pytest

from envs import Task
from envs.formats.spec import EnvSpec
from envs.formats.task import Refusal, ToolCall, UserProfile
from envs.quality.motive_fit import motive_fit_counts
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@functools.cache
def _generated(domain: str) -> Any:
    return generate_env({d.id: d for d in load_ontology()}[domain], seed=0)


def _spec(domain: str) -> EnvSpec:
    return _generated(domain).spec  # type: ignore[no-any-return]


def _row(spec: EnvSpec, table: str, **where: Any) -> dict[str, Any]:
    return next(r for r in spec.seed[table] if all(r.get(k) == v for k, v in where.items()))


def _task(spec: EnvSpec, fact: str, call: ToolCall, *, refused: bool = False) -> Task:
    return Task(
        id="t-1",
        env=spec.id,
        instruction="Hi. Please do it.",
        user=UserProfile(known_facts=[fact]),
        gold_actions=[] if refused else [call],
        refusals=[Refusal(request="do it", call=call)] if refused else [],
    )


def _case(name: str) -> tuple[EnvSpec, ToolCall, str, str]:
    """A call on a real seed row, a motive contradicting that row, and one that fits it."""
    if name == "spend":
        spec = _spec("dealership_test_drives")
        offer = _row(spec, "trade_in_offers", status="offered")
        args = {"trade_in_offer_id": offer["trade_in_offer_id"], "shopper_id": offer["shopper_id"]}
        return (
            spec,
            ToolCall(tool="decline_trade_in_offer", arguments=args),
            ("Why I'm asking to decline it: It costs more than I'm willing to spend."),
            "Why I'm asking to decline it: It's less than I was hoping to get.",
        )
    if name == "late":
        spec = _spec("phone_bill_disputes")
        bill = _row(spec, "monthly_bills", status="overdue")
        args = {"monthly_bill_id": bill["monthly_bill_id"], "account_holder_id": bill["account_holder_id"]}
        return (
            spec,
            ToolCall(tool="pay_from_credit_monthly_bill", arguments=args),
            ("Why I'm asking to pay it from credit: I'd rather take care of it now than be late with it."),
            "Why I'm asking to pay it from credit: I lost track of it and want it off my plate.",
        )
    if name == "pay_day":
        spec = _spec("banquet_event_planning")
        booking = _row(spec, "event_bookings", status="confirmed")
        args = {"event_booking_id": booking["event_booking_id"], "client_id": booking["client_id"], "amount": 15.97}
        return (
            spec,
            ToolCall(tool="pay_deposit_event_booking", arguments=args),
            ("Why I'm asking to pay a deposit on it: I just got paid, so I can clear it now."),
            "Why I'm asking to pay a deposit on it: I can put something toward it now.",
        )
    if name == "plans":
        spec = _spec("vehicle_warranty_claims")
        claim = spec.seed["warranty_claims"][0]
        args = {"warranty_claim_id": claim["warranty_claim_id"], "vehicle_owner_id": claim["vehicle_owner_id"]}
        return (
            spec,
            ToolCall(tool="withdraw_warranty_claim", arguments=args),
            ("Why I'm asking to withdraw it: The plans behind it fell through."),
            "Why I'm asking to withdraw it: I've worked it out with them directly.",
        )
    if name == "hosted":
        spec = _spec("banquet_event_planning")
        booking = _row(spec, "event_bookings", status="confirmed")
        args = {"event_booking_id": booking["event_booking_id"], "client_id": booking["client_id"]}
        return (
            spec,
            ToolCall(tool="cancel_event_booking", arguments=args),
            ("Why I'm asking to cancel it: My schedule changed and I can't make it work."),
            "Why I'm asking to cancel it: We've decided to call the whole thing off.",
        )
    if name == "gap":
        # seeds keep loans to their term now, so the review's loan due 3.5 months on is set by hand
        spec = copy.deepcopy(_spec("library_loans"))
        loan = next(r for r in spec.seed["loans"] if r["status"] == "active")
        loan["due_date"] = "2026-06-20"
        args = {"loan_id": loan["loan_id"], "member_id": loan["member_id"]}
        return (
            spec,
            ToolCall(tool="renew_loan", arguments=args),
            "Why I'm asking to renew it: I don't want a gap where I'm without it.",
            "Why I'm asking to renew it: I've been happy with it and want to keep it going.",
        )
    if name == "longer":
        spec = _spec("travel_insurance_claims")
        policy = next(r for r in spec.seed["travel_policies"] if r["trip_start"] > "2026-03-02")
        args = {"travel_policy_id": policy["travel_policy_id"], "policyholder_id": policy["policyholder_id"]}
        return (
            spec,
            ToolCall(tool="extend_travel_policy", arguments=args),
            "Why I'm asking to extend it: Things are taking longer than I expected.",
            "Why I'm asking to extend it: It turns out I want it for longer than I first planned.",
        )
    if name == "free":
        spec = _spec("newspaper_home_delivery")
        hold = spec.seed["vacation_holds"][0]
        args = {"vacation_hold_id": hold["vacation_hold_id"], "subscriber_id": hold["subscriber_id"]}
        return (
            spec,
            ToolCall(tool="cancel_vacation_hold", arguments=args),
            "Why I'm asking to cancel it: Money is tight right now, so I'm cutting back.",
            "Why I'm asking to cancel it: I won't be using it after all.",
        )
    if name == "cover":
        spec = _spec("tire_shop_installations")
        cover = spec.seed["road_hazard_warranties"][0]
        args = {"road_hazard_warranty_id": cover["road_hazard_warranty_id"], "customer_id": cover["customer_id"]}
        return (
            spec,
            ToolCall(tool="claim_road_hazard_warranty", arguments=args),
            "Why I'm asking to claim it: I'd rather use it before I forget about it.",
            "Why I'm asking to claim it: Something's gone wrong with it, so I need the cover now.",
        )
    if name == "errand":  # certificate_of_deposit_accounts-026 (seed 71): a redemption paid into savings
        spec = _spec("certificate_of_deposit_accounts")
        cd = spec.seed["certificates"][0]
        args = {"certificate_id": cd["certificate_id"], "depositor_id": cd["depositor_id"]}
        return (
            spec,
            ToolCall(tool="redeem_certificate", arguments=args),
            "Why I'm asking to redeem it: I'm on my way to that side of town anyway.",
            "Why I'm asking to redeem it: I have a use for it now.",
        )
    if name == "mended":  # business_license_renewals-007 (seed 71): a licence closed as if it were a fault
        spec = _spec("business_license_renewals")
        licence = spec.seed["business_licenses"][0]
        args = {"business_license_id": licence["business_license_id"]}
        return (
            spec,
            ToolCall(tool="close_business_license", arguments=args),
            "Why I'm asking to close it: The problem sorted itself out.",
            "Why I'm asking to close it: I don't need it anymore.",
        )
    if name == "part":  # safe_deposit_box_rentals-006 (seed 79): a lost key replaced "arrived damaged"
        spec = _spec("safe_deposit_box_rentals")
        lease = spec.seed["box_leases"][0]
        args = {"box_lease_id": lease["box_lease_id"], "box_renter_id": lease["box_renter_id"]}
        return (
            spec,
            ToolCall(tool="replace_key_box_lease", arguments=args),
            "Why I'm asking to replace the key for it: It arrived damaged.",
            "Why I'm asking to replace the key for it: I've lost mine and need a new one.",
        )
    if name == "restart":  # demand_response_rewards-026 (seed 79): a paused device re-enrolled
        spec = _spec("demand_response_rewards")
        device = spec.seed["enrolled_devices"][0]
        args = {"enrolled_device_id": device["enrolled_device_id"], "customer_id": device["customer_id"]}
        return (
            spec,
            ToolCall(tool="re_enroll_enrolled_device", arguments=args),
            "Why I'm asking to re-enroll it: I'll still need it for a while yet.",
            "Why I'm asking to re-enroll it: I'm back home now and want to pick it up again.",
        )
    if name == "old":  # meal_kit_subscriptions_kb-011 (seed 79): "straight away" of a box six weeks old
        spec = copy.deepcopy(_spec("meal_kit_subscriptions"))
        box = spec.seed["weekly_boxes"][0]
        for column, value in box.items():
            if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\d.*", value):
                box[column] = "2026-01-16"
        args = {"weekly_box_id": box["weekly_box_id"], "subscriber_id": box["subscriber_id"]}
        return (
            spec,
            ToolCall(tool="report_damaged_weekly_box", arguments=args),
            "Why I'm asking to report it as damaged: It got damaged and I wanted you to know straight away.",
            "Why I'm asking to report it as damaged: It's in a bad way, and I'm not happy about it.",
        )
    spec = _spec("self_storage_rentals")
    renter = spec.seed["renters"][0]
    args = {"renter_id": renter["renter_id"], "autopay": not renter["autopay"]}
    return (
        spec,
        ToolCall(tool="update_renter_autopay", arguments=args),
        ("Why I want the autopay changed: I noticed it was wrong when I looked it over."),
        "Why I want the autopay changed: The other way suits me better now.",
    )


_COUNTER = {
    "spend": "spend_motives_on_money_to_user",
    "late": "late_motives_on_overdue",
    "pay_day": "pay_day_motives_on_small_sums",
    "plans": "plan_motives_on_claims_or_hosted",
    "hosted": "plan_motives_on_claims_or_hosted",
    "wrong": "wrong_value_motives_on_settings",
    "gap": "time_motives_far_off",
    "longer": "time_motives_far_off",
    "free": "money_motives_on_free_records",
    "cover": "forget_motives_on_cover",
    "errand": "motives_of_another_kind",
    "mended": "motives_of_another_kind",
    "part": "motives_of_another_kind",
    "restart": "motives_of_another_kind",
    "old": "prompt_motives_on_old_records",
}


@pytest.mark.parametrize("name", list(_COUNTER))
@pytest.mark.parametrize("refused", [False, True])
def test_a_motive_contradicting_its_seed_record_is_counted(name: str, refused: bool) -> None:
    """The seed-59 review's six: each is counted, on a write or on a refused call, and a fitting
    reason for the same call is not."""
    spec, call, contradicting, fitting = _case(name)
    bad = motive_fit_counts(spec, [_task(spec, contradicting, call, refused=refused)])
    assert (bad.motives_checked, bad.motives_contradicting, getattr(bad, _COUNTER[name])) == (1, 1, 1)
    good = motive_fit_counts(spec, [_task(spec, fitting, call, refused=refused)])
    assert (good.motives_checked, good.motives_contradicting) == (1, 0)


def test_a_request_without_a_reason_beside_one_with_a_reason_is_counted() -> None:
    """online_certificate_programs-011: "After that, extend the access for the same program
    enrollment." gave no reason, after a resume that had one."""
    spec, call, _, fitting = _case("spend")
    task = _task(spec, fitting, call)
    two = task.model_copy(update={"gold_actions": [call, call]})
    assert motive_fit_counts(spec, [task]).requests_unexplained == 0
    assert motive_fit_counts(spec, [two]).requests_unexplained == 1


@pytest.mark.parametrize(
    "domain",
    [
        "dealership_test_drives",
        "banquet_event_planning",
        "phone_bill_disputes",
        "library_loans",
        "newspaper_home_delivery",
        "travel_insurance_claims",
        "safe_deposit_box_rentals",
        "meal_kit_subscriptions",
        "demand_response_rewards",
    ],
)
def test_generated_tasks_give_no_motive_that_contradicts_their_record(domain: str) -> None:
    """The seed-61 review's motives too (a gap three months early, money tight over a vacation hold,
    a trip that ran long before it began), and a reason for every request of a task that gives one,
    "the same" record included (number_porting_requests_kb-004, employee_expense_claims-004)."""
    spec = _spec(domain)
    meta = _generated(domain).meta
    tasks = generate_tasks({d.id: d for d in load_ontology()}[domain], spec, meta, count=40, seed=0)[0]
    counts = motive_fit_counts(spec, tasks)
    assert counts.motives_checked >= 20
    assert counts.motives_contradicting == 0
    assert counts.requests_unexplained == 0


def test_a_record_added_to_one_just_acted_on_has_that_request_s_reason() -> None:
    """guided_tour_packages-028 (seed 109): "It belongs with it, so I'd rather do both now." was made
    up for a room request on the tour booking just named; the booking's reason is its reason. A
    record added to one no earlier write touched still needs its own."""
    spec = _spec("vaccination_clinic_bookings")
    visit = _row(spec, "vaccination_appointments", status="booked")
    key, owner = visit["vaccination_appointment_id"], visit["recipient_id"]
    check_in = ToolCall(
        tool="check_in_vaccination_appointment", arguments={"vaccination_appointment_id": key, "recipient_id": owner}
    )
    form = ToolCall(
        tool="create_consent_form",
        arguments={"vaccination_appointment_id": key, "guardian_name": "Lee Park", "has_allergies": True},
    )
    why = "Why I'm asking to check in it: I'd rather not queue when I arrive."
    added = _task(spec, why, check_in).model_copy(update={"gold_actions": [check_in, form]})
    assert motive_fit_counts(spec, [added]).requests_unexplained == 0
    other = next(
        r["vaccination_appointment_id"] for r in spec.seed["vaccination_appointments"] if r["recipient_id"] != owner
    )
    elsewhere = form.model_copy(update={"arguments": {**form.arguments, "vaccination_appointment_id": other}})
    apart = added.model_copy(update={"gold_actions": [check_in, elsewhere]})
    assert motive_fit_counts(spec, [apart]).requests_unexplained == 1
