"""Where a write leaves a record (the seed-83 review): an amount changed by a little, as people write
it, and an extension asked for only where it lands after the clock."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from envs import Environment
from synthesis.domains.domain import Attribute
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.chain import Goal
from synthesis.tasks.landing import EARLY_DAYS, asked_early, lands_past, moved_date, nearby_amount
from synthesis.tasks.taskgen import TaskGenerator
from synthesis.tools.envgen import generate_env

CLOCK = datetime(2026, 3, 2, 9, 0)


def _generated(domain_id: str) -> tuple[Any, Any, Environment]:
    domain = next(d for d in load_ontology() if d.id == domain_id)
    g = generate_env(domain, seed=0)
    return domain, g, Environment(g.spec)


def test_a_corrected_amount_stays_near_the_old_one_and_is_rounded_as_written() -> None:
    rng = random.Random(0)
    value = Attribute(name="declared_value", kind="money")
    for _ in range(300):
        new = nearby_amount(47420.11, value, {}, rng)
        assert new is not None and new != 47420.11
        assert 0.6 * 47420.11 <= new <= 1.4 * 47420.11  # never 39.42, nor ten times as much
        assert new % 100 == 0  # three figures: 39,400, not 39,358.69
    small = [nearby_amount(58.37, value, {}, random.Random(seed)) for seed in range(50)]
    assert all(x is not None and abs(x * 10 - round(x * 10)) < 1e-6 for x in small)  # 58.4, not 58.37


def test_a_count_stays_whole_and_an_odometer_only_goes_up() -> None:
    rng = random.Random(3)
    hours = Attribute(name="hours_worked", kind="integer")
    odometer = Attribute(name="odometer", kind="integer")
    for _ in range(200):
        h = nearby_amount(19, hours, {}, rng)
        assert isinstance(h, int) and h != 19 and 19 / 5 <= h <= 19 * 5
        o = nearby_amount(126509, odometer, {}, rng)
        assert isinstance(o, int) and o > 126509
    assert nearby_amount(1, hours, {}, rng) == 2  # the least change of a count of one is one more


def test_no_near_amount_for_what_holds_none() -> None:
    rng = random.Random(0)
    assert nearby_amount("x", Attribute(name="note", kind="text"), {}, rng) is None
    assert nearby_amount(0, Attribute(name="fee", kind="money"), {}, rng) is None
    assert nearby_amount(None, Attribute(name="fee", kind="money"), {}, rng) is None
    # a bound the old value keeps is kept: part of the way to it, never a value drawn anew
    fee = Attribute(name="fee", kind="money", range=(20, 50000))
    capped = [nearby_amount(39235.72, fee, {}, random.Random(s)) for s in range(60)]
    assert all(x is not None and 39235.72 * 0.6 <= x <= 50000 for x in capped)
    assert any(x is not None and x > 39235.72 for x in capped)
    odometer = Attribute(name="odometer", kind="integer", range=(10000, 150000))
    read = [nearby_amount(138182, odometer, {}, random.Random(s)) for s in range(40)]
    assert all(x is not None and 138182 < x <= 150000 for x in read)
    # on the bound it would move past: nowhere to go
    assert nearby_amount(150000, odometer, {}, random.Random(0)) is None


def test_a_date_to_come_counts_from_the_clock_and_a_past_end_does_not() -> None:
    assert moved_date("end_date", "2026-01-04", 30, CLOCK) == "2026-02-03"
    assert moved_date("expires_on", "2026-01-04", 30, CLOCK) == "2026-04-01"  # lapsed: from today
    assert moved_date("end_date", None, 30, CLOCK) is None


def test_an_extension_still_ending_in_the_past_is_no_task() -> None:
    """medical_equipment_rentals: extend_rental adds 30 days to end_date in a rental's last days or once
    it has run out. Before, rentals that ended in December were extended into January."""
    domain, g, env = _generated("medical_equipment_rentals")
    gen = TaskGenerator(domain, g.spec, g.meta, env, seed=0)
    extend = gen.meta["extend_rental"]
    rental, t = gen._transition(extend)
    delivered = [r for r in gen.oracle.rows[rental.name].values() if r["status"] == "delivered"]
    past = [r for r in delivered if lands_past(rental, t, r, {}, g.spec.clock)]
    ahead = [r for r in delivered if not lands_past(rental, t, r, {}, g.spec.clock)]
    clock = g.spec.clock.strftime("%Y-%m-%d")
    assert all(str(moved_date("end_date", r["end_date"], 30, g.spec.clock)) < clock for r in past)
    chosen = {row["rental_id"] for row, _ in gen.candidates(extend)}
    assert chosen and not chosen & {r["rental_id"] for r in past}
    assert chosen <= {r["rental_id"] for r in ahead}


def test_an_extension_asked_weeks_before_its_date_is_no_task() -> None:
    """home_purchase_offers-017 (seed 107): an offer expiring in eight weeks extended by 2 days "just in
    case". A 2-day extension is asked for only within the week its offer expires."""
    domain, g, env = _generated("home_purchase_offers")
    gen = TaskGenerator(domain, g.spec, g.meta, env, seed=0)
    extend = gen.meta["extend_purchase_offer"]
    offer, t = gen._transition(extend)
    submitted = [r for r in gen.oracle.rows[offer.name].values() if r["status"] == "submitted"]
    early = {r["purchase_offer_id"] for r in submitted if asked_early(t, r, {}, g.spec.clock)}
    assert early  # the seed has offers weeks from expiring
    for r in submitted:
        ahead = (datetime.strptime(r["expires_at"][:10], "%Y-%m-%d") - datetime(2026, 3, 2)).days
        assert (r["purchase_offer_id"] in early) == (ahead > EARLY_DAYS)
    chosen = {row["purchase_offer_id"] for row, _ in gen.candidates(extend)}
    assert chosen and not chosen & early
    refused = {row["purchase_offer_id"] for row, *_ in gen.blocked(extend)}  # a countered offer, say
    assert refused and not refused & {
        r["purchase_offer_id"] for r in gen.oracle.rows[offer.name].values() if asked_early(t, r, {}, g.spec.clock)
    }


