"""Records used before they begin and follow-ups too soon after they do (measure 112): a solar share
starting next week with generation credited, a roaming pass not yet started with data used, a loan
open to renewal the morning it was borrowed, a storage unit open to a move-out the day after moving in."""

from __future__ import annotations

import copy
from datetime import timedelta
from functools import cache

import pytest

from envs.formats.spec import ColumnSpec, EnvSpec
from envs.quality.in_use import FOLLOW_UP_DAYS, start_column, started_tables, used_before_start
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env
from tests.measured import none_found, written_against

_DOMAINS = {d.id: d for d in load_ontology()}


@cache
def _generated(domain_id: str) -> EnvSpec:
    return generate_env(assign_enforcement(_DOMAINS[domain_id]), seed=0).spec


def _spec(domain_id: str) -> EnvSpec:
    spec = _generated(domain_id)
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def _table(spec: EnvSpec, name: str):
    return next(t for t in spec.tables if t.name == name)


def test_a_start_is_read_from_its_name():
    assert start_column(_table(_spec("library_loans"), "loans")) == "loaned_on"
    assert start_column(_table(_spec("self_storage_rentals"), "unit_rentals")) == "move_in_date"
    assert start_column(_table(_spec("community_solar_shares"), "garden_shares")) == "start_date"


def test_what_says_a_row_is_used_or_followed_up_is_read_from_names_and_sql():
    loans = {f.table: f for f in started_tables(_spec("library_loans"))}["loans"]
    assert loans.follow_up_states == {"active"} and not loans.follow_up_any  # renew_loan needs it active
    storage = {f.table: f for f in started_tables(_spec("self_storage_rentals"))}["unit_rentals"]
    assert "active" in storage.follow_up_states  # schedule_move_out
    shares = {f.table: f for f in started_tables(_spec("community_solar_shares"))}["garden_shares"]
    assert ("credit_statements", "garden_share_id") in shares.use_children  # credits record kwh generated
    passes = {f.table: f for f in started_tables(_spec("prepaid_roaming_passes"))}["roaming_passes"]
    assert passes.use_counts == ("data_used_mb",)
    # cancelling a travel notice is no notice given on one
    notices = {f.table: f for f in started_tables(_spec("debit_card_controls"))}["travel_notices"]
    assert not notices.follow_up_states and not notices.follow_up_any


@pytest.mark.parametrize(
    "name", written_against("library_loans", "self_storage_rentals", "community_solar_shares", "prepaid_roaming_passes")
)
def test_generated_records_are_not_used_before_they_begin(name):
    counts = used_before_start(_spec(name))
    assert none_found(name, counts.used_before_start, counts.started_rows_checked), counts


def test_a_share_with_generation_credited_before_it_starts_is_counted():
    spec = _spec("community_solar_shares")
    credited = {r["garden_share_id"] for r in spec.seed["credit_statements"]}
    share = next(r for r in spec.seed["garden_shares"] if r["garden_share_id"] in credited)
    share["start_date"] = "2026-03-09"  # a week after the clock
    assert used_before_start(spec).used_before_start == 1


def test_an_active_policy_covering_a_trip_ahead_is_believed():
    spec = _spec("travel_insurance_claims")
    policy = next(r for r in spec.seed["travel_policies"] if r["status"] == "active")
    policy["trip_start"] = "2026-04-20"  # in force before the trip: `active` is no use
    assert used_before_start(spec).used_before_start == 0


def test_a_pass_not_yet_started_with_data_used_is_counted():
    spec = _spec("prepaid_roaming_passes")
    scheduled = next(r for r in spec.seed["roaming_passes"] if r["status"] == "scheduled")
    scheduled["data_used_mb"] = 0
    assert used_before_start(spec).used_before_start == 0
    scheduled["data_used_mb"] = 736
    assert used_before_start(spec).used_before_start == 1


@pytest.mark.parametrize(("days_ago", "wrong"), [(0, 1), (FOLLOW_UP_DAYS - 1, 1), (FOLLOW_UP_DAYS, 0)])
def test_a_loan_open_to_renewal_has_run_a_week(days_ago, wrong):
    spec = _spec("library_loans")
    loan = next(r for r in spec.seed["loans"] if r["status"] == "active")
    loan["loaned_on"] = (spec.clock - timedelta(days=days_ago)).strftime("%Y-%m-%d")
    assert used_before_start(spec).used_before_start == wrong


def test_a_returned_loan_borrowed_this_morning_is_not_read_as_followed_up():
    spec = _spec("library_loans")
    loan = next(r for r in spec.seed["loans"] if r["status"] == "returned")
    loan["loaned_on"] = "2026-03-02"
    assert used_before_start(spec).used_before_start == 0


def _with_column(spec: EnvSpec, table: str, column: ColumnSpec) -> EnvSpec:
    tables = [t.model_copy(update={"columns": [*t.columns, column]}) if t.name == table else t for t in spec.tables]
    return spec.model_copy(update={"tables": tables})


def test_a_renewal_recorded_the_day_after_the_loan_is_counted():
    spec = _with_column(_spec("library_loans"), "loans", ColumnSpec(name="renewed_on", type="date", nullable=True))
    loan = next(r for r in spec.seed["loans"] if r["status"] == "returned")
    loan["loaned_on"], loan["renewed_on"] = "2026-01-10", "2026-01-11"
    assert used_before_start(spec).used_before_start == 1
    loan["renewed_on"] = "2026-01-24"  # two weeks in
    assert used_before_start(spec).used_before_start == 0


def test_a_loan_renewed_once_and_borrowed_yesterday_is_counted():
    spec = _with_column(_spec("library_loans"), "loans", ColumnSpec(name="renewal_count", type="integer"))
    loan = next(r for r in spec.seed["loans"] if r["status"] == "returned")
    loan["loaned_on"], loan["renewal_count"] = (spec.clock - timedelta(days=1)).strftime("%Y-%m-%d"), 1
    assert used_before_start(spec).used_before_start == 1
    loan["renewal_count"] = 0
    assert used_before_start(spec).used_before_start == 0


def test_a_unit_given_notice_has_been_moved_into_a_week():
    spec = _spec("self_storage_rentals")
    storage = {f.table: f for f in started_tables(spec)}["unit_rentals"]
    assert "move_out_scheduled" in storage.followed_states  # what schedule_move_out sets
    notice = next(r for r in spec.seed["unit_rentals"] if r["status"] == "move_out_scheduled")
    notice["move_in_date"] = (spec.clock + timedelta(days=10)).strftime("%Y-%m-%d")
    assert used_before_start(spec).used_before_start == 1
    notice["move_in_date"] = (spec.clock - timedelta(days=1)).strftime("%Y-%m-%d")
    assert used_before_start(spec).used_before_start == 1
    notice["move_in_date"] = (spec.clock - timedelta(days=FOLLOW_UP_DAYS)).strftime("%Y-%m-%d")
    assert used_before_start(spec).used_before_start == 0
