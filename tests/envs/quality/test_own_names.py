"""A name one owner gives twice (measure 95): two businesses of one owner trading as "Oak & Iron";
and the seed rule that keeps it (``synthesis.domains.own_names``)."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.catalog_names import CatalogNames
from envs.quality.own_names import own_names, own_names_repeated
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.own_names import settle_own_names
from synthesis.tools.envgen import generate_env

_DOMAINS = {d.id: d for d in load_ontology()}


def _spec(domain_id: str) -> EnvSpec:
    return generate_env(assign_enforcement(_DOMAINS[domain_id]), seed=0).spec


@pytest.fixture(scope="module")
def licensing() -> EnvSpec:
    return _spec("business_license_renewals")


def test_a_business_is_named_by_its_trading_name_per_owner(licensing):
    assert CatalogNames("businesses", "dba_name", "business_owner_id") in own_names(licensing)


def test_the_names_of_things_a_row_only_points_at_are_not_its_own():
    stays = {n.table for n in own_names(_spec("hotel_loyalty_points"))}
    assert "hotel_stays" not in stays  # hotel_name: one hotel stayed at twice is two stays


def test_generated_owners_give_each_name_once(licensing):
    counts = own_names_repeated(licensing)
    assert counts.own_names_checked >= len(licensing.seed["businesses"]) > 0
    assert counts.own_names_repeated == 0


def test_a_repeated_name_is_counted_and_renamed_to_one_the_owner_has_not_given(licensing):
    spec = licensing.model_copy(update={"seed": copy.deepcopy(licensing.seed)})
    rows = spec.seed["businesses"]
    owners = Counter(r["business_owner_id"] for r in rows)
    owner = next(o for o, n in owners.items() if n >= 2)
    first, second = [r for r in rows if r["business_owner_id"] == owner][:2]
    second["dba_name"] = first["dba_name"]
    assert own_names_repeated(spec).own_names_repeated == 1
    assert settle_own_names(_DOMAINS["business_license_renewals"], spec) == 1
    assert second["dba_name"] != first["dba_name"]
    assert second["dba_name"] in {r["dba_name"] for r in rows if r is not second}  # a name the domain draws
    assert own_names_repeated(spec).own_names_repeated == 0


def test_the_same_name_under_two_owners_is_no_fault(licensing):
    spec = licensing.model_copy(update={"seed": copy.deepcopy(licensing.seed)})
    rows = spec.seed["businesses"]
    first = rows[0]
    other = next(r for r in rows if r["business_owner_id"] != first["business_owner_id"])
    other["dba_name"] = first["dba_name"]
    assert own_names_repeated(spec).own_names_repeated == 0
