"""Seed records awaited no longer than a margin after their event: dates move together into the last
weeks before the clock, statuses stay; an end recorded on a pending record is cleared (measure 42)."""

from __future__ import annotations

import copy

import pytest

from envs.quality.awaited import awaited_long_past
from synthesis.domains.awaited import settle_awaited

from ...envs.quality.test_awaited import SEED, spec_with
from .generated import generated_spec


def test_awaited_rows_move_into_the_margin_before_the_clock():
    spec = spec_with(copy.deepcopy(SEED))
    assert settle_awaited(spec) == 2
    e1 = spec.seed["elections"][0]
    assert e1["status"] == "pending" and e1["ended_on"] is None
    assert "2025-12-17" <= e1["effective_date"] < "2026-01-15"
    s1 = spec.seed["stays"][0]
    assert "2025-12-17" <= s1["checkout_date"] < "2026-01-15"
    assert spec.seed["stays"][1]["checkout_date"] == "2025-11-12"
    assert spec.seed["claims"] == SEED["claims"]
    assert awaited_long_past(spec).awaited_long_past == 0
    assert spec.seed["elections"][3] == SEED["elections"][3]  # its effective date is ahead: not long past
    assert settle_awaited(spec) == 0


@pytest.mark.parametrize("domain_id", ["benefits_open_enrollment", "hotel_loyalty_points", "podcast_ad_campaigns"])
def test_generated_awaited_records_are_recent(domain_id):
    counts = awaited_long_past(generated_spec(domain_id))
    assert counts.awaited_rows_checked >= 5
    assert counts.awaited_long_past == 0


def test_an_end_inside_the_margin_does_not_keep_a_long_past_event_from_moving():
    """A pending election's end may be cleared later (a pending record has none): the row is judged by
    its effective date alone, so that date is not left two months back once the end is gone."""
    seed = copy.deepcopy(SEED)
    seed["elections"] = [
        {"election_id": "E5", "status": "pending", "effective_date": "2025-11-01", "ended_on": "2026-01-10"}
    ]
    spec = spec_with(seed)
    assert settle_awaited(spec) == 2  # E5 and the stay S1
    e5 = spec.seed["elections"][0]
    assert e5["ended_on"] is None and "2025-12-17" <= e5["effective_date"] < "2026-01-15"
