"""Seed rows inside the period their status names: a checked-in stay has not ended, a parked car came
in already, an active contract has not expired, an expired one has; dates move, statuses stay."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.periods import rows_outside_period
from envs.quality.seed_time import seed_time
from synthesis.domains.periods import settle_periods

from ...envs.quality.test_periods import CONTRACTS, STAYS, SUBSCRIPTIONS
from ...envs.specs import SHOP
from .generated import generated_spec

# each had rows outside their period before seeds followed their statuses' periods
DOMAINS = (
    "campground_site_reservations",
    "hotel_room_reservations",
    "vacation_rental_bookings",
    "airport_parking_reservations",
    "vehicle_warranty_claims",
    "brokerage_trade_orders",
    "prepaid_roaming_passes",
    "benefits_open_enrollment",
    "audiobook_credit_membership",
    "cable_tv_subscriptions",
    "car_wash_memberships",
    "personal_loan_servicing",
)

# the quality measure's stays and contracts (a free-look window the seeds leave unset), and a parking
TABLES = [
    STAYS,
    CONTRACTS,
    {
        "name": "parkings",
        "primary_key": ["parking_id"],
        "columns": [
            {"name": "parking_id", "type": "text"},
            {"name": "status", "type": "text"},
            {"name": "entry_at", "type": "datetime"},
            {"name": "exit_date", "type": "date"},
        ],
    },
]
SEED: dict[str, list[dict[str, Any]]] = {
    "stays": [
        {"stay_id": "S1", "status": "checked_in", "arrival_date": "2025-12-20", "nights": 3},
        {"stay_id": "S2", "status": "reserved", "arrival_date": "2025-12-20", "nights": 3},
    ],
    "contracts": [
        {"contract_id": "C1", "status": "active", "starts_on": "2025-01-01", "expires_on": "2025-12-01"},
        {"contract_id": "C2", "status": "active", "starts_on": "2025-01-01", "expires_on": "2027-01-01"},
        {
            "contract_id": "C3",
            "status": "expired",
            "starts_on": "2025-06-01",
            "expires_on": "2026-02-01",
            "ended_on": None,
        },
        {
            "contract_id": "C4",
            "status": "active",
            "starts_on": "2025-01-01",
            "expires_on": "2027-01-01",
            "ended_on": "2025-10-01",
        },
    ],
    "parkings": [
        {"parking_id": "P1", "status": "parked", "entry_at": "2026-02-01 10:00:00", "exit_date": "2026-02-10"}
    ],
}


def _spec() -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["seed"] |= copy.deepcopy(SEED)
    return EnvSpec.model_validate(spec)


def test_dates_move_into_the_period_and_statuses_stay():
    spec = _spec()
    assert rows_outside_period(spec).rows_outside_period == 5
    moved = settle_periods(spec)
    counts = rows_outside_period(spec)
    assert (counts.period_rows_checked, counts.rows_outside_period) == (6, 0)
    assert moved == 5  # S1's arrival, C1's expiry, C3's expiry, C4's end, P1's entry (its exit is ahead)
    rows = {r.get("stay_id") or r.get("contract_id") or r["parking_id"]: r for t in SEED for r in spec.seed[t]}
    assert [rows[k]["status"] for k in ("S1", "C1", "C3", "C4", "P1")] == [
        "checked_in",
        "active",
        "expired",
        "active",
        "parked",
    ]
    assert rows["S2"]["arrival_date"] == "2025-12-20" and rows["C2"]["expires_on"] == "2027-01-01"  # left alone
    assert "2026-01-12" <= rows["S1"]["arrival_date"] <= "2026-01-15"  # three nights: arrived in the last three days
    assert rows["C3"]["starts_on"] < rows["C3"]["expires_on"] < "2026-01-15"
    assert rows["C4"]["ended_on"] is None
    assert rows["P1"]["entry_at"] <= "2026-01-15 09:00:00" <= rows["P1"]["exit_date"] + " 23:59:59"
    assert seed_time(spec, spec.seed, spec.clock).inverted_date_pairs == 0


def test_settling_is_deterministic():
    first, second = _spec(), _spec()
    settle_periods(first)
    settle_periods(second)
    assert first.seed == second.seed


def test_a_date_a_lifecycle_times_stays_unless_it_is_a_running_stays_start():
    spec = _spec()
    held = frozenset({"expires_on", "arrival_date", "entry_at"})
    settle_periods(spec, lambda table, row: held)
    rows = {r.get("stay_id") or r.get("contract_id") or r["parking_id"]: r for t in SEED for r in spec.seed[t]}
    assert rows["C1"]["expires_on"] == "2025-12-01" and rows["C3"]["expires_on"] == "2026-02-01"
    assert rows["S1"]["arrival_date"] != "2025-12-20"  # moved within the past: still arrived
    # a parked car's entry is held; moving the exit alone would leave the entry after the clock
    assert rows["P1"]["entry_at"] == "2026-02-01 10:00:00"


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_generated_seeds_keep_every_record_inside_its_period(domain_id):
    spec = generated_spec(domain_id)
    counts = rows_outside_period(spec)
    # a car wash's locations are named once, so fewer memberships are drawn there
    assert counts.period_rows_checked >= (1 if domain_id == "car_wash_memberships" else 3)
    assert counts.rows_outside_period == 0
    timeline = seed_time(spec, spec.seed, spec.clock)
    assert (timeline.inverted_date_pairs, timeline.clock_violations) == (0, 0)


def test_an_ended_record_has_nothing_next_and_an_overdue_one_fell_due():
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(SUBSCRIPTIONS)
    dates = {"started_on": "2025-03-01", "next_billing_date": "2026-02-01", "next_due_date": "2026-03-05"}
    spec["seed"]["subscriptions"] = [
        {"subscription_id": "S1", "status": "cancelled", **dates, "next_due_date": "2025-12-01"},
        {"subscription_id": "S2", "status": "delinquent", **dates},
        {"subscription_id": "S3", "status": "active", **dates},
    ]
    env_spec = EnvSpec.model_validate(spec)
    assert rows_outside_period(env_spec).rows_outside_period == 2
    settle_periods(env_spec, lambda table, row: frozenset({"next_due_date"}))  # moving earlier keeps "passed"
    assert rows_outside_period(env_spec).rows_outside_period == 0
    s1, s2, s3 = env_spec.seed["subscriptions"]
    assert s1["next_billing_date"] is None and s1["status"] == "cancelled"  # cleared where it may be empty
    assert "2025-12-01" <= s2["next_due_date"] < "2026-01-15" and s2["status"] == "delinquent"
    assert s2["next_billing_date"] == "2026-02-01" and s3["next_due_date"] == "2026-03-05"  # left alone
