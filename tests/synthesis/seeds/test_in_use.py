"""The seed rule keeping records from use before they begin and follow-ups from coming too soon after
(measure 112, ``synthesis.domains.in_use``)."""

from __future__ import annotations

import copy
from datetime import timedelta

from envs.formats.spec import EnvSpec
from envs.quality.in_use import FOLLOW_UP_DAYS, used_before_start
from envs.quality.terms import dates_against_terms
from synthesis.domains.in_use import settle_in_use

from .generated import generated_spec


def _copy(domain_id: str) -> EnvSpec:
    spec = generated_spec(domain_id)
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def _day(spec: EnvSpec, days: int) -> str:
    return (spec.clock + timedelta(days=days)).strftime("%Y-%m-%d")


def test_a_loan_borrowed_this_morning_moves_back_a_week_with_its_due_day():
    spec = _copy("library_loans")
    loan = next(r for r in spec.seed["loans"] if r["status"] == "active")
    loan["loaned_on"], loan["due_date"] = _day(spec, 0), _day(spec, 21)
    assert used_before_start(spec).used_before_start == 1
    assert settle_in_use(spec) == 1
    assert loan["loaned_on"] <= _day(spec, -FOLLOW_UP_DAYS)
    assert loan["due_date"] > _day(spec, 0)  # still out, and due 21 days after it was borrowed (measure 52)
    assert dates_against_terms(spec).dates_against_their_terms == 0
    assert used_before_start(spec).used_before_start == 0


def test_a_share_credited_with_generation_starts_before_the_clock():
    spec = _copy("community_solar_shares")
    credited = {r["garden_share_id"] for r in spec.seed["credit_statements"]}
    share = next(r for r in spec.seed["garden_shares"] if r["garden_share_id"] in credited)
    share["start_date"] = _day(spec, 7)
    assert settle_in_use(spec) == 1
    assert share["start_date"] <= _day(spec, -FOLLOW_UP_DAYS)
    assert used_before_start(spec).used_before_start == 0


def test_a_pass_not_yet_started_has_used_no_data_and_keeps_its_start():
    spec = _copy("prepaid_roaming_passes")
    scheduled = next(r for r in spec.seed["roaming_passes"] if r["status"] == "scheduled")
    start = scheduled["start_date"] = _day(spec, 30)
    scheduled["data_used_mb"] = 736
    assert settle_in_use(spec) == 1
    assert (scheduled["start_date"], scheduled["data_used_mb"]) == (start, 0)


def test_rows_already_believed_are_left_as_they_are():
    spec = _copy("self_storage_rentals")
    before = copy.deepcopy(spec.seed)
    assert settle_in_use(spec) == 0
    assert spec.seed == before


def test_loans_moved_back_are_spread_over_two_weeks_not_piled_on_one_day():
    spec = _copy("library_loans")
    active = [r for r in spec.seed["loans"] if r["status"] == "active"][:6]
    for loan in active:
        loan["loaned_on"], loan["due_date"] = _day(spec, 0), _day(spec, 21)
    assert settle_in_use(spec) == len(active)
    days = {loan["loaned_on"] for loan in active}
    assert len(days) > 1 and all(_day(spec, -FOLLOW_UP_DAYS - 13) <= d <= _day(spec, -FOLLOW_UP_DAYS) for d in days)
