"""A record named by what its owner knows of it, and a detail picked from a list said as a person says
it (measures 63 and 64): no "my appointment with estimate 316.37", no "my card with the highest
current balance", no "I'd go with jeep for the make"."""

from __future__ import annotations

import random
from typing import Any

import pytest

from envs.formats.task import Task
from envs.quality.record_names import customer_knows, names_by_unknown_value
from envs.quality.requests import request_counts
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.criteria import extreme
from synthesis.tasks.details import detail
from synthesis.tasks.naming import handles, single_out

from .test_natural_tasks import _ontology_names as _named


def test_an_estimate_or_a_measurement_names_no_record() -> None:
    """car_service_booking-018 named SA0015 "my appointment with estimate 316.37"."""
    mine = {"service_appointment_id": "SA1", "car_owner_id": "O1", "vehicle_id": "V1",
            "scheduled_at": "2026-03-02 10:45:00", "service_type": "tire_rotation", "estimate": 316.37}  # fmt: skip
    twin = {**mine, "service_appointment_id": "SA2", "estimate": 120.0}  # the same day and service
    assert _named("car_service_booking", "service_appointment", mine, [twin]) is None
    project = {"solar_project_id": "SP1", "homeowner_id": "H1", "system_kw": 13, "contract_price": 24310.5,
               "deposit_paid": 1086.08}  # fmt: skip
    other = {**project, "solar_project_id": "SP2", "system_kw": 5, "deposit_paid": 0.0}
    assert _named("residential_solar_installs", "solar_project", project, [other]) is None
    priced = {**other, "contract_price": 9800.0}  # what it cost: its owner knows that
    assert _named("residential_solar_installs", "solar_project", project, [priced]) == (
        "my project with a contract price of $24,310.50"
    )


def test_two_natural_handles_name_a_record_before_any_amount() -> None:
    """No date among them: the service and the car's make together, not the estimate."""
    d = next(x for x in load_ontology() if x.id == "car_service_booking")
    e = d.entity("service_appointment")
    parents = {"vehicle": {"V1": {"make": "honda"}, "V2": {"make": "toyota"}}, "car_owner": {}}
    mine = {"service_appointment_id": "SA1", "car_owner_id": "O1", "vehicle_id": "V1",
            "scheduled_at": None, "service_type": "brake_job", "estimate": 316.37}  # fmt: skip
    others = [
        {**mine, "service_appointment_id": "SA2", "service_type": "oil_change", "estimate": 80.0},
        {**mine, "service_appointment_id": "SA3", "vehicle_id": "V2", "estimate": 500.0},
    ]
    for seed in range(6):
        found = single_out(handles(d, e, mine, parents, random.Random(seed)), others, parents, random.Random(seed))
        assert found is not None and not any(h.is_amount for h in found), seed
        assert {h.column for h in found} == {"service_type", "make"}, seed


@pytest.mark.parametrize("seed", range(8))
def test_a_users_own_records_are_ranked_only_by_what_they_know(seed: int) -> None:
    """credit_card_disputes-021: "my card account with the highest current balance"."""
    d = next(x for x in load_ontology() if x.id == "credit_card_disputes")
    e = d.entity("card_account")
    rows = [{"card_account_id": f"CA{i}", "credit_limit": 1000.0 * i, "available_credit": 10.0 * i,
             "current_balance": 300.0 * i} for i in (1, 2, 3)]  # fmt: skip
    assert extreme(e, rows, random.Random(seed), own=True) is None
    # nor anyone's: a credit limit or a balance is a figure the system keeps, no one picks by it
    assert extreme(e, rows, random.Random(seed)) is None
    d = next(x for x in load_ontology() if x.id == "car_service_booking")
    e = d.entity("service_appointment")
    rows = [{"service_appointment_id": f"SA{i}", "scheduled_at": f"2026-03-0{i} 10:00:00", "estimate": 100.0 * i,
             "service_type": "oil_change"} for i in (1, 2, 3)]  # fmt: skip
    found = extreme(e, rows, random.Random(seed), own=True)
    # ranked by when it happens, the only date of it its owner knows: "my earliest service appointment"
    assert found is not None and found[1].name("service appointment", "my") in (
        "my earliest service appointment",
        "my latest service appointment",
    ), found


