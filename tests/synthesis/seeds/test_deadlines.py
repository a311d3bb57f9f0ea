"""Deadlines set after their record came to be: a citation due after it was issued, an expired
add-on's expiry passed and an active one's ahead; a deadline a lifecycle holds keeps its day and
the record's history moves back before it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.deadlines import deadlines_before_record
from envs.quality.periods import rows_outside_period
from envs.quality.seed_time import seed_time
from synthesis.domains.deadlines import settle_answer_deadlines, settle_deadlines

from ...envs.specs import SHOP
from .generated import generated_spec

# each had deadlines before their records' openings before seeds kept them after
DOMAINS = ("parking_citation_appeals", "parcel_forwarding_service", "electronics_returns", "mobile_plan_support")

ADDONS = {
    "name": "addons",
    "primary_key": ["addon_id"],
    "columns": [
        {"name": "addon_id", "type": "text"},
        {"name": "status", "type": "text"},
        {"name": "purchased_on", "type": "date"},
        {"name": "expires_on", "type": "date"},
        {"name": "refunded_on", "type": "date", "nullable": True},
    ],
}
ROWS: list[dict[str, Any]] = [  # the clock: 2026-01-15 09:00
    {"addon_id": "A1", "status": "expired", "purchased_on": "2025-12-20", "expires_on": "2025-12-01"},
    {"addon_id": "A2", "status": "active", "purchased_on": "2026-01-10", "expires_on": "2026-01-02"},
    {"addon_id": "A3", "status": "refunded", "purchased_on": "2026-01-05", "expires_on": "2025-12-30"},
    {"addon_id": "A4", "status": "active", "purchased_on": "2025-12-01", "expires_on": "2026-02-01"},
]


def _spec() -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(copy.deepcopy(ADDONS))
    spec["seed"]["addons"] = copy.deepcopy(ROWS)
    return EnvSpec.model_validate(spec)


def _rows(spec: EnvSpec) -> dict[str, dict[str, Any]]:
    return {r["addon_id"]: r for r in spec.seed["addons"]}


def test_a_deadline_moves_after_the_opening_on_the_side_of_the_clock_its_status_needs():
    spec = _spec()
    assert deadlines_before_record(spec).deadlines_before_record == 3
    assert settle_deadlines(spec) == 3
    assert deadlines_before_record(spec).deadlines_before_record == 0
    rows = _rows(spec)
    assert "2025-12-20" <= rows["A1"]["expires_on"] < "2026-01-15"  # expired: passed
    assert rows["A2"]["expires_on"] >= "2026-01-15"  # active: ahead
    assert rows["A3"]["expires_on"] >= "2026-01-05"
    assert rows["A4"] == ROWS[3]
    assert rows_outside_period(spec).rows_outside_period == 0


def test_a_held_deadline_stays_and_the_history_moves_back_before_it():
    spec = _spec()
    settle_deadlines(spec, lambda table, row: frozenset({"expires_on"}))
    rows = _rows(spec)
    assert [rows[k]["expires_on"] for k in ("A1", "A2", "A3")] == ["2025-12-01", "2026-01-02", "2025-12-30"]
    assert all(rows[k]["purchased_on"] <= rows[k]["expires_on"] for k in ("A1", "A2", "A3"))
    assert deadlines_before_record(spec).deadlines_before_record == 0


def test_settling_is_deterministic():
    first, second = _spec(), _spec()
    settle_deadlines(first)
    settle_deadlines(second)
    assert first.seed == second.seed


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_generated_deadlines_follow_their_records(domain_id):
    spec = generated_spec(domain_id)
    counts = deadlines_before_record(spec)
    assert counts.deadline_rows_checked >= 3
    assert counts.deadlines_before_record == 0
    timeline = seed_time(spec, spec.seed, spec.clock)
    assert (timeline.inverted_date_pairs, timeline.clock_violations) == (0, 0)


def test_generated_job_offers_are_answered_before_the_job_starts():
    spec = generated_spec("candidate_recruiting_pipeline")
    counts = deadlines_before_record(spec)
    assert counts.answer_rows_checked == len(spec.seed["job_offers"]) > 0
    assert counts.answers_after_start == 0


def test_a_start_before_the_deadline_to_answer_is_counted_and_moved_after_it():
    base = generated_spec("candidate_recruiting_pipeline")
    spec = base.model_copy(update={"seed": copy.deepcopy(base.seed)})
    offer = spec.seed["job_offers"][0]
    offer["respond_by"], offer["start_date"] = "2026-06-03", "2026-05-12"
    assert deadlines_before_record(spec).answers_after_start == 1
    assert settle_answer_deadlines(spec) == 1
    assert offer["respond_by"] == "2026-06-03" and "2026-06-10" <= offer["start_date"] <= "2026-07-29"
    assert deadlines_before_record(spec).answers_after_start == 0
