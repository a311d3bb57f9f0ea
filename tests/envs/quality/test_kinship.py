"""People related to another person on record (measures 39 and 40): a "child" born before the
employee, a minor spouse, a child proven by a partnership affidavit, children who carry none of
their guardian's surname; found by column names, values and foreign keys alone."""

from __future__ import annotations

import copy

from envs.quality.believable import believable_counts
from envs.quality.kin_ages import child_age_limit, kin_age_contradictions
from envs.quality.kinship import CHILD, PARENT, PARTNER, SPOUSE, kin_links, kin_rows, kind_of
from envs.quality.surnames import surnames_apart

from .families import FAMILIES, families


def test_relationships_are_read_from_columns_values_and_keys():
    links = {link.table.name: link for link in kin_links(families())}
    assert set(links) == {"dependents", "beneficiaries", "children"}  # not certificates, not guardians
    assert (links["dependents"].relation, links["dependents"].anchor.name) == ("relationship", "employees")
    assert [fk.table for fk in links["beneficiaries"].path] == ["certificates", "employees"]  # two keys away
    assert (links["children"].relation, links["children"].anchor.name) == (None, "guardians")  # implied
    assert [kind_of(v) for v in ("Son", "domestic_partner", "husband", "grandparent", "nanny", None)] == [
        CHILD,
        PARTNER,
        SPOUSE,
        "grandparent",
        None,
        None,
    ]
    kinds = {(k.link.table.name, k.row[k.link.table.primary_key[0]]): k.kind for k in kin_rows(families())}
    assert kinds[("beneficiaries", "B2")] == PARENT and ("beneficiaries", "B3") not in kinds  # a neighbor
    assert kinds[("children", "K1")] == CHILD


def test_birth_dates_and_documents_against_the_relationship_are_counted():
    counts = kin_age_contradictions(families())
    # D1 (a child born before the parent, and an affidavit), D2 (a minor spouse); D3 and D4 fit
    assert (counts.kin_rows_checked, counts.kin_rows_contradicting) == (4, 2)


def test_a_partner_twenty_five_years_older_or_a_child_born_at_ten_is_counted():
    seed = copy.deepcopy(FAMILIES["seed"])
    seed["dependents"][2]["date_of_birth"] = "1976-01-01"  # Oscar, born when his father was 9
    seed["dependents"][3]["date_of_birth"] = "1964-03-31"  # Luis, 26 years older than Nicole
    assert kin_age_contradictions(families(seed=seed)).kin_rows_contradicting == 4


def test_a_childs_age_limit_is_read_from_the_policy():
    assert child_age_limit("Be kind.") is None
    assert child_age_limit("Children under 12 ride free.") is None  # not about covering dependents
    policy = "Dependent children are covered until they are under age 26. Spouses are covered."
    assert child_age_limit(policy) == 26
    # Oscar is 31: no longer a child the policy covers
    assert kin_age_contradictions(families(policy=policy)).kin_rows_contradicting == 3


def test_children_with_another_surname_are_counted_and_spouses_apart():
    counts = surnames_apart(families())
    # D1 Moore under Medina, B1 Murray under Wood (past the "Jr."), K1-K3 under Logan; D3 is a Medina
    assert (counts.children_named, counts.children_with_other_surname) == (6, 5)
    # D2 (spouse) and B2 (parent); a domestic partner and a neighbor are not read
    assert (counts.relatives_named, counts.relatives_with_other_surname) == (2, 2)


def test_a_child_under_16_is_no_unbelievable_birth_date_but_a_spouse_is():
    seed = copy.deepcopy(FAMILIES["seed"])
    seed["dependents"][2]["date_of_birth"] = "2019-05-05"  # a child aged 6
    counts = believable_counts(families(seed=seed), [])
    # two employees, the spouse and the partner; the two children are not read
    assert (counts.birth_dates_checked, counts.birth_dates_under_16) == (4, 1)  # the spouse born 2012
