"""Rows in a passing state for weeks, dates a tool moves on from that land in the past, holds ending
before what they hold (measure 73); and the seed rules that keep them (``synthesis.domains.transient``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.quality.transient import DayMove, day_moves, hold_ends, lands_past, stale, transient, transient_counts
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.transient import settle_transient
from synthesis.tools.envgen import generate_env

CLOCK = datetime(2026, 3, 2, 9, 0)


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_passing_states_are_read_by_their_words():
    assert transient("out_for_delivery") and transient("In transit") and transient("lab_processing")
    assert not transient("delivered") and not transient("pending") and not transient(None)


def test_a_row_is_stale_when_every_date_is_over_a_week_back():
    assert stale({"expected_on": "2025-11-28"}, ["expected_on"], CLOCK)
    assert not stale({"expected_on": "2026-02-26"}, ["expected_on"], CLOCK)
    # an order placed long ago that is expected tomorrow has not sat in its state
    assert not stale({"ordered_on": "2025-12-01", "expected_on": "2026-03-03"}, ["ordered_on", "expected_on"], CLOCK)
    assert not stale({"expected_on": None}, ["expected_on"], CLOCK)


def test_a_redelivery_adding_days_is_read_from_the_tool_with_the_statuses_it_allows(domains):
    spec = generated(domains, "parcel_delivery_exceptions")
    assert day_moves(spec) == [DayMove("parcels", "expected_on", "days", "status", frozenset({"delivery_attempted"}))]
    assert hold_ends(next(t for t in spec.tables if t.name == "parcels")) == ["hold_until"]
    move = day_moves(spec)[0]
    assert lands_past(move, {"status": "delivery_attempted", "expected_on": "2025-12-18"}, CLOCK)
    assert not lands_past(move, {"status": "delivery_attempted", "expected_on": "2026-03-01"}, CLOCK)
    assert lands_past(move, {"status": "in_transit", "expected_on": "2025-12-18"}, CLOCK) is None


@pytest.mark.parametrize("name", ["parcel_delivery_exceptions", "hotel_room_service", "p2p_payment_requests"])
def test_generated_seeds_keep_passing_states_recent(domains, name):
    counts = transient_counts(generated(domains, name))
    assert counts.transient_rows_checked > 10
    assert (counts.transient_rows_stale, counts.moved_dates_landing_past, counts.holds_ending_before) == (0, 0, 0)


def test_a_stale_parcel_a_past_redelivery_and_a_short_hold_are_counted_and_mended(domains):
    spec = generated(domains, "parcel_delivery_exceptions")
    rows = spec.seed["parcels"]
    out = next(r for r in rows if r["status"] == "out_for_delivery")
    attempted = next(r for r in rows if r["status"] == "delivery_attempted")
    held = next(r for r in rows if r["status"] == "in_transit")
    out["expected_on"] = "2025-11-10"
    attempted["expected_on"] = "2025-12-18"
    held["hold_until"] = "2020-01-01"
    counts = transient_counts(spec)
    assert (counts.transient_rows_stale, counts.moved_dates_landing_past, counts.holds_ending_before) == (2, 1, 1)
    assert settle_transient(spec) >= 3
    assert "2026-02-23" <= out["expected_on"] <= "2026-03-02"
    assert attempted["expected_on"] in ("2026-03-01", "2026-03-02")
    assert held["hold_until"] > held["expected_on"]
    assert transient_counts(spec).transient_rows_stale == 0


def test_a_redelivery_on_a_seed_parcel_lands_ahead_of_the_clock(domains):
    spec = generated(domains, "parcel_delivery_exceptions")
    episode = Environment(spec).episode()
    for row in (r for r in spec.seed["parcels"] if r["status"] == "delivery_attempted" and r["redelivery_count"] <= 1):
        episode.call_tool(
            "schedule_redelivery_parcel",
            {"parcel_id": row["parcel_id"], "recipient_id": row["recipient_id"], "days": 1},
        )
        after = next(r for r in episode.dump("parcels") if r["parcel_id"] == row["parcel_id"])
        assert after["expected_on"] >= "2026-03-02"


def test_money_in_transit_on_nothing_or_for_weeks_is_counted_and_mended(domains):
    spec = generated(domains, "p2p_payment_requests")
    assert transient_counts(spec).transit_money_checked > 10
    assert transient_counts(spec).transit_money_off == 0
    pending = next(r for r in spec.seed["p2p_payments"] if r["status"] == "pending")
    pending["amount"] = 0.0
    assert transient_counts(spec).transit_money_off == 1
    assert settle_transient(spec) >= 1
    assert pending["amount"] > 0
    jury = generated(domains, "jury_duty_summons")
    assert transient_counts(jury).transit_money_checked > 0
    waiting = next(r for r in jury.seed["juror_payments"] if r["status"] == "pending")
    waiting["paid_on"] = "2025-12-01"  # a payment pending for three months is not under way
    assert transient_counts(jury).transit_money_off == 1
    settle_transient(jury)
    assert "2026-02-23" <= waiting["paid_on"] <= "2026-03-02"
    assert transient_counts(jury).transit_money_off == 0
