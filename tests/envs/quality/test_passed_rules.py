"""Records past a rule they break (measure 67): one customer's open rebate applications over the cap a
new one is refused past, a week submitted or paid with more hours than a submission allows; the seed
rule that keeps them within (``synthesis.domains.passed_rules``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.passed_rules import caps, passed_checks, rows_past_their_rules
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.passed_rules import fit_passed_rules
from synthesis.tools.envgen import generate_env

OPEN = ("submitted", "under_review", "approved", "paid")


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_cap_and_a_passed_check_are_read_from_the_tools(domains):
    (cap,) = caps(generated(domains, "efficiency_rebate_programs"))
    assert (cap.table, cap.column, cap.group, cap.amount) == (
        "rebate_applications",
        "amount_requested",
        "customer_id",
        3000,
    )
    assert cap.states == set(OPEN)
    hours = [c for c in passed_checks(generated(domains, "unemployment_weekly_claims")) if c.column == "hours_worked"]
    assert [(c.op, c.bound) for c in hours] == [("<=", 30)]
    assert {"submitted", "paid", "denied"} <= hours[0].states and "due" not in hours[0].states


def test_a_check_on_a_column_the_step_itself_moves_is_not_read(domains):
    # paying a cruise deposit checks the balance due, then lowers it: a paid booking owes less, rightly
    spec = generated(domains, "cruise_cabin_bookings")
    assert not [c for c in passed_checks(spec) if c.column == "balance_due"]


def test_a_check_on_a_column_only_another_step_moves_before_the_move_is_read(domains):
    # a balance is paid while the unit is rented; scheduling the move-out checks it is paid, so a
    # unit moving out owes nothing
    spec = generated(domains, "self_storage_rentals")
    [paid] = [c for c in passed_checks(spec) if c.column == "balance_due"]
    assert (paid.table, paid.op, paid.bound) == ("unit_rentals", "<=", 0)
    assert "move_out_scheduled" in paid.states and "active" not in paid.states
    moving = [r for r in spec.seed["unit_rentals"] if r["status"] in paid.states]
    assert moving and all(r["balance_due"] <= 0 for r in moving)
    moving[0]["balance_due"] = 12.5
    assert rows_past_their_rules(spec).rows_past_their_rules == 1


@pytest.mark.parametrize("name", ["efficiency_rebate_programs", "unemployment_weekly_claims", "game_store_refunds"])
def test_generated_seeds_keep_their_rows_within_the_rules_they_passed(domains, name):
    counts = rows_past_their_rules(generated(domains, name))
    assert counts.capped_rows_checked > 10
    assert counts.rows_past_their_rules == 0


def test_applications_over_the_cap_are_counted_and_scaled_within_it(domains):
    spec = generated(domains, "efficiency_rebate_programs")
    customer = spec.seed["rebate_applications"][0]["customer_id"]
    mine = [r for r in spec.seed["rebate_applications"] if r["customer_id"] == customer and r["status"] in OPEN]
    mine[0]["amount_requested"] = 3827.68
    assert rows_past_their_rules(spec).rows_past_their_rules == 1
    assert fit_passed_rules(spec) == len(mine)
    assert sum(r["amount_requested"] for r in mine) <= 3000
    assert rows_past_their_rules(spec).rows_past_their_rules == 0


def test_a_paid_week_over_the_hours_is_counted_and_redrawn_within_them(domains):
    spec = generated(domains, "unemployment_weekly_claims")
    week = next(r for r in spec.seed["weekly_certifications"] if r["status"] == "paid")
    due = next(r for r in spec.seed["weekly_certifications"] if r["status"] == "due")
    week["hours_worked"], due["hours_worked"] = 34, 36  # a due week has not been checked yet
    assert rows_past_their_rules(spec).rows_past_their_rules == 1
    assert fit_passed_rules(spec) == 1
    assert 0 <= week["hours_worked"] <= 30 and due["hours_worked"] == 36
