"""Seed relatives that fit their family (measures 39 and 40): a child born twenty to forty years
after the parent and carrying their surname, a spouse an adult of about their age with a marriage
certificate; the person they are related to keeps every value, and believable rows stay."""

from __future__ import annotations

import pytest

from envs.quality.believable import believable_counts
from envs.quality.kin_ages import kin_age_contradictions, years_between
from envs.quality.surnames import surnames_apart
from synthesis.domains.kin_ages import settle_kin_ages
from synthesis.domains.surnames import settle_surnames

from ...envs.quality.families import FAMILIES, families
from .generated import generated_spec

# each had relatives that contradicted their family before seeds followed it
DOMAINS = (
    "benefits_open_enrollment",
    "after_school_programs",
    "certificate_of_deposit_accounts",
    "school_lunch_accounts",
    "tutoring_center_sessions",
)


def _rows(spec, table):
    key = spec.table(table).primary_key[0]
    return {r[key]: r for r in spec.seed[table]}


def test_birth_dates_and_documents_follow_the_relationship():
    spec = families()
    assert settle_kin_ages(spec) == 2
    assert kin_age_contradictions(spec).kin_rows_contradicting == 0
    dependents, employees = _rows(spec, "dependents"), _rows(spec, "employees")
    before = _rows(families(), "dependents")
    child, spouse = dependents["D1"], dependents["D2"]
    gap = years_between(*(_day(v) for v in (employees["E1"]["date_of_birth"], child["date_of_birth"])))
    assert 20 <= gap <= 40 and child["verification_document"] in ("birth_certificate", "adoption_decree")
    assert years_between(_day(spouse["date_of_birth"]), spec.clock.date()) >= 18
    assert abs(years_between(_day(employees["E1"]["date_of_birth"]), _day(spouse["date_of_birth"]))) <= 8
    assert (dependents["D3"], dependents["D4"]) == (before["D3"], before["D4"])  # believable already
    assert spec.seed["employees"] == FAMILIES["seed"]["employees"]


def test_a_child_is_drawn_under_the_policys_age_limit():
    policy = "Dependent children are covered under age 26."
    spec = families(policy=policy)
    settle_kin_ages(spec)
    assert kin_age_contradictions(spec).kin_rows_contradicting == 0
    oscar = _rows(spec, "dependents")["D3"]  # 31 on the clock's day: too old to be covered
    assert years_between(_day(oscar["date_of_birth"]), spec.clock.date()) < 26


def test_children_take_their_parents_surname_and_their_emails_follow():
    spec = families()
    renamed = settle_surnames(spec)
    counts = surnames_apart(spec)
    assert counts.children_with_other_surname == 0 and renamed >= 5
    children = _rows(spec, "children")
    assert children["K1"] == {**FAMILIES["seed"]["children"][0], "child_name": "Thomas Logan"} | {
        "email": "thomas.logan3@example.com"
    }
    # "Eileen Logan" would be the guardian's own name: another first name of the table is taken
    assert children["K3"]["child_name"].endswith(" Logan") and children["K3"]["child_name"] != "Eileen Logan"
    assert _rows(spec, "beneficiaries")["B1"]["beneficiary_name"] == "Rachel Wood Jr."[: -len(" Jr.")]
    assert _rows(spec, "beneficiaries")["B3"]["beneficiary_name"] == "Ann Lee"  # a neighbor
    assert spec.seed["guardians"] == FAMILIES["seed"]["guardians"]


def test_settling_is_deterministic():
    first, second = families(), families()
    for spec in (first, second):
        settle_kin_ages(spec)
        settle_surnames(spec)
    assert first.seed == second.seed


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_generated_relatives_fit_their_family(domain_id):
    spec = generated_spec(domain_id)
    ages, names = kin_age_contradictions(spec), surnames_apart(spec)
    assert ages.kin_rows_contradicting == 0
    # at least 8: a deposit bank's products are named once, so fewer rows are drawn
    assert names.children_named >= 8 and names.children_with_other_surname == 0
    assert names.relatives_with_other_surname <= names.relatives_named / 2  # most spouses share the name
    assert believable_counts(spec, []).birth_dates_under_16 == 0  # children are not counted as adults


def _day(value):
    from datetime import date

    return date.fromisoformat(value[:10])
