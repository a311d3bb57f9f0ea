"""Dates at distances from the clock their kind does not have (measure 106), and the seed rules that
keep them (``synthesis.domains.horizons``, the horizon-bounded draws of the seed generator)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.horizons import beyond, date_kind, dates_beyond_horizon, reach
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.horizons import settle_horizons
from synthesis.domains.ontology import load_ontology
from synthesis.domains.timeline import ahead_span, far_reach
from synthesis.tools.envgen import generate_env
from tests.measured import MEASURED

CLOCK = datetime(2026, 3, 2, 9, 0)


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_date_kind_is_read_from_its_name():
    assert date_kind("expected_on") == date_kind("hold_until") == date_kind("next_delivery") == "arrival"
    # a booked delivery or a stay's arrival may be months out: an event
    assert date_kind("delivery_date") == date_kind("arrival_date") == "event"
    assert date_kind("estimated_start") == "start"
    assert date_kind("next_billing_date") == "due"
    assert date_kind("paid_through") == date_kind("expires_on") == "end"  # paid through a day: an end
    assert date_kind("move_in_date") == date_kind("member_since") == "start"
    assert date_kind("placed_at") == date_kind("paid_on") == "made"
    assert date_kind("appointment_at") == date_kind("air_date") == "event"
    assert date_kind("date_of_birth") is None


def test_each_kind_has_its_own_reach():
    assert beyond("2026-04-20", reach("arrival", {}, []), CLOCK)  # a parcel seven weeks out
    assert not beyond("2026-03-20", reach("arrival", {}, []), CLOCK)
    assert beyond("2029-03-01", reach("event", {}, []), CLOCK)  # an appointment three years ahead
    assert not beyond("2026-08-01", reach("event", {}, []), CLOCK)
    assert beyond("2006-01-01", reach("start", {}, []), CLOCK)  # a membership begun twenty years ago
    assert not beyond("2019-05-01", reach("start", {}, []), CLOCK)
    assert not beyond("2029-01-01", reach("end", {}, []), CLOCK)  # a three-year warranty
    # an order placed two years ago is believable once delivered, not while still pending
    assert not beyond("2024-03-01", reach("made", {"status": "delivered"}, ["status"]), CLOCK)
    assert beyond("2024-03-01", reach("made", {"status": "pending"}, ["status"]), CLOCK)
    assert beyond(None, reach("event", {}, []), CLOCK) is None


def test_the_seed_draws_stay_within_a_kinds_horizon():
    assert ahead_span(timedelta(days=120), "expected_on") == timedelta(days=30)
    assert ahead_span(timedelta(days=120), "air_date") == timedelta(days=120)
    assert far_reach("expected_on", ahead=True) == timedelta(days=30)
    assert far_reach("appointment_at", ahead=True) == timedelta(days=366)
    assert far_reach(None, ahead=True) == timedelta(days=3650)


@pytest.mark.parametrize("name", MEASURED)
def test_generated_seeds_keep_every_date_within_its_horizon(domains, name):
    counts = dates_beyond_horizon(generated(domains, name))
    assert counts.horizon_dates_checked > 20
    assert counts.dates_beyond_horizon == 0


def test_a_far_parcel_and_an_old_open_order_are_counted_and_brought_back(domains):
    spec = generated(domains, "parcel_delivery_exceptions")
    parcel = next(r for r in spec.seed["parcels"] if r["status"] == "in_transit")
    parcel["expected_on"], parcel["hold_until"] = "2026-07-01", "2026-07-08"
    counts = dates_beyond_horizon(spec)
    assert counts.dates_beyond_horizon == 2
    assert settle_horizons(spec) >= 1
    assert "2026-03-02" < parcel["expected_on"] <= "2026-04-01"
    assert parcel["hold_until"] > parcel["expected_on"]  # one shift: the hold still ends after the arrival
    assert dates_beyond_horizon(spec).dates_beyond_horizon == 0


def test_past_dates_move_forward_without_crossing_the_clock(domains):
    spec = generated(domains, "self_storage_rentals")
    payment = spec.seed["storage_payments"][0]
    payment["paid_on"] = "2015-06-01"
    assert dates_beyond_horizon(spec).dates_beyond_horizon == 1
    settle_horizons(spec)
    assert "2021-03-01" <= payment["paid_on"] <= "2026-03-02"
    assert dates_beyond_horizon(spec).dates_beyond_horizon == 0
