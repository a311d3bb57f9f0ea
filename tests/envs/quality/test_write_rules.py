"""Rows carrying a write its rules forbid (measure 82): a pickup transcript order marked expedited, an
emissions test still booked for a vehicle already marked emissions ok, an offer waiting on a load an
accepted offer covered; and the seed rules that keep them (``synthesis.domains.write_rules``)."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.write_rules import rows_against_their_writes, write_rules
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.write_rules import carry_parent_effects, fit_write_rules
from synthesis.tools.envgen import generate_env

_DOMAINS = ("transcript_requests", "dmv_registration_renewals", "carrier_load_tendering")


@pytest.fixture(scope="module")
def specs() -> dict[str, EnvSpec]:
    domains = {d.id: d for d in load_ontology()}
    return {name: generate_env(assign_enforcement(domains[name]), seed=0).spec for name in _DOMAINS}


def _copy(spec: EnvSpec) -> EnvSpec:
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def _rules(spec: EnvSpec) -> set[tuple[str, str, str | None, str]]:
    return {(r.table, r.mark[0], r.via, r.condition.rule) for r in write_rules(spec)}


def test_each_mark_reads_the_rules_of_the_write_that_left_it(specs):
    assert ("transcript_orders", "expedited", None, "not when the transcript order's delivery method is pickup") in (
        _rules(specs["transcript_requests"])
    )
    assert ("emissions_tests", "status", "vehicle_id", "the vehicle must not be marked emissions ok") in (
        _rules(specs["dmv_registration_renewals"])
    )
    assert ("load_offers", "status", "load_id", "the load must be posted") in _rules(specs["carrier_load_tendering"])


def test_a_mark_the_write_itself_tests_or_a_column_another_tool_moves_is_not_read(specs):
    texts = {rule for *_, rule in _rules(specs["transcript_requests"])}
    assert "the transcript order must not be marked expedited" not in texts  # the mark itself
    # a truck's availability is set again on delivery: an offer made while it was free says nothing of now
    assert not any("truck" in rule for *_, rule in _rules(specs["carrier_load_tendering"]))


def test_generated_rows_meet_the_rules_of_their_writes(specs):
    for spec in specs.values():
        counts = rows_against_their_writes(spec)
        assert counts.written_rows_checked > 0
        assert counts.rows_against_their_writes == 0


def test_an_expedited_pickup_order_is_counted_and_its_method_redrawn(specs):
    spec = _copy(specs["transcript_requests"])
    row = next(r for r in spec.seed["transcript_orders"] if r["expedited"])
    row["delivery_method"] = "pickup"
    assert rows_against_their_writes(spec).rows_against_their_writes == 1
    assert fit_write_rules(spec) == 1
    assert row["delivery_method"] in ("mail", "electronic") and row["expedited"]
    assert rows_against_their_writes(spec).rows_against_their_writes == 0


def test_a_test_booked_for_a_vehicle_already_passed_moves_or_is_cancelled(specs):
    spec = _copy(specs["dmv_registration_renewals"])
    vehicles = {v["vehicle_id"]: v for v in spec.seed["vehicles"]}
    row = next(r for r in spec.seed["emissions_tests"] if r["status"] == "scheduled")
    vehicle = vehicles[row["vehicle_id"]]
    vehicle["emissions_ok"] = True
    assert rows_against_their_writes(spec).rows_against_their_writes >= 1
    assert fit_write_rules(spec) >= 1
    moved = vehicles[row["vehicle_id"]]
    assert row["status"] == "cancelled" or (moved is not vehicle and not moved["emissions_ok"])
    assert moved["motorist_id"] == row["motorist_id"]  # never onto another motorist's vehicle
    assert rows_against_their_writes(spec).rows_against_their_writes == 0


def test_a_vehicle_with_a_test_passed_and_none_failed_is_emissions_ok(specs):
    # recording a pass sets the vehicle's flag: the seed shows it, so no test waits for a vehicle passed
    spec = specs["dmv_registration_renewals"]
    tests: dict[str, set[str]] = {}
    for row in spec.seed["emissions_tests"]:
        tests.setdefault(row["vehicle_id"], set()).add(row["status"])
    passed = [
        v for v in spec.seed["vehicles"] if tests.get(v["vehicle_id"], set()) & {"passed", "failed"} == {"passed"}
    ]
    assert passed and all(v["emissions_ok"] for v in passed)


def test_a_row_moves_only_under_a_record_with_room_under_the_creates_limit():
    # school lunch: a benefit application waits on a student not already on free meals, and at most
    # so many wait per student; moving one must not put a student over that limit
    domains = {d.id: d for d in load_ontology()}
    spec = generate_env(assign_enforcement(domains["school_lunch_accounts"]), seed=0).spec
    [limit] = [
        s.sql
        for t in spec.tools
        if t.name == "create_benefit_application"
        for s in t.steps
        if s.kind == "require" and "count(*)" in (s.sql or "")
    ]
    most = int(str(limit).rsplit("<", 1)[1])
    waiting = Counter(r["student_id"] for r in spec.seed["benefit_applications"] if r["status"] == "submitted")
    assert waiting and max(waiting.values()) <= most
    assert rows_against_their_writes(spec).rows_against_their_writes == 0


def test_a_move_that_hands_a_record_on_is_not_carried_in_part():
    # accepting a swap gives the shift back to 'scheduled' under another worker, a value read as the
    # move runs: setting the status alone would leave a past shift scheduled for the old worker
    domains = {d.id: d for d in load_ontology()}
    domain = assign_enforcement(domains["hourly_shift_swaps"])
    spec = generate_env(domain, seed=0).spec
    now = spec.clock.strftime("%Y-%m-%d %H:%M:%S")
    assert all(r["starts_at"] > now for r in spec.seed["shifts"] if r["status"] == "scheduled")
    accepted = {r["shift_id"] for r in spec.seed["swap_offers"] if r["status"] == "accepted"}
    assert accepted and carry_parent_effects(domain, spec) == 0
