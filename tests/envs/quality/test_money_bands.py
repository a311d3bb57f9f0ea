"""Amounts out of their kind's band and out of their share of another amount (measures 102 and 103): a
basic wash plan at the ultimate plan's fee, a tip larger than the basket it is left on."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from envs.formats.spec import EnvSpec
from envs.quality.money_bands import band_for, money_out_of_band
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_fee_outside_its_plans_band_is_counted(domains):
    spec = generated(domains, "car_wash_memberships")
    fee = next(c for c in spec.table("wash_memberships").columns if c.name == "monthly_fee")
    assert fee.bands is not None and fee.bands.by == "plan"
    counts = money_out_of_band(spec)
    assert counts.banded_amounts_checked >= 10 and counts.amounts_out_of_band == 0
    basic = next(r for r in spec.seed["wash_memberships"] if r["plan"] == "basic")
    basic["monthly_fee"] = 44.99  # the ultimate plan's price
    assert money_out_of_band(spec).amounts_out_of_band == 1


def test_a_tip_above_its_share_of_the_basket_is_counted_and_no_tip_is_not(domains):
    spec = generated(domains, "grocery_delivery")
    tip = next(c for c in spec.table("grocery_orders").columns if c.name == "driver_tip")
    assert tip.ratio is not None and tip.ratio.of == "basket_total"
    counts = money_out_of_band(spec)
    assert counts.ratio_amounts_checked >= 10 and counts.ratios_out_of_range == 0
    orders = [r for r in spec.seed["grocery_orders"] if r["driver_tip"] > 0]
    orders[0]["driver_tip"] = orders[0]["basket_total"] * 1.5
    orders[1]["driver_tip"] = 0.0  # no tip left: nothing to be out of proportion
    after = money_out_of_band(spec)
    assert after.ratios_out_of_range == 1
    assert after.ratio_amounts_checked == counts.ratio_amounts_checked - 1


def test_a_refund_is_held_to_its_orders_basket_through_the_foreign_key(domains):
    spec = generated(domains, "grocery_delivery")
    orders = {r["grocery_order_id"]: r for r in spec.seed["grocery_orders"]}
    refund = next(r for r in spec.seed["grocery_refunds"] if r["grocery_order_id"] in orders)
    refund["amount"] = orders[refund["grocery_order_id"]]["basket_total"] + 50
    assert money_out_of_band(spec).ratios_out_of_range == 1


def test_a_numbered_edition_takes_its_values_band_and_an_unnamed_value_is_free():
    bands = {"Lipid Panel": (30.0, 100.0)}
    assert band_for("Lipid Panel 2", bands) == (30.0, 100.0)
    assert band_for("Allergy Panel", bands) is None and band_for(None, bands) is None


def test_a_spec_whose_band_names_no_column_is_refused(domains):
    raw = generated(domains, "car_wash_memberships").model_dump(mode="json")
    table = next(t for t in raw["tables"] if t["name"] == "wash_memberships")
    fee = next(c for c in table["columns"] if c["name"] == "monthly_fee")
    fee["bands"]["by"] = "tier"
    with pytest.raises(ValidationError, match=r"column 'monthly_fee' bands: 'by' \('tier'\) names no column"):
        EnvSpec.model_validate(raw)
    fee["bands"]["by"] = "plan"
    fee["ratio"] = {"of": "member_id.salary", "share": [0.0, 0.1]}
    with pytest.raises(ValidationError, match=r"ratio: 'of' \('member_id\.salary'\) names no column 'salary'"):
        EnvSpec.model_validate(raw)
