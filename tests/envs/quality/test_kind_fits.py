"""Kinds and sizes that do not fit what they belong to (measure 99): a footing inspection under a roof
permit, a 5,265.30 alternator; and the seed rules that keep them (the inspection type keyed on the
permit's project, ``synthesis.domains.part_prices``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.kind_fits import KIND_FITS, PART_BANDS, kinds_and_sizes_unfit, named_part
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.part_prices import settle_part_prices
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str, seed: int = 0) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=seed).spec


def test_a_text_names_one_part_the_longest_name_winning():
    assert named_part("Replace failed transmission control module") == "transmission control module"
    assert named_part("Alternator not charging at idle, replace") == "alternator"
    assert named_part("Replace the alternator and the starter motor") is None  # two parts: no one band
    assert named_part("Infotainment screen stays black") is None


def test_a_roof_permits_footing_inspection_is_counted_and_the_seed_draws_none(domains):
    spec = generated(domains, "building_permit_applications")
    counts = kinds_and_sizes_unfit(spec)
    assert counts.kind_pairs_checked >= 5 and counts.kinds_unfit_for_parent == 0
    permits = {r["permit_application_id"]: r for r in spec.seed["permit_applications"]}
    judged = next(
        r
        for r in spec.seed["inspection_requests"]
        if r["inspection_type"] in KIND_FITS["inspection_type", "project_type"]["addition"]
    )
    permits[judged["permit_application_id"]]["project_type"] = "roof"  # a roof has no footing, framing, ...
    under = [
        r for r in spec.seed["inspection_requests"] if r["permit_application_id"] == judged["permit_application_id"]
    ]
    assert kinds_and_sizes_unfit(spec).kinds_unfit_for_parent == sum(r["inspection_type"] != "final" for r in under)


def test_the_domains_keyed_pools_allow_only_what_the_fits_table_does(domains):
    domain = domains["building_permit_applications"]
    inspection = next(e for e in domain.entities if e.name == "inspection_request")
    attr = next(a for a in inspection.attributes if a.name == "inspection_type")
    assert attr.keyed is not None
    key, pools = attr.keyed
    assert key == "permit_application.project_type"
    fits = KIND_FITS["inspection_type", "project_type"]
    judged = set().union(*fits.values())
    for project, pool in pools.items():
        assert {v for v in pool if v in judged} <= fits[project], project


def test_a_cost_outside_its_parts_band_is_drawn_again_and_its_payment_follows(domains):
    spec = generated(domains, "vehicle_warranty_claims")
    counts = kinds_and_sizes_unfit(spec)
    assert counts.priced_parts_checked >= 10 and counts.parts_out_of_band == 0
    payments = {r["warranty_claim_id"]: r for r in spec.seed["claim_payments"]}
    paid = next(r for r in spec.seed["warranty_claims"] if r["warranty_claim_id"] in payments)
    paid["repair_description"] = "Alternator not charging at idle, replace"
    paid["repair_cost"] = payments[paid["warranty_claim_id"]]["amount"] = 5265.30
    assert kinds_and_sizes_unfit(spec).parts_out_of_band == 1
    assert settle_part_prices(spec, 0) == 2
    low, high = PART_BANDS["alternator"]
    assert low <= paid["repair_cost"] <= high
    assert payments[paid["warranty_claim_id"]]["amount"] == paid["repair_cost"]
    assert kinds_and_sizes_unfit(spec).parts_out_of_band == 0
