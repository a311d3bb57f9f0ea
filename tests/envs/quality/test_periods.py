"""Records outside the period their status names (measure 31): a checked-in stay that ended, a parked
car not yet in, an active contract past its expiry, an expired one still running, an end recorded on
an active record; and the windows inside a term that may close while it runs."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.periods import (
    begun_statuses,
    breaches,
    length_unit,
    period_end,
    period_of,
    phase,
    rows_outside_period,
)
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env

from ..specs import SHOP

CLOCK = datetime(2026, 1, 15, 9, 0, 0)

STAYS = {
    "name": "stays",
    "primary_key": ["stay_id"],
    "columns": [
        {"name": "stay_id", "type": "text"},
        {"name": "status", "type": "text"},
        {"name": "arrival_date", "type": "date"},
        {"name": "nights", "type": "integer"},
    ],
}
CONTRACTS = {
    "name": "contracts",
    "primary_key": ["contract_id"],
    "columns": [
        {"name": "contract_id", "type": "text"},
        {"name": "status", "type": "text"},
        {"name": "starts_on", "type": "date"},
        {"name": "free_look_ends", "type": "date"},
        {"name": "expires_on", "type": "date"},
        {"name": "ended_on", "type": "date", "nullable": True},
    ],
}


def _spec(stays: list[dict[str, Any]], contracts: list[dict[str, Any]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += [copy.deepcopy(STAYS), copy.deepcopy(CONTRACTS)]
    spec["seed"] |= {"stays": stays, "contracts": contracts}
    return EnvSpec.model_validate(spec)


def _columns(table: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["name"], c["type"]) for c in table["columns"]]


def test_a_period_is_read_from_column_names():
    stays = period_of(_columns(STAYS))
    assert stays.length is not None and stays.length[:2] == ("arrival_date", "nights")
    assert stays.ends == () and stays.starts == ()  # an arrival with a length opens the stay
    contracts = period_of(_columns(CONTRACTS))
    assert contracts.starts == ("starts_on",)
    assert contracts.ends == ("expires_on",)  # a free-look window may close while the contract runs
    assert contracts.stamps == ("ended_on",)


@pytest.mark.parametrize(
    ("name", "unit"),
    [("nights", timedelta(days=1)), ("duration_hours", timedelta(hours=1)), ("num_nights", timedelta(days=1))],
)
def test_a_length_column_has_a_unit(name, unit):
    assert length_unit(name) == unit


@pytest.mark.parametrize("name", ["hours_worked", "hours_paid", "travel_days_left", "delay_minutes", "nights_hours"])
def test_a_count_that_is_no_length_has_none(name):
    assert length_unit(name) is None


def test_phases_come_from_the_status_words():
    assert phase({"status": "checked_in"}, ["status"]) == "running"
    assert phase({"status": "Active"}, ["status"]) == "in_force"
    assert phase({"status": "expired"}, ["status"]) == "lapsed"
    assert phase({"status": "reserved"}, ["status"]) is None
    assert phase({"status": "active", "billing_status": "expired"}, ["status", "billing_status"]) is None


def test_a_stay_ends_its_length_after_its_arrival():
    assert period_end("2026-01-10", 3, timedelta(days=1)) == "2026-01-13"
    assert period_end("2026-01-10 10:00:00", 2, timedelta(hours=1)) == "2026-01-10 12:00:00"
    assert period_end("2026-01-10", None, timedelta(days=1)) is None


def test_each_contradiction_is_named():
    stays = period_of(_columns(STAYS))
    contracts = period_of(_columns(CONTRACTS))
    over = {"status": "checked_in", "arrival_date": "2025-12-20", "nights": 3}
    assert breaches(stays, over, "running", CLOCK) == [("arrival_date", "over")]
    ahead = {"status": "checked_in", "arrival_date": "2026-02-01", "nights": 3}
    assert breaches(stays, ahead, "running", CLOCK) == [("arrival_date", "not_started")]
    staying = {"status": "checked_in", "arrival_date": "2026-01-13", "nights": 2}  # leaves today
    assert breaches(stays, staying, "running", CLOCK) == []
    expired_active = {"starts_on": "2025-01-01", "free_look_ends": "2025-01-31", "expires_on": "2026-01-14"}
    assert breaches(contracts, expired_active, "in_force", CLOCK) == [("expires_on", "ended")]
    ended_active = {"starts_on": "2025-01-01", "expires_on": "2027-01-01", "ended_on": "2025-06-01"}
    assert breaches(contracts, ended_active, "in_force", CLOCK) == [("ended_on", "stamped")]
    running_expired = {"starts_on": "2025-01-01", "expires_on": "2026-03-01"}
    assert breaches(contracts, running_expired, "lapsed", CLOCK) == [("expires_on", "not_lapsed")]
    future_active = {"starts_on": "2026-06-01", "expires_on": "2027-06-01"}  # bought before the trip
    assert breaches(contracts, future_active, "in_force", CLOCK) == []
    assert breaches(contracts, expired_active, None, CLOCK) == []


def test_rows_outside_their_period_are_counted_once_each():
    spec = _spec(
        [
            {"stay_id": "S1", "status": "checked_in", "arrival_date": "2025-12-20", "nights": 3},
            {"stay_id": "S2", "status": "checked_in", "arrival_date": "2026-01-14", "nights": 3},
            {"stay_id": "S3", "status": "reserved", "arrival_date": "2025-12-20", "nights": 3},
        ],
        [
            {"contract_id": "C1", "status": "active", "starts_on": "2025-01-01", "expires_on": "2025-12-01"},
            {"contract_id": "C2", "status": "active", "starts_on": "2025-01-01", "expires_on": "2027-01-01"},
            {"contract_id": "C3", "status": "cancelled", "starts_on": "2025-01-01", "expires_on": "2025-02-01"},
            {
                "contract_id": "C4",
                "status": "expired",
                "starts_on": "2025-01-01",
                "expires_on": "2026-02-01",
                "ended_on": "2025-03-01",
            },
        ],
    )
    counts = rows_outside_period(spec)
    # S3 and C3 have statuses that name no period; S1 is over, C1 past its expiry, C4 not yet expired
    assert (counts.period_rows_checked, counts.rows_outside_period) == (5, 3)


SUBSCRIPTIONS = {
    "name": "subscriptions",
    "primary_key": ["subscription_id"],
    "columns": [
        {"name": "subscription_id", "type": "text"},
        {"name": "status", "type": "text"},
        {"name": "started_on", "type": "date"},
        {"name": "next_billing_date", "type": "date", "nullable": True},
        {"name": "next_due_date", "type": "date"},
    ],
}


@pytest.mark.parametrize(
    ("status", "row", "found"),
    [
        ("cancelled", {"next_billing_date": "2026-03-01"}, [("next_billing_date", "upcoming")]),
        ("cancelled", {"next_billing_date": "2026-01-01"}, []),  # the last bill before it ended
        ("cancelled", {"next_billing_date": None}, []),
        ("expired", {"next_billing_date": "2026-03-01"}, [("next_billing_date", "upcoming")]),
        ("active", {"next_billing_date": "2026-03-01"}, []),
        ("paused", {"next_billing_date": "2026-03-01"}, []),  # it may resume
        ("delinquent", {"next_due_date": "2026-02-01"}, [("next_due_date", "not_due")]),
        ("delinquent", {"next_due_date": "2026-01-15"}, [("next_due_date", "not_due")]),  # due today is not late
        ("delinquent", {"next_due_date": "2026-01-02"}, []),
        ("active", {"next_due_date": "2026-02-01"}, []),
    ],
)
def test_nothing_comes_next_of_an_ended_record_and_an_overdue_one_fell_due(status, row, found):
    period = period_of(_columns(SUBSCRIPTIONS))
    assert period.upcoming == ("next_billing_date", "next_due_date") and period.dues == ("next_due_date",)
    row = {"status": status, "started_on": "2025-06-01", **row}
    assert [b for b in breaches(period, row, phase(row, ["status"]), CLOCK) if b[0] in row] == found


def _table(name: str, statuses: list[str], start: str) -> dict[str, Any]:
    return {
        "name": name,
        "primary_key": ["id"],
        "columns": [
            {"name": "id", "type": "text"},
            {"name": "status", "type": "text", "enum": statuses},
            {"name": start, "type": "date"},
        ],
    }


def _with(table: dict[str, Any], rows: list[dict[str, Any]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(table)
    spec["seed"][table["name"]] = rows
    spec["clock"] = CLOCK.isoformat()
    return EnvSpec.model_validate(spec)


def test_a_status_in_force_after_a_state_before_it_has_begun():
    leaves = _table("leaves", ["requested", "approved", "active", "returned", "withdrawn"], "start_date")
    notices = _table("travel_notices", ["active", "cancelled"], "start_date")
    spec = _with(leaves, [])
    (table,) = [t for t in spec.tables if t.name == "leaves"]
    assert begun_statuses(table, period_of(_columns(leaves))) == {"active"}
    # a travel notice is active from when it is filed, for a trip still ahead
    spec = _with(notices, [])
    (table,) = [t for t in spec.tables if t.name == "travel_notices"]
    assert begun_statuses(table, period_of(_columns(notices))) == frozenset()
    rows = [
        {"id": "L1", "status": "active", "start_date": "2026-05-01"},
        {"id": "L2", "status": "active", "start_date": "2026-01-02"},
        {"id": "L3", "status": "approved", "start_date": "2026-05-01"},
    ]
    counts = rows_outside_period(_with(leaves, rows))
    assert (counts.period_rows_checked, counts.rows_outside_period) == (2, 1)


def test_every_status_from_the_first_in_force_has_begun_where_the_start_is_an_arrival():
    rentals = _table("unit_rentals", ["active", "overlocked", "move_out_scheduled", "closed"], "move_in_date")
    spec = _with(rentals, [])
    (table,) = [t for t in spec.tables if t.name == "unit_rentals"]
    # a move-out still to come is measure 7's: its date is read ahead
    assert begun_statuses(table, period_of(_columns(rentals))) == {"active", "overlocked"}
    rows = [
        {"id": "R1", "status": "overlocked", "move_in_date": "2026-04-19"},
        {"id": "R2", "status": "closed", "move_in_date": "2026-04-19"},
    ]
    assert rows_outside_period(_with(rentals, rows)).rows_outside_period == 1


@pytest.mark.parametrize("name", ["pto_leave_requests", "self_storage_rentals", "podcast_ad_campaigns"])
def test_generated_seeds_keep_a_begun_status_on_a_start_passed(name):
    domain = next(d for d in load_ontology() if d.id == name)
    counts = rows_outside_period(generate_env(assign_enforcement(domain), seed=0).spec)
    assert counts.period_rows_checked > 5
    assert counts.rows_outside_period == 0
