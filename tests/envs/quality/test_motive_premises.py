"""Measures 104 and 105: a motive whose premise its record's state or kind contradicts, read on real
seed rows of generated environments (the eight-domain sample's reasons a person would never give)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from envs import Task
from envs.formats.spec import EnvSpec
from envs.formats.task import Refusal, ToolCall, UserProfile
from envs.quality.motive_premises import motive_premise_counts, motive_premise_findings
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


def _on(domain: str, table: str, key: str, tool: str, **where: Any) -> tuple[EnvSpec, ToolCall]:
    spec = _spec(domain)
    return spec, ToolCall(tool=tool, arguments={key: _row(spec, table, **where)[key]})


#: name: (domain, table, key, tool, row filter, verb phrase, contradicting motive, fitting motive, measure)
_CASES: dict[str, tuple[str, str, str, str, dict[str, Any], str, str, str, str]] = {
    "lost, though delivered": (
        "grocery_delivery", "grocery_orders", "grocery_order_id", "report_missing_items_grocery_order",
        {"status": "delivered"}, "report it as missing items",
        "I can't find it anywhere and I'm getting worried.", "A few things I paid for weren't in the bags.", "state",
    ),
    "a break, of a parcel": (
        "parcel_delivery_exceptions", "parcels", "parcel_id", "hold_at_pickup_point_parcel",
        {"status": "delivery_attempted"}, "hold it at pickup point",
        "I'm taking a short break while things settle down at home.", "I won't be home to take it in.", "kind",
    ),
    "an excuse, for a signature": (
        "parcel_delivery_exceptions", "parcels", "parcel_id", "waive_signature_parcel", {},
        "waive the signature for it", "It was an honest mistake and the first time it's happened.",
        "I'm at work during the day, so no one can sign for it.", "kind",
    ),
    "a change of mind, under a guarantee": (
        "tire_shop_installations", "tire_orders", "tire_order_id", "return_under_guarantee_tire_order", {},
        "return it under guarantee", "It isn't as described.", "It's worn out far sooner than it should have.", "kind",
    ),
    "sent in, of a copy mailed out": (
        "lab_test_orders", "lab_orders", "lab_order_id", "mail_result_copy_lab_order", {},
        "mail the result copy for it", "I've got everything together now.", "My doctor asked to see a copy.", "kind",
    ),
    "a routine, of a one-off": (
        "lab_test_orders", "lab_orders", "lab_order_id", "prepay_lab_order", {}, "prepay it",
        "I'd rather have the next stretch paid ahead.", "I'd rather have it paid ahead of the day.", "kind",
    ),
    "a start, of a move-out": (
        "self_storage_rentals", "unit_rentals", "unit_rental_id", "schedule_move_out_unit_rental", {},
        "schedule the move out for it", "I'm ready to get started now that my schedule has cleared.",
        "I'm moving away, so I'm clearing the unit out.", "kind",
    ),
    "a calendar, of a substitution": (
        "grocery_delivery", "substitutions", "substitution_id", "accept_substitution", {}, "accept it",
        "I've checked my calendar and it works for me.", "I've decided to go ahead with it.", "kind",
    ),
    "waiting, for cover": (
        "tire_shop_installations", "road_hazard_warranties", "road_hazard_warranty_id", "claim_road_hazard_warranty",
        {}, "claim it", "I've been waiting on it and would like to have it.",
        "Something's gone wrong with it, so I need the cover now.", "kind",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(_CASES))
@pytest.mark.parametrize("refused", [False, True])
def test_a_motive_whose_premise_its_record_contradicts_is_counted(name: str, refused: bool) -> None:
    domain, table, key, tool, where, verb, contradicting, fitting, by = _CASES[name]
    spec, call = _on(domain, table, key, tool, **where)
    bad = motive_premise_counts(
        spec, [_task(spec, f"Why I'm asking to {verb}: {contradicting}", call, refused=refused)]
    )
    assert bad.motive_premises_checked == 1
    assert (bad.motive_premises_against_state, bad.motive_premises_against_kind) == (
        (1, 0) if by == "state" else (0, 1)
    )
    good = motive_premise_counts(spec, [_task(spec, f"Why I'm asking to {verb}: {fitting}", call, refused=refused)])
    assert (good.motive_premises_checked, good.motive_premises_against_state, good.motive_premises_against_kind) == (
        1,
        0,
        0,
    )


def test_too_dear_is_counted_only_of_a_record_that_costs_something() -> None:
    spec = _spec("grocery_delivery").model_copy(deep=True)
    row = spec.seed["substitutions"][0]
    call = ToolCall(tool="decline_substitution", arguments={"substitution_id": row["substitution_id"]})
    task = _task(spec, "Why I'm asking to decline it: It costs more than I'm willing to spend.", call)
    row["price_difference"] = 0.0
    assert motive_premise_counts(spec, [task]).motive_premises_against_state == 1
    row["price_difference"] = 2.5
    assert motive_premise_counts(spec, [task]).motive_premises_against_state == 0


def test_a_new_provider_changes_an_email_not_a_phone_number() -> None:
    spec = _spec("car_wash_memberships")
    member = spec.seed["members"][0]
    phone = ToolCall(tool="update_member_phone", arguments={"member_id": member["member_id"], "phone": "+15550100"})
    task = _task(spec, "Why I want the phone changed: I switched providers recently.", phone)
    assert [f.why for f in motive_premise_findings(spec, [task])] == ["a new provider, to change a phone number"]
    fitting = _task(spec, "Why I want the phone changed: I got a new one last week.", phone)
    assert motive_premise_findings(spec, [fitting]) == []


def test_last_week_is_counted_of_a_new_record_for_an_event_weeks_ago() -> None:
    spec = _spec("car_wash_memberships").model_copy(deep=True)
    visit = spec.seed["wash_visits"][0]
    call = ToolCall(
        tool="create_damage_claim",
        arguments={"member_id": visit["member_id"], "wash_visit_id": visit["wash_visit_id"], "estimate": 80.0},
    )
    task = _task(spec, "Why I'm asking for a new damage claim: It happened last week and I've put it off.", call)
    today = spec.clock.date()
    visit["visited_at"] = f"{today.replace(day=1) if today.day > 20 else today.replace(month=1, day=1)}T10:00:00"
    assert motive_premise_counts(spec, [task]).motive_premises_against_state == 1


@pytest.mark.parametrize(
    "domain",
    [
        "grocery_delivery",
        "parcel_delivery_exceptions",
        "tire_shop_installations",
        "lab_test_orders",
        "self_storage_rentals",
        "car_wash_memberships",
    ],
)
def test_generated_tasks_give_no_motive_whose_premise_their_record_contradicts(domain: str) -> None:
    """The eight-domain sample's: missing items read as a lost order, a parcel held for a break, a
    signature waived with an excuse, a guarantee return for a change of mind, a lab order prepaid for
    "the next stretch", a move-out "started", "I switched providers" for a phone number."""
    spec = _spec(domain)
    meta = _generated(domain).meta
    tasks = generate_tasks({d.id: d for d in load_ontology()}[domain], spec, meta, count=30, seed=0)[0]
    counts = motive_premise_counts(spec, tasks)
    assert counts.motive_premises_checked >= 20
    assert [f for f in motive_premise_findings(spec, tasks)] == []


@pytest.mark.parametrize(
    ("status", "fitting", "motive", "why"),
    [
        (
            "waitlisted",
            "booked",
            "I booked it by mistake and don't need it.",
            "booked by mistake, of a record not booked",
        ),
        (
            "completed",
            "scheduled",
            "My schedule changed and I can't make it work.",
            "can't make it, of what already happened",
        ),
        ("denied", "submitted", "We decided not to go ahead after all.", "going ahead, with what was turned down"),
        ("lost", "delivered", "It stopped working after a few days.", "a fault, of a thing lost"),
        ("delivered", "in_transit", "It never turned up on my end.", "lost, of a record that arrived"),
    ],
)
def test_a_premise_the_records_status_denies_is_counted_and_the_same_words_on_a_fitting_status_are_not(
    status: str, fitting: str, motive: str, why: str
) -> None:
    """The default catalog's: "I booked it by mistake" of a waitlisted registration, a withdrawal
    "not to go ahead" of a denied application, a set-top box reported lost that "never turned up"
    though installed, a lost box returned because it "stopped working"."""
    spec = _spec("parcel_delivery_exceptions").model_copy(deep=True)  # a parcel has a day and no place of its own
    row = spec.seed["parcels"][0]
    call = ToolCall(tool="withdraw_parcel", arguments={"parcel_id": row["parcel_id"]})
    task = _task(spec, f"Why I'm asking to withdraw it: {motive}", call, refused=True)
    row["status"] = status
    assert [f.why for f in motive_premise_findings(spec, [task])] == [why]
    row["status"] = fitting
    assert motive_premise_findings(spec, [task]) == []


def test_a_reason_is_paired_with_the_refused_request_it_follows() -> None:
    """car_wash_memberships-001: the refused withdrawal of a denied claim is said first with "I've worked
    it out with them directly"; "We decided not to go ahead" follows the allowed one."""
    spec = _spec("car_wash_memberships").model_copy(deep=True)
    denied, open_claim = spec.seed["damage_claims"][0], spec.seed["damage_claims"][1]
    denied["status"], open_claim["status"] = "denied", "submitted"
    refused = ToolCall(tool="withdraw_damage_claim", arguments={"damage_claim_id": denied["damage_claim_id"]})
    allowed = ToolCall(tool="withdraw_damage_claim", arguments={"damage_claim_id": open_claim["damage_claim_id"]})
    task = Task(
        id="t-1",
        env=spec.id,
        instruction="Please withdraw my damage claim from January 6. I've worked it out with them directly. "
        "Then please also withdraw my damage claim from February 10. We decided not to go ahead after all.",
        user=UserProfile(
            known_facts=[
                "Why I'm asking to withdraw it: I've worked it out with them directly.",
                "Why I'm asking to withdraw it: We decided not to go ahead after all.",
            ]
        ),
        gold_actions=[allowed],
        refusals=[Refusal(request="withdraw my damage claim from January 6", call=refused)],
    )
    assert motive_premise_findings(spec, [task]) == []
    swapped = task.model_copy(
        update={"instruction": task.instruction.replace("January 6", "X").replace("February 10", "January 6")}
    )
    assert len(motive_premise_findings(spec, [swapped])) == 1