def test_which_columns_an_owner_knows() -> None:
    assert customer_knows("check_in_date", "date") and customer_knows("ready_by", "date")
    assert customer_knows("price_paid", "money") and customer_knows("party_size", "integer")
    assert not customer_knows("disconnect_date", "date") and not customer_knows("current_balance", "money")
    assert not customer_knows("times_moved", "integer") and not customer_knows("system_kw", "quantity")


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("Please cancel my appointment with estimate 316.37.", True),
        ("Please lock my card account with the highest current balance.", True),
        ("Please switch my account with the latest disconnect date?", True),
        ("Please use my project with system kw 13.", True),
        ("Please cancel my booked reservation with the earliest check-in date.", False),
        ("Please move my release with the latest release date by 9 days.", False),
        ("Please cancel my subscription with the lowest monthly price.", False),
        ("Please refund my lab payment of 46.16.", False),
        ("Please cancel my active contract with the lowest purchase price in free look.", False),
        ("Please move my booked reservation with the earliest check in date.", False),
        ("It is for the economy flight with the lowest price.", False),  # nobody's: the agent compares
    ],
)
def test_measure_63_reads_a_record_named_by_what_its_owner_does_not_know(text: str, counted: bool) -> None:
    assert names_by_unknown_value(text) is counted


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("make", "jeep", "It's a Jeep."),
        ("color", "silver", "It's silver."),
        ("symptom", "slow_speed", "What I'm seeing is slow speed."),
        ("release_type", "ep", "It's an EP release."),
        ("species", "cat", "It's a cat."),
        ("relationship", "spouse", "They're my spouse."),
        ("new_day", "saturday", "Saturday would suit me better."),
        ("new_plan", "budget_billing", "I'd like to switch to budget billing."),
        ("service_level", "standard", "I'd like the standard service level."),
        ("seat_preference", "window", "I'd like the window seat."),
        ("weight_kg", 3, "It weighs 3 kg."),
        ("party_size", 4, "We'll be 4 people."),
    ],
)
def test_a_detail_picked_from_a_list_is_said_as_a_person_says_it(name: str, value: Any, said: str) -> None:
    """roadside_assistance_dispatch-022 "I'd go with jeep for the make", broadband_outage_tickets-004
    "I'd go with slow speed for the symptom", indie_music_distribution-027 "It's an ep release."."""
    assert detail(name, value) == said
    task = Task.model_validate(
        {"id": "t-1", "env": "t", "instruction": f"Please open a ticket. {said}", "user": {}, "gold_actions": []}
    )
    assert request_counts([task]).form_choice_tasks == 0


def test_measure_64_counts_the_choice_off_a_form() -> None:
    texts = ["Please open a ticket. I'd go with jeep for the make.", "Please book it. Economy cabin, please.",
             "Please book it. It's a Jeep."]  # fmt: skip
    tasks = [
        Task.model_validate({"id": f"t-{i}", "env": "t", "instruction": t, "user": {}, "gold_actions": []})
        for i, t in enumerate(texts)
    ]
    assert request_counts(tasks).form_choice_tasks == 2


def test_a_machines_number_ranks_below_what_a_person_calls_the_record() -> None:
    """indie_music_distribution-017 (seed 73): "you mean my release with upc UPC526190045", not its title."""
    from synthesis.tasks.naming import handles

    d = next(x for x in load_ontology() if x.id == "indie_music_distribution")
    release = d.entity("release")
    row = {"release_id": "RE1", "release_title": "Parallel Lines", "upc": "UPC526190045", "release_type": "album",
           "release_date": "2026-04-01", "postponements": 0}  # fmt: skip
    ranks = {h.column: h.preference for h in handles(d, release, row, {}, random.Random(0))}
    assert ranks["release_title"] < ranks["release_date"] < ranks["upc"]
