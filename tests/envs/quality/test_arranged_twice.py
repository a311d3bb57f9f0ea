"""One person or thing under two arrangements of one kind at once (measure 114): two active
full-coverage contracts on one oil tank, two claims whose benefit years overlap."""

from __future__ import annotations

import copy
from datetime import date, timedelta
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.arranged_twice import arranged_twice, arrangements
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


def _generated(domain_id: str) -> EnvSpec:
    domain = next(d for d in load_ontology() if d.id == domain_id)
    return generate_env(assign_enforcement(domain), seed=0).spec


@pytest.fixture(scope="module")
def heating_oil() -> EnvSpec:
    return _generated("heating_oil_deliveries")


@pytest.fixture(scope="module")
def claims() -> EnvSpec:
    return _generated("unemployment_weekly_claims")


def _copy(spec: EnvSpec) -> EnvSpec:
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def _with_rows(spec: EnvSpec, table: str, rows: list[dict[str, Any]]) -> EnvSpec:
    """``spec`` whose ``table`` holds only ``rows``."""
    return spec.model_copy(update={"seed": {**spec.seed, table: rows}})


def test_a_service_contract_is_one_cover_per_tank_and_plan(heating_oil):
    [rule] = arrangements(heating_oil)
    assert (rule.table, rule.key, rule.covers) == ("service_contracts", ("customer_id", "oil_tank_id", "plan"), True)


def test_a_claim_runs_a_benefit_year(claims):
    [rule] = arrangements(claims)
    assert (rule.table, rule.key, rule.years, rule.covers) == (
        "benefit_claims",
        ("claimant_id",),
        ("benefit_year_end",),
        False,
    )


@pytest.mark.parametrize(
    ("change", "twice", "groups"),
    [
        ({}, 1, 1),  # the same plan on the same tank, both active
        ({"status": "cancelled"}, 0, 1),  # one called off leaves the tank covered once
        ({"plan": "other"}, 0, 2),  # a tune-up beside full coverage is another kind of cover
        ({"oil_tank_id": "another"}, 0, 2),  # the person's other tank
    ],
)
def test_two_live_contracts_of_one_plan_on_one_tank_are_counted(heating_oil, change, twice, groups):
    first = copy.deepcopy(next(r for r in heating_oil.seed["service_contracts"] if r["status"] == "active"))
    second = {**first, "service_contract_id": "SC9999", **change}
    if second["plan"] == "other":
        second["plan"] = next(p for p in ("basic_tune_up", "full_coverage") if p != first["plan"])
    counts = arranged_twice(_with_rows(heating_oil, "service_contracts", [first, second]))
    assert (counts.arranged_twice, counts.arrangement_groups_checked) == (twice, groups)


@pytest.mark.parametrize(
    ("year_end", "overlapping"),
    [
        (None, 1),  # closed inside the same benefit year: reopened, not filed again
        ("shifted", 0),  # an earlier benefit year that ended before this one began
    ],
)
def test_a_closed_claim_in_a_live_claims_benefit_year_is_counted(claims, year_end, overlapping):
    first = copy.deepcopy(claims.seed["benefit_claims"][0])
    first["status"] = "active"
    end = date.fromisoformat(first["benefit_year_end"])
    earlier = f"{end - timedelta(days=400):%Y-%m-%d}" if year_end else first["benefit_year_end"]
    second = {**first, "benefit_claim_id": "BC9999", "status": "closed", "benefit_year_end": earlier}
    counts = arranged_twice(_with_rows(claims, "benefit_claims", [first, second]))
    assert (counts.terms_overlapping, counts.term_groups_checked) == (overlapping, 1)


def test_generated_seeds_keep_one_cover_at_a_time_and_file_no_claim_inside_anothers_year(heating_oil, claims):
    oil = arranged_twice(heating_oil)
    assert oil.arrangement_groups_checked > 0 and oil.arranged_twice == 0
    years = arranged_twice(claims)
    assert years.term_groups_checked > 0 and years.terms_overlapping == 0
