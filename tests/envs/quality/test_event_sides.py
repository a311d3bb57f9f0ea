"""Rows on the wrong side of their event's date (measure 92): a claim for a treatment ahead, a shift
weeks past still up for swap; and the seed rule that keeps them (``synthesis.domains.event_sides``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.event_sides import after_tables, rows_on_wrong_side, waiting_states
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.event_sides import settle_event_sides
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_claim_is_a_record_of_its_treatment_by_its_table_name(domains):
    spec = generated(domains, "pet_insurance_claims")
    assert [(t.name, column) for t, column in after_tables(spec)] == [("vet_claims", "treatment_date")]


def test_a_status_every_move_into_requires_the_date_ahead_waits_for_it(domains):
    spec = generated(domains, "hourly_shift_swaps")
    # posting for swap needs the start more than 12 hours away (a policy rule); calling out is at rest
    assert [(w.table, w.status, w.column) for w in waiting_states(spec)] == [("shifts", "up_for_swap", "starts_at")]
    rule = next(r for r in spec.rules if r.tool == "post_for_swap_shift" and "hours away" in r.text)
    spec.rules.remove(rule)
    assert waiting_states(spec) == []


def test_generated_seeds_keep_each_row_on_its_side_and_a_drawn_one_is_mirrored(domains):
    claims = generated(domains, "pet_insurance_claims")
    counts = rows_on_wrong_side(claims)
    assert counts.event_records_checked >= 30 and counts.records_of_events_ahead == 0
    ahead = (claims.clock + timedelta(days=70)).strftime("%Y-%m-%d")
    claim = claims.seed["vet_claims"][0]
    claim["treatment_date"] = ahead
    assert rows_on_wrong_side(claims).records_of_events_ahead == 1
    assert settle_event_sides(claims) == 1
    assert claim["treatment_date"] == (claims.clock - timedelta(days=70)).strftime("%Y-%m-%d")

    shifts = generated(domains, "hourly_shift_swaps")
    counts = rows_on_wrong_side(shifts)
    assert counts.waiting_rows_checked >= 10 and counts.waiting_for_events_past == 0
    shift = next(r for r in shifts.seed["shifts"] if r["status"] == "up_for_swap")
    shift["starts_at"] = (shifts.clock - timedelta(days=42)).strftime("%Y-%m-%d") + " 07:00:00"
    assert rows_on_wrong_side(shifts).waiting_for_events_past == 1
    settle_event_sides(shifts)
    assert shift["starts_at"] == (shifts.clock + timedelta(days=42)).strftime("%Y-%m-%d") + " 07:00:00"
    assert rows_on_wrong_side(shifts).waiting_for_events_past == 0


def test_a_waiting_row_with_something_under_it_that_happened_keeps_its_date(domains):
    spec = generated(domains, "podcast_ad_campaigns")
    past = next(
        r
        for r in spec.seed["ad_campaigns"]
        if r["status"] == "submitted" and any(s["ad_campaign_id"] == r["ad_campaign_id"] for s in spec.seed["ad_spots"])
    )
    past["start_date"] = (spec.clock - timedelta(days=30)).strftime("%Y-%m-%d")
    spot = next(s for s in spec.seed["ad_spots"] if s["ad_campaign_id"] == past["ad_campaign_id"])
    spot["air_date"] = (spec.clock - timedelta(days=20)).strftime("%Y-%m-%d")  # it aired: the campaign began
    settle_event_sides(spec)
    assert past["start_date"] == (spec.clock - timedelta(days=30)).strftime("%Y-%m-%d")