def test_a_long_extension_may_be_asked_further_ahead() -> None:
    domain, g, env = _generated("medical_equipment_rentals")
    gen = TaskGenerator(domain, g.spec, g.meta, env, seed=0)
    _, t = gen._transition(gen.meta["extend_rental"])  # 30 days: asked up to two months ahead
    assert not asked_early(t, {"end_date": "2026-04-20"}, {}, CLOCK)
    assert asked_early(t, {"end_date": "2026-05-20"}, {}, CLOCK)
    assert not asked_early(t, {"end_date": "2026-03-05"}, {}, CLOCK)  # in its last days


def test_no_change_follows_a_create_to_a_field_it_just_set() -> None:
    """ferry_vehicle_crossings-025 (seed 83): book with "1 passenger", then add a second in the same
    message; a booking's other steps (check in, cancel) still follow it."""
    domain, g, env = _generated("ferry_vehicle_crossings")
    gen = TaskGenerator(domain, g.spec, g.meta, env, seed=0)
    create, add = gen.meta["create_ferry_booking"], gen.meta["add_passenger_ferry_booking"]
    booking = domain.entity(add.entity)
    made = Goal(create.tool, booking.name, "FB9999", "create", "the new ferry booking", {})
    assert gen._changes(add) & set(g.spec.tool(create.tool).parameters["properties"])
    assert not gen._follows(add, booking, made)
    assert gen._follows(gen.meta["check_in_ferry_booking"], booking, made)


def test_a_reschedule_weeks_ahead_is_not_asked_early() -> None:
    """A reschedule names its own new day: asking for it weeks before is ordinary (tire installs)."""
    domain, g, env = _generated("tire_shop_installations")
    gen = TaskGenerator(domain, g.spec, g.meta, env, seed=0)
    _, t = gen._transition(gen.meta["reschedule_tire_order"])
    row = {"install_at": "2026-05-10 16:45:00", "guarantee_ends": "2026-06-09 16:45:00"}
    assert not asked_early(t, row, {"days": 3}, CLOCK)
