"""A record's status against its rows (measure 49), and one thing taken by one live row (measure 45):
a bill paid in full yet overdue, a vehicle available under a live hold, two active holds on one
vehicle, three invoices of one load offer; a bill paid in part, a vehicle on hold, a released hold are
no disagreement."""

from __future__ import annotations

import copy
from typing import Any

from envs.catalog import CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.agreement import parents_against_children
from envs.quality.one_off import OneOffRules, recorded_many_times

from ..specs import SHOP
from .test_bounds import table

TABLES = [
    table("monthly_bills", {"amount_due": "real", "status": "text"}, {"account_id": "accounts"}),
    table("bill_payments", {"amount": "real"}, {"monthly_bill_id": "monthly_bills"}),
    table("vehicles", {"availability": "text", "msrp": "real"}),
    table("vehicle_holds", {"status": "text"}, {"account_id": "accounts", "vehicle_id": "vehicles"}),
    table("storage_units", {"vacant": "boolean"}),
    table("unit_rentals", {"status": "text"}, {"account_id": "accounts", "storage_unit_id": "storage_units"}),
    table("load_offers", {"offered_rate": "real"}, {"account_id": "accounts"}),
    table("carrier_invoices", {"amount": "real", "status": "text"}, {"load_offer_id": "load_offers"}),
]
SEED: dict[str, list[dict[str, Any]]] = {
    "monthly_bills": [
        {"monthly_bill_id": "M1", "account_id": "U1", "amount_due": 31.15, "status": "overdue"},  # paid in full
        {"monthly_bill_id": "M2", "account_id": "U1", "amount_due": 80.0, "status": "open"},  # paid in part
        {"monthly_bill_id": "M3", "account_id": "U1", "amount_due": 40.0, "status": "paid"},
    ],
    "bill_payments": [
        {"bill_payment_id": "BP1", "monthly_bill_id": "M1", "amount": 31.15},
        {"bill_payment_id": "BP2", "monthly_bill_id": "M2", "amount": 30.0},
        {"bill_payment_id": "BP3", "monthly_bill_id": "M3", "amount": 40.0},
    ],
    "vehicles": [
        {"vehicle_id": "V1", "availability": "available", "msrp": 25000.0},  # under two active holds
        {"vehicle_id": "V2", "availability": "on_hold", "msrp": 25000.0},
        {"vehicle_id": "V3", "availability": "available", "msrp": 25000.0},  # its hold released
    ],
    "vehicle_holds": [
        {"vehicle_hold_id": "H1", "account_id": "U1", "vehicle_id": "V1", "status": "active"},
        {"vehicle_hold_id": "H2", "account_id": "U2", "vehicle_id": "V1", "status": "active"},
        {"vehicle_hold_id": "H3", "account_id": "U2", "vehicle_id": "V2", "status": "active"},
        {"vehicle_hold_id": "H4", "account_id": "U1", "vehicle_id": "V3", "status": "released"},
    ],
    "storage_units": [{"storage_unit_id": "S1", "vacant": True}],  # rented out, yet vacant
    "unit_rentals": [{"unit_rental_id": "UR1", "account_id": "U1", "storage_unit_id": "S1", "status": "active"}],
    "load_offers": [
        {"load_offer_id": "LO1", "account_id": "U1", "offered_rate": 4150.0},
        {"load_offer_id": "LO2", "account_id": "U1", "offered_rate": 3900.0},
    ],
    "carrier_invoices": [
        {"carrier_invoice_id": f"CI{i}", "load_offer_id": "LO1", "amount": 4150.0, "status": s}
        for i, s in enumerate(("paid", "quick_pay_requested", "submitted"))
    ]
    + [{"carrier_invoice_id": "CI9", "load_offer_id": "LO2", "amount": 3900.0, "status": "submitted"}],
}


def spec_with(seed: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["seed"] |= seed
    return EnvSpec.model_validate(spec)


def test_a_status_against_the_rows_of_its_record_is_counted():
    counts = parents_against_children(spec_with(copy.deepcopy(SEED)))
    # checked: M1, M2, M3 (paid towards), V1, V2, S1 (under a live hold or rental)
    # against: M1 overdue, V1 available, S1 vacant
    assert (counts.parent_states_checked, counts.parent_states_against_children) == (6, 3)


def test_one_thing_taken_twice_and_invoiced_three_times_is_recorded_many_times():
    rules = OneOffRules(spec_with({}))
    assert [(r.child, r.parent) for r in rules.taking] == [
        ("vehicle_holds", "vehicles"),
        ("unit_rentals", "storage_units"),
    ]
    assert ("carrier_invoices", "load_offers") in [(r.child, r.parent) for r in rules.once]
    counts = recorded_many_times(spec_with(copy.deepcopy(SEED)))
    # checked: V1, V2, S1 (live holds), LO1, LO2 (invoices); beyond: V1 held twice, LO1 invoiced three times
    assert (counts.one_off_groups_checked, counts.one_off_recorded_many_times) == (5, 2)


def test_a_write_that_holds_a_held_vehicle_again_is_named():
    rules = OneOffRules(spec_with({}))
    before = {"vehicles": SEED["vehicles"], "vehicle_holds": SEED["vehicle_holds"][2:]}
    again = {**before, "vehicle_holds": [*before["vehicle_holds"], {**SEED["vehicle_holds"][0], "vehicle_id": "V2"}]}
    assert rules.new_excess(before, again) == ["vehicle_holds.vehicle_id V2 recorded more than once"]
    assert rules.read_tables({"vehicle_holds"}) == {"vehicle_holds"}


def test_the_report_counts_the_seed():
    counts = env_quality(CatalogEntry(spec=spec_with(copy.deepcopy(SEED)), tasks=[])).counts  # flags read back as 0/1
    assert (counts.parent_states_checked, counts.parent_states_against_children) == (6, 3)
