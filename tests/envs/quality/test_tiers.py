"""Prices against the tiers they are for (measure 75): an extra-large box cheaper than a small one; and
the seed rule that keeps them (``synthesis.domains.tiers``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.tiers import Tiers, rank, tier_prices_inverted, tiers
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.tiers import settle_tiers
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_rungs_are_read_from_sizes_plans_and_classes():
    assert rank("small") < rank("medium") < rank("large") < rank("extra_large")
    assert rank("basic_with_ads") < rank("standard") < rank("premium")
    assert rank("economy") < rank("premium_economy") < rank("business")
    assert rank("envelope") < rank("small_box") < rank("large_box")
    assert rank("5x5") < rank("5x10") < rank("10x10") < rank("10x20")
    assert rank("studio") < rank("one_bed") < rank("two_bed")
    assert rank("sports") is None and rank(None) is None


def test_a_ladder_orders_a_price_by_parent_or_across_everyones_plans(domains):
    assert tiers(generated(domains, "safe_deposit_box_rentals")) == [
        Tiers("deposit_boxes", "size", "annual_fee", "branch_id")
    ]
    assert tiers(generated(domains, "streaming_subscriptions")) == [
        Tiers("streaming_subscriptions", "plan", "monthly_price", None)
    ]
    # a flat-rate job keeps its price when its size changes: the price is not the size's
    assert tiers(generated(domains, "same_day_courier_jobs")) == []


@pytest.mark.parametrize("name", ["safe_deposit_box_rentals", "self_storage_rentals", "car_wash_memberships"])
def test_generated_seeds_price_higher_tiers_higher(domains, name):
    counts = tier_prices_inverted(generated(domains, name))
    assert counts.tier_rows_checked > 20
    assert counts.tier_prices_inverted == 0


def test_an_extra_large_box_cheaper_than_a_small_one_is_counted_and_the_prices_reordered(domains):
    spec = generated(domains, "safe_deposit_box_rentals")
    branch = spec.seed["deposit_boxes"][0]["branch_id"]
    boxes = [r for r in spec.seed["deposit_boxes"] if r["branch_id"] == branch]
    small = next(r for r in boxes if r["size"] != "extra_large")
    big = {**small, "deposit_box_id": "DBX", "size": "extra_large", "annual_fee": 1.0}
    spec.seed["deposit_boxes"].append(big)
    assert tier_prices_inverted(spec).tier_prices_inverted >= 1
    fees = sorted(r["annual_fee"] for r in [*boxes, big])
    assert settle_tiers(spec) >= 2
    assert big["annual_fee"] == fees[-1]
    assert sorted(r["annual_fee"] for r in [*boxes, big]) == fees
    assert tier_prices_inverted(spec).tier_prices_inverted == 0
