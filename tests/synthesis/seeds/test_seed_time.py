"""Seed time: generated records keep their start/end pairs in order with a plausible gap, past events
at or before the clock and coming events after it, without losing the seed's other timing (statuses
against event dates, records on both sides of the time rules); creates and task inputs keep the same
rules at run time."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from envs import Environment
from envs.quality.seed import status_date_contradictions
from envs.quality.seed_time import seed_time
from envs.quality.spec import Ownership
from synthesis.domains.timeline import (
    ANCHORED,
    DRAWN,
    PLACED,
    RecordDates,
    inverted,
    ordered_inputs,
    settle_record_dates,
    user_date,
)

from .generated import generated_spec

CLOCK = datetime(2026, 3, 2, 9)
# start/end pairs (an end a lifecycle times, a start it times, a nullable end, a datetime start with a
# date end, a validity), past events with return windows, statuses that say an event is to come
DOMAINS = (
    "debit_card_controls",
    "passport_renewal",
    "eyewear_prescription_orders",
    "pto_leave_requests",
    "self_storage_rentals",
    "benefits_open_enrollment",
    "airport_parking_reservations",
    "medical_equipment_rentals",
    "parking_citation_appeals",
    "warehouse_inbound_receiving",
    "car_wash_memberships",
)


def _day(value: str) -> datetime:
    return datetime.fromisoformat(value[:10])


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_generated_seeds_keep_pairs_in_order_and_events_on_their_side_of_the_clock(domain_id: str) -> None:
    spec = generated_spec(domain_id, CLOCK)
    counts = seed_time(spec, spec.seed, spec.clock)
    assert counts.date_pairs_checked + counts.clock_timestamps_checked >= 10
    assert (counts.inverted_date_pairs, counts.past_events_after_clock, counts.future_events_before_clock) == (0, 0, 0)
    state = Ownership.of(spec).state(spec.seed)
    dates = status_date_contradictions(spec, state, spec.clock)  # the status/date timing still holds
    assert (dates.after_in_future, dates.before_in_past) == (0, 0)


def test_pairs_are_checked_where_the_domains_have_them() -> None:
    pairs = {
        d: seed_time(generated_spec(d, CLOCK), generated_spec(d, CLOCK).seed, CLOCK).date_pairs_checked
        for d in DOMAINS[:8]
    }
    # a pending election carries no recorded end (measure 42), so benefits enrollments have fewer pairs
    assert all(n >= 4 for n in pairs.values()), pairs


def test_gaps_are_plausible_for_the_kind_of_period() -> None:
    notices = generated_spec("debit_card_controls", CLOCK).seed["travel_notices"]
    gaps = {(_day(r["end_date"]) - _day(r["start_date"])).days for r in notices}
    assert min(gaps) >= 1 and max(gaps) <= 30  # a trip abroad: days
    passports = generated_spec("passport_renewal", CLOCK).seed["passports"]
    years = [(_day(r["expiry_date"]) - _day(r["issue_date"])).days for r in passports]
    assert min(years) >= 90 and max(years) <= 3 * 365  # a validity: months to years
    assert all(r["issue_date"] <= CLOCK.strftime("%Y-%m-%d") for r in passports)  # issued: a past event


def test_a_date_a_lifecycle_times_stays_and_its_partner_moves() -> None:
    # a leave's return date is its event date (extend needs it ahead): the start gives way
    leaves = generated_spec("pto_leave_requests", CLOCK).seed["leaves_of_absence"]
    now = CLOCK.strftime("%Y-%m-%d")
    assert all(r["return_date"] > now for r in leaves if r["status"] in ("requested", "approved", "active"))
    assert all(r["start_date"] < r["return_date"] for r in leaves)
    # a pending enrollment takes effect later: it cannot have ended, so its nullable end is empty
    enrollments = generated_spec("benefits_open_enrollment", CLOCK).seed["enrollments"]
    ahead = [r for r in enrollments if r["effective_date"] > now]
    assert ahead and all(r["ended_on"] is None for r in ahead)


def test_time_rules_still_have_records_on_both_sides() -> None:
    # appeals are allowed within 60 days of the citation: some citations are inside, some beyond
    citations = generated_spec("parking_citation_appeals", CLOCK).seed["citations"]
    ages = [(CLOCK - datetime.fromisoformat(r["issued_at"])) / timedelta(days=1) for r in citations]
    assert all(a >= 0 for a in ages) and any(a <= 60 for a in ages) and any(a > 60 for a in ages)
    # a rental is extended only in its last 7 days: some delivered rentals end within them, some later
    rentals = [
        r for r in generated_spec("medical_equipment_rentals", CLOCK).seed["rentals"] if r["status"] == "delivered"
    ]
    edge = (CLOCK + timedelta(hours=168)).strftime("%Y-%m-%d %H:%M:%S")
    assert any(r["end_date"] <= edge for r in rentals) and any(r["end_date"] > edge for r in rentals)


# -- one record ------------------------------------------------------------------------------------

_PLAN = RecordDates.of(
    [
        ("status", "text", False),
        ("issued_on", "date", False),
        ("expires_on", "date", True),
        ("due_date", "date", False),
    ],
    statuses=["status"],
)


def _settled(row: dict[str, Any], rank: dict[str, int]) -> dict[str, Any]:
    out = dict(row)
    settle_record_dates(out, _PLAN, rank, CLOCK, random.Random(0))
    return out


def test_the_lower_rank_gives_way() -> None:
    row = {"status": "active", "issued_on": "2026-01-10", "expires_on": "2025-12-01", "due_date": "2026-01-01"}
    moved_end = _settled(row, {"issued_on": ANCHORED})
    assert moved_end["issued_on"] == "2026-01-10" and moved_end["expires_on"] >= "2026-04-10"  # 90 days on
    moved_start = _settled(row, {"expires_on": ANCHORED})
    assert moved_start["expires_on"] == "2025-12-01" and moved_start["issued_on"] <= "2025-09-02"
    kept = _settled({**row, "expires_on": "2026-05-01"}, {"issued_on": PLACED, "expires_on": PLACED})
    assert kept == {**row, "expires_on": "2026-05-01"}  # placed on purpose and in order: left alone
    free = _settled(row, {})
    assert free["issued_on"] <= "2026-03-02" and free["expires_on"] > free["issued_on"]


def test_a_coming_event_moves_ahead_and_an_impossible_nullable_end_is_cleared() -> None:
    row = {"status": "scheduled", "issued_on": "2026-02-01", "expires_on": "2026-02-03", "due_date": "2026-01-01"}
    out = _settled(row, {"issued_on": DRAWN})
    assert out["issued_on"] <= "2026-03-02"  # issued: a past event
    assert out["due_date"] > "2026-03-02" and out["expires_on"] >= "2026-03-02"  # scheduled: still to come
    # coverage that takes effect next month cannot have ended already: its nullable end is cleared
    coverage = RecordDates.of([("effective_date", "date", False), ("ended_on", "date", True)])
    future = {"effective_date": "2026-04-01", "ended_on": "2026-04-20"}
    settle_record_dates(future, coverage, {"effective_date": ANCHORED}, CLOCK, random.Random(0))
    assert future == {"effective_date": "2026-04-01", "ended_on": None}


# -- run time -----------------------------------------------------------------------------------------


def test_a_create_starts_an_end_after_its_start_not_today() -> None:
    spec = generated_spec("airport_parking_reservations", CLOCK)
    seed = spec.seed
    reserved = [r["customer_id"] for r in seed["parking_reservations"] if r["status"] == "reserved"]
    customer = next(c["customer_id"] for c in seed["customers"] if reserved.count(c["customer_id"]) < 2)
    lot = next(p["parking_lot_id"] for p in seed["parking_lots"] if p["spaces_left"] >= 1)
    ep = Environment(spec).episode()
    args = {"customer_id": customer, "parking_lot_id": lot, "entry_at": "2026-03-20 08:00:00"}
    made = ep.call_tool("create_parking_reservation", args).content
    ep.close()
    # the exit starts the day after the entry (not today), and the domain's create adds its one day
    assert made["entry_at"] == "2026-03-20 08:00:00" and made["exit_date"] == "2026-03-22"
    enrollment = generated_spec("benefits_open_enrollment", CLOCK).tool("create_enrollment")
    assert enrollment is not None
    insert = next(s.sql for s in enrollment.steps if s.kind == "exec" and "INSERT" in s.sql)
    assert insert.endswith("NULL, 'pending')")  # a coverage that has not ended has no end date


def test_task_inputs_keep_pairs_in_order_and_past_events_past() -> None:
    rng = random.Random(3)
    kinds = {"start_date": "date", "end_date": "date", "destination": "text"}
    for _ in range(20):
        given = {"start_date": user_date("start_date", "date", CLOCK, rng), "end_date": "2026-03-03"}
        assert inverted(given, kinds)
        ordered = ordered_inputs({**given, "destination": "Peru"}, kinds, rng)
        assert not inverted(ordered, kinds) and ordered["destination"] == "Peru"
    assert user_date("incurred_on", "date", CLOCK, rng) < "2026-03-02"
    assert user_date("date_of_birth", "date", CLOCK, rng) < "2008-03-02"
    assert user_date("move_date", "date", CLOCK, rng) > "2026-03-02"
