"""Seeds whose values agree with the record they belong to (measures 48 and 49): guests within the
room's capacity, rebates asked within the program's maximum, a program paid at most its price, an
expense receipt and an incident not before the trip; a bill still owed paid in part; a vehicle under
a live hold marked taken, held by one shopper, with vehicles left free for tasks that hold one; one
invoice of a load offer."""

from __future__ import annotations

import copy

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.agreement import parents_against_children
from envs.quality.bounds import values_beyond_record
from envs.quality.one_off import held, recorded_many_times
from synthesis.domains.bounds import fit_bounds, settle_bound_dates
from synthesis.domains.one_off import holds_once_in_seed

from ...envs.quality import test_agreement, test_bounds
from .generated import domain, generated_spec


@pytest.mark.parametrize(
    ("domain_id", "least"),
    [
        ("banquet_event_planning", 45),  # 194 guests in a room for 118 (each room named once: fewer rooms)
        ("efficiency_rebate_programs", 50),  # 2,732.82 asked of a program paying 2,349.92 at most
        ("online_certificate_programs", 20),  # 215.34 paid for a 184.65 program
        ("lost_baggage_claims", 15),  # a receipt six weeks before the bag went missing
    ],
)
def test_generated_seeds_keep_values_within_their_record(domain_id, least):
    counts = values_beyond_record(generated_spec(domain_id))
    assert counts.bounded_values_checked >= least
    assert counts.values_beyond_their_record == 0


@pytest.mark.parametrize(
    ("domain_id", "least"),
    [
        ("phone_bill_disputes", 15),
        # holds whose deposit a refund says is back are moved on (measure 98): 10 stay to read
        ("dealership_test_drives", 10),
        ("self_storage_rentals", 15),
        ("safe_deposit_box_rentals", 15),
    ],
)
def test_generated_seeds_keep_a_status_with_its_rows(domain_id, least):
    spec = generated_spec(domain_id)
    counts = parents_against_children(spec)
    assert counts.parent_states_checked >= least
    assert counts.parent_states_against_children == 0
    assert recorded_many_times(spec).one_off_recorded_many_times == 0


def test_a_bill_still_owed_is_paid_in_part():
    spec = generated_spec("phone_bill_disputes")
    bills = {b["monthly_bill_id"]: b for b in spec.seed["monthly_bills"]}
    overdue = {k for k, b in bills.items() if b["status"] == "overdue"}
    paid = {k: 0.0 for k in overdue}
    for p in spec.seed["bill_payments"]:
        if p["monthly_bill_id"] in overdue:
            paid[p["monthly_bill_id"]] += p["amount"]
    partly = [k for k, v in paid.items() if v > 0]
    assert len(partly) >= 5 and all(0 < paid[k] < bills[k]["amount_due"] for k in partly)


def test_one_shopper_holds_a_vehicle_and_some_are_left_to_hold():
    spec = generated_spec("dealership_test_drives")
    live = [h for h in spec.seed["vehicle_holds"] if held(h["status"])]
    assert len(live) >= 10 and len({h["inventory_vehicle_id"] for h in live}) == len(live)
    vehicles = {v["inventory_vehicle_id"]: v for v in spec.seed["inventory_vehicles"]}
    assert all(vehicles[h["inventory_vehicle_id"]]["availability"] == "on_hold" for h in live)
    assert any(v["availability"] == "available" for v in vehicles.values())
    keeps = holds_once_in_seed(domain("dealership_test_drives"), spec.seed)
    ended = next(h for h in spec.seed["vehicle_holds"] if not held(h["status"]))
    taken = {**ended, "inventory_vehicle_id": live[0]["inventory_vehicle_id"]}
    assert not keeps("vehicle_holds", taken, "active")  # another shopper holds that vehicle already
    assert keeps("vehicle_holds", taken, "released")


def test_a_load_offer_is_invoiced_once():
    spec = generated_spec("carrier_load_tendering")
    offers = [i["load_offer_id"] for i in spec.seed["carrier_invoices"]]
    assert offers and len(set(offers)) == len(offers)


def _spec(module, seed) -> EnvSpec:  # type: ignore[no-untyped-def]
    return module.spec_with(copy.deepcopy(seed))


def test_values_beyond_their_record_are_redrawn_within_it():
    spec = _spec(test_bounds, test_bounds.SEED)
    assert fit_bounds(spec) == 3
    bookings, applications = spec.seed["event_bookings"], spec.seed["applications"]
    assert 65 <= bookings[0]["guest_count"] <= 118 and bookings[1]["guest_count"] == 118
    assert 1292 <= applications[0]["amount_requested"] <= 2349.92 and applications[1]["amount_paid"] == 184.65
    assert settle_bound_dates(spec) == 1  # on its side of the clock: the receipt stays in the past
    assert "2026-01-05" <= spec.seed["expenses"][0]["receipt_date"] <= "2026-01-08"  # the clock is 01-15
    assert values_beyond_record(spec).values_beyond_their_record == 0
    assert fit_bounds(spec) == 0 and settle_bound_dates(spec) == 0


def test_a_status_is_made_to_agree_with_its_rows():
    spec = _spec(test_agreement, test_agreement.SEED)
    fit_bounds(spec)
    payment = spec.seed["bill_payments"][0]
    assert 0.2 * 31.15 - 0.01 <= payment["amount"] <= 0.6 * 31.15  # a payment on account of the overdue bill
    assert spec.seed["bill_payments"][2]["amount"] == 40.0  # the paid bill keeps its payment
    assert [v["availability"] for v in spec.seed["vehicles"]] == ["on_hold", "on_hold", "available"]
    assert spec.seed["storage_units"][0]["vacant"] is False
    assert parents_against_children(spec).parent_states_against_children == 0
