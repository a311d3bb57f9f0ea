"""A parent with two winning children (measure 88): a load carrying two accepted offers, a car sold
through four holds; and the seed rule that keeps it (``synthesis.domains.won_once``)."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.won_once import contests, taking_moves, won_twice
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.won_once import settle_won_once
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def loads() -> EnvSpec:
    domains = {d.id: d for d in load_ontology()}
    return generate_env(assign_enforcement(domains["carrier_load_tendering"]), seed=0).spec


def _copy(spec: EnvSpec) -> EnvSpec:
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def test_offers_made_on_a_posted_load_compete_for_it(loads):
    [contest] = contests(loads)
    assert (contest.table, contest.via, contest.parent) == ("load_offers", "load_id", "loads")
    assert contest.open == {"posted"} and contest.taken == {"covered"}
    assert contest.won == {"accepted", "in_transit", "delivered"}  # dispatch and deliver move a winner on


def test_generated_loads_have_one_winning_offer_each_and_are_covered_by_it(loads):
    counts = won_twice(loads)
    assert counts.winning_rows_checked > 0
    assert (counts.won_twice, counts.won_untaken) == (0, 0)


def _winners_on(spec: EnvSpec, load_id: str) -> list[dict]:
    return [o for o in spec.seed["load_offers"] if o["load_id"] == load_id]


def test_a_second_accepted_offer_is_declined_and_the_one_further_along_kept(loads):
    spec = _copy(loads)
    load = next(r for r in spec.seed["loads"] if r["status"] == "covered")
    for o in _winners_on(spec, load["load_id"]):
        o["status"] = "declined"
    first, second = [
        o for o in spec.seed["load_offers"] if o["load_id"] != load["load_id"] and o["status"] == "declined"
    ][:2]
    first["load_id"] = second["load_id"] = load["load_id"]
    first["status"], second["status"] = "accepted", "in_transit"
    assert won_twice(spec).won_twice == 1
    assert settle_won_once(spec) == 1
    assert (first["status"], second["status"]) == ("declined", "in_transit")
    assert won_twice(spec).won_twice == 0


def test_a_delivered_offer_takes_its_withdrawn_load(loads):
    spec = _copy(loads)
    invoiced = {i["load_offer_id"] for i in spec.seed["carrier_invoices"]}
    delivered = next(o for o in spec.seed["load_offers"] if o["load_offer_id"] in invoiced)
    withdrawn = next(r for r in spec.seed["loads"] if r["status"] == "withdrawn")
    for o in _winners_on(spec, withdrawn["load_id"]):
        o["status"] = "declined"
    delivered["load_id"], delivered["status"] = withdrawn["load_id"], "delivered"
    assert won_twice(spec).won_untaken >= 1
    settle_won_once(spec)
    assert (delivered["load_id"], delivered["status"], withdrawn["status"]) == (
        withdrawn["load_id"],
        "delivered",
        "covered",
    )
    assert won_twice(spec).won_untaken == 0


def test_a_second_invoiced_winner_moves_to_a_load_picked_up_alike_that_nobody_holds(loads):
    spec = _copy(loads)
    invoiced = {i["load_offer_id"] for i in spec.seed["carrier_invoices"]}
    clock = spec.clock.isoformat(sep=" ")
    past = sorted((r for r in spec.seed["loads"] if r["pickup_at"] < clock), key=lambda r: r["load_id"])
    home, free = past[0], past[1]
    free["status"] = "withdrawn"
    for o in _winners_on(spec, free["load_id"]) + _winners_on(spec, home["load_id"]):
        o["status"] = "declined"
    first, second = [o for o in spec.seed["load_offers"] if o["load_offer_id"] in invoiced][:2]
    first["load_id"] = second["load_id"] = home["load_id"]
    first["status"] = second["status"] = "delivered"
    assert won_twice(spec).won_twice == 1
    settle_won_once(spec)
    assert first["load_id"] == home["load_id"] and second["status"] == "delivered"
    moved_to = next(r for r in spec.seed["loads"] if r["load_id"] == second["load_id"])
    assert moved_to["load_id"] != home["load_id"] and moved_to["pickup_at"] < clock and moved_to["status"] == "covered"
    assert won_twice(spec).won_twice == 0 and won_twice(spec).won_untaken == 0


def test_two_accepted_offers_on_a_withdrawn_load_leave_one_covering_it(loads):
    spec = _copy(loads)
    invoiced = {i["load_offer_id"] for i in spec.seed["carrier_invoices"]}
    withdrawn = next(r for r in spec.seed["loads"] if r["status"] == "withdrawn")
    for o in _winners_on(spec, withdrawn["load_id"]):
        o["status"] = "declined"
    first, second = [o for o in spec.seed["load_offers"] if o["load_offer_id"] not in invoiced][:2]
    for offer in (first, second):
        offer["load_id"], offer["status"] = withdrawn["load_id"], "accepted"
    assert (won_twice(spec).won_twice, won_twice(spec).won_untaken) == (1, 2)
    assert settle_won_once(spec) == 2  # the second declined, the load covered
    assert (first["status"], second["status"], withdrawn["status"]) == ("accepted", "declined", "covered")


@pytest.fixture(scope="module")
def dealership() -> EnvSpec:
    domains = {d.id: d for d in load_ontology()}
    return generate_env(assign_enforcement(domains["dealership_test_drives"]), seed=0).spec


def test_a_hold_converted_to_a_purchase_takes_its_car(dealership):
    """dealership_test_drives (seed 107): converting a hold sets its vehicle's availability to sold in
    the same call, so one hold per car is converted."""
    [contest] = taking_moves(dealership)
    assert (contest.table, contest.via, contest.parent) == (
        "vehicle_holds",
        "inventory_vehicle_id",
        "inventory_vehicles",
    )
    assert (contest.column, contest.won, contest.taken) == ("availability", {"converted"}, {"sold"})
    assert contest in contests(dealership)


def test_generated_cars_are_sold_once_and_read_sold(dealership):
    counts = won_twice(dealership)
    assert counts.winning_rows_checked > 0
    assert (counts.won_twice, counts.won_untaken) == (0, 0)


def test_a_car_sold_through_four_holds_keeps_one_and_the_others_move_to_cars_sold_without_one(dealership):
    spec = _copy(dealership)
    holds, cars = spec.seed["vehicle_holds"], {r["inventory_vehicle_id"]: r for r in spec.seed["inventory_vehicles"]}
    converted = [h for h in holds if h["status"] == "converted"]
    car = converted[0]["inventory_vehicle_id"]
    for hold in converted[1:3]:
        hold["inventory_vehicle_id"] = car
    cars[car]["availability"] = "on_hold"
    assert (won_twice(spec).won_twice, won_twice(spec).won_untaken) == (2, 3)
    settle_won_once(spec)
    per_car = Counter(h["inventory_vehicle_id"] for h in holds if h["status"] == "converted")
    assert set(per_car.values()) == {1} and len(per_car) == len(converted)
    assert all(cars[c]["availability"] == "sold" for c in per_car)
    assert (won_twice(spec).won_twice, won_twice(spec).won_untaken) == (0, 0)
