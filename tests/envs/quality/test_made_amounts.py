"""Amounts against the tools making them (measure 66): miles redeemed that are not the flight's miles
required, a parking stay's prepaid amount that is not its days at the lot's daily rate; and the seed
rule that computes them (``synthesis.domains.made_amounts``)."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.made_amounts import (
    accumulated,
    amounts_against_their_making,
    by_the_day,
    copied_columns,
    made_amount_findings,
)
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.made_amounts import fit_made_amounts
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_the_rules_are_read_from_the_tools_sql(domains):
    awards = {
        (c.table, c.column, c.parent, c.source) for c in copied_columns(generated(domains, "frequent_flyer_awards"))
    }
    assert ("award_tickets", "miles_redeemed", "award_flights", "miles_required") in awards
    assert ("award_tickets", "taxes_paid", "award_flights", "taxes") in awards
    (stay,) = by_the_day(generated(domains, "airport_parking_reservations"))
    assert (stay.table, stay.column, stay.rate, stay.start, stay.end) == (
        "parking_reservations",
        "prepaid_amount",
        "daily_rate",
        "entry_at",
        "exit_date",
    )
    assert [child for child, _, _ in stay.extras] == ["car_care_orders"]  # a car wash ordered adds its price


@pytest.mark.parametrize(
    "name",
    [
        "frequent_flyer_awards",
        "airport_parking_reservations",
        "physical_therapy_sessions",
        "beauty_loyalty_rewards",
        "banquet_event_planning",
    ],
)
def test_generated_seeds_make_amounts_as_their_tools_do(domains, name):
    counts = amounts_against_their_making(generated(domains, name))
    assert counts.made_amounts_checked > 20
    assert counts.amounts_against_their_making == 0


def test_miles_redeemed_apart_from_the_flight_are_counted_and_set_back(domains):
    spec = generated(domains, "frequent_flyer_awards")
    flights = {r["award_flight_id"]: r for r in spec.seed["award_flights"]}
    ticket = spec.seed["award_tickets"][0]
    ticket["miles_redeemed"] = flights[ticket["award_flight_id"]]["miles_required"] + 30433
    assert amounts_against_their_making(spec).amounts_against_their_making == 1
    assert fit_made_amounts(spec) == 1
    assert ticket["miles_redeemed"] == flights[ticket["award_flight_id"]]["miles_required"]
    assert isinstance(ticket["miles_redeemed"], int)


def test_a_stay_is_priced_by_its_days_and_its_live_car_care(domains):
    spec = generated(domains, "airport_parking_reservations")
    lots = {r["parking_lot_id"]: r for r in spec.seed["parking_lots"]}
    orders = Counter[str]()
    for order in spec.seed["car_care_orders"]:
        if order["status"] != "cancelled":
            orders[order["parking_reservation_id"]] += 1
    stay = next(r for r in spec.seed["parking_reservations"] if not orders[r["parking_reservation_id"]])
    stay["entry_at"], stay["exit_date"] = "2026-03-02 09:00:00", "2026-04-29"  # 58 days
    stay["prepaid_amount"] = 110.13
    found = Counter(shape for shape, against in made_amount_findings(spec, spec.seed) if against)
    assert found == {"by the day": 1}
    assert fit_made_amounts(spec) == 1
    rate = lots[stay["parking_lot_id"]]["daily_rate"]
    assert stay["prepaid_amount"] == round(rate * 58, 2)
    stay["prepaid_amount"] = round(rate * 57, 2)  # a day short, as a one-day booking for two nights is priced
    assert amounts_against_their_making(spec).amounts_against_their_making == 0
    assert (date(2026, 4, 29) - date(2026, 3, 2)).days == 58


def test_a_deposit_paid_is_the_deposits_recorded_except_once_cancelled(domains):
    spec = generated(domains, "banquet_event_planning")
    (rule,) = accumulated(spec)
    assert (rule.column, rule.child, rule.kinds, rule.reset) == (
        "deposit_paid",
        "event_payments",
        ("payment_type", frozenset({"deposit"})),
        frozenset({"cancelled"}),
    )
    event = next(r for r in spec.seed["event_bookings"] if r["status"] == "confirmed")
    cancelled = next(r for r in spec.seed["event_bookings"] if r["status"] == "cancelled")
    paid = [p for p in spec.seed["event_payments"] if p["event_booking_id"] == event["event_booking_id"]]
    deposits = round(sum(p["amount"] for p in paid if p["payment_type"] == "deposit"), 2)
    event["deposit_paid"], cancelled["deposit_paid"] = deposits + 4078.68, 0.0
    assert amounts_against_their_making(spec).amounts_against_their_making == 1
    assert fit_made_amounts(spec) == 1
    assert event["deposit_paid"] == deposits
