"""Periodic rows still awaiting a step under a record that has ended (measure 116): a weekly
certification due on a benefit claim that closed."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.ended_parents import periodic, waiting_rules, waiting_under_ended
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def claims() -> EnvSpec:
    domain = next(d for d in load_ontology() if d.id == "unemployment_weekly_claims")
    return generate_env(assign_enforcement(domain), seed=0).spec


def _one_week(spec: EnvSpec, claim_status: str, week_status: str) -> dict[str, list[dict[str, Any]]]:
    """``spec``'s seed with one claim and one certification under it."""
    claim = {**copy.deepcopy(spec.seed["benefit_claims"][0]), "status": claim_status}
    week = {**spec.seed["weekly_certifications"][0], "benefit_claim_id": claim["benefit_claim_id"]}
    week.update(claimant_id=claim["claimant_id"], status=week_status)
    return {**spec.seed, "benefit_claims": [claim], "weekly_certifications": [week]}


def test_weekly_certifications_are_read_under_their_claim(claims):
    rules = waiting_rules(claims)
    assert [(r.table, r.column, r.parent) for r in rules] == [
        ("weekly_certifications", "benefit_claim_id", "benefit_claims")
    ]


@pytest.mark.parametrize(
    ("claim_status", "week_status", "counted", "checked"),
    [
        ("closed", "due", 1, 1),  # a week nobody will certify: the claim took its last one
        ("active", "due", 0, 1),  # the week a live claim asks for
        ("closed", "submitted", 0, 0),  # certified before the claim closed
    ],
)
def test_a_week_due_on_a_closed_claim_is_counted(claims, claim_status, week_status, counted, checked):
    counts = waiting_under_ended(claims, _one_week(claims, claim_status, week_status))
    assert (counts.waiting_under_ended, counts.periodic_waits_checked) == (counted, checked)


@pytest.mark.parametrize(
    ("name", "column", "read"),
    [
        ("weekly_certifications", "week_ending", True),  # a period word in the name
        ("installments", "due_date", True),  # a row that recurs by its name
        ("certifications", "week_ending", True),  # the date names a week
        ("invoices", "due_date", False),  # a bill due after the work is done is no period
    ],
)
def test_a_periodic_table_is_known_by_its_name_or_its_schedule(claims, name, column, read):
    table = next(t for t in claims.tables if t.name == "weekly_certifications")
    columns = [c.model_copy(update={"name": column}) if c.name == "week_ending" else c for c in table.columns]
    assert periodic(table.model_copy(update={"name": name, "columns": columns})) is read


def test_generated_seeds_leave_no_week_due_on_a_closed_claim(claims):
    counts = waiting_under_ended(claims)
    assert counts.periodic_waits_checked > 0 and counts.waiting_under_ended == 0
