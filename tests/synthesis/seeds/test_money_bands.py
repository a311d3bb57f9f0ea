"""Money amounts in bands by kind and in ratio to what they are a share of (``Attribute.range_by``,
``Attribute.ratio_of``, ``synthesis.domains.money_bands``): the ontology refuses a band it cannot read,
the seed draws each amount in its band, and the last pass brings back an amount a later rule moved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envs.errors import SpecError
from envs.quality.money_bands import money_out_of_band
from synthesis.domains.domain import Domain
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.money_bands import band_problems, fit_new_amounts, settle_money_bands
from synthesis.domains.ontology import ONTOLOGY_DIR, load_ontology
from synthesis.tools.envgen import generate_env
from tests.measured import MEASURED


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def raw_domain(name: str) -> dict[str, Any]:
    for path in sorted(ONTOLOGY_DIR.glob("*.json")):
        for raw in json.loads(path.read_text(encoding="utf-8"))["domains"]:
            if raw["id"] == name:
                return dict(raw)
    raise KeyError(name)


def attribute(raw: dict[str, Any], entity: str, name: str) -> dict[str, Any]:
    found = next(e for e in raw["entities"] if e["name"] == entity)
    return next(a for a in found["attributes"] if a["name"] == name)


@pytest.mark.parametrize(
    ("entity", "name", "change", "problem"),
    [
        ("wash_membership", "monthly_fee", {"range_by": {"tier": {"basic": [20, 25]}}}, "key 'tier' names no other"),
        ("wash_membership", "monthly_fee", {"range_by": {"plan": {"basic": [30, 25]}}}, "is not 0 <= low <= high"),
        ("wash_membership", "monthly_fee", {"range_by": {"plan": {"basic": [10, 25]}}}, "outside its range"),
        ("wash_membership", "plan", {"range_by": {"next_billing_date": {"x": [1, 2]}}}, "is for money, not a enum"),
        ("wash_membership", "monthly_fee", {"ratio_of": {"plan": [0, 1]}}, "ratio_of 'plan' is a enum, not money"),
        ("wash_membership", "monthly_fee", {"ratio_of": {"monthly_fee": [0, 1]}}, "names no other attribute"),
        ("wash_membership", "monthly_fee", {"ratio_of": {"next_billing_date": [0, 1]}}, "not money or a quantity"),
    ],
)
def test_a_band_the_generator_cannot_read_is_a_problem(entity, name, change, problem):
    raw = raw_domain("car_wash_memberships")
    attribute(raw, entity, name).update(change)
    problems = band_problems(Domain.model_validate(raw))
    assert any(problem in p for p in problems), problems


def test_the_ontology_loader_refuses_a_bad_band_naming_its_file(tmp_path: Path):
    raw = raw_domain("car_wash_memberships")
    attribute(raw, "wash_membership", "monthly_fee")["range_by"] = {"tier": {"basic": [20, 25]}}
    (tmp_path / "automotive.json").write_text(json.dumps({"sector": "automotive", "domains": [raw]}))
    with pytest.raises(SpecError, match="key 'tier' names no other attribute"):
        load_ontology(tmp_path)


def test_every_fee_is_drawn_in_its_plans_band(domains):
    spec = generate_env(assign_enforcement(domains["car_wash_memberships"]), seed=3).spec
    bands = {"basic": (19.99, 24.99), "deluxe": (27.99, 34.99), "ultimate": (36.99, 44.99)}
    rows = spec.seed["wash_memberships"]
    assert len(rows) >= 10
    for row in rows:
        low, high = bands[row["plan"]]
        assert low <= row["monthly_fee"] <= high, row


@pytest.mark.parametrize("name", MEASURED)
def test_the_measured_domains_seed_no_amount_out_of_band_or_share(domains, name):
    spec = generate_env(assign_enforcement(domains[name]), seed=0).spec
    counts = money_out_of_band(spec)
    assert counts.amounts_out_of_band == 0 and counts.ratios_out_of_range == 0, counts


def test_a_price_per_unit_of_a_quantity_is_drawn_per_unit(domains):
    """A bill is 0.12-0.22 a kWh it bills and a fuel package 3.20-4.60 a gallon it holds, so 507 kWh
    is not billed at 363.57 nor 194 kWh at 69.29, as a draw from one range for every bill had them."""
    for name, table, amount, units, (low, high) in [
        ("electricity_utility_billing", "utility_bills", "amount", "kwh_used", (0.12, 0.22)),
        ("heating_oil_deliveries", "fuel_packages", "price", "gallons", (3.2, 4.6)),
    ]:
        spec = generate_env(assign_enforcement(domains[name]), seed=3).spec
        rows = [r for r in spec.seed[table] if r[amount] > 0]
        assert len(rows) >= 5, name
        for row in rows:
            assert low * row[units] - 0.005 <= row[amount] <= high * row[units] + 0.005, (name, row)
        assert next(c for t in spec.tables for c in t.columns if c.name == amount and t.name == table).ratio


def test_the_last_pass_brings_back_an_amount_a_later_rule_moved(domains):
    spec = generate_env(assign_enforcement(domains["grocery_delivery"]), seed=0).spec
    order = next(r for r in spec.seed["grocery_orders"] if r["basket_total"] > 20)
    order["driver_tip"] = order["basket_total"] * 2  # a tip twice the basket
    units = generate_env(assign_enforcement(domains["self_storage_rentals"]), seed=0).spec
    small = next(r for r in units.seed["storage_units"] if r["size"] == "5x5")
    small["monthly_rate"] = 300.0  # a 10x20's rent
    assert settle_money_bands(spec) == 1 and settle_money_bands(units) == 1
    assert 0 < order["driver_tip"] <= order["basket_total"] * 0.2
    assert 35 <= small["monthly_rate"] <= 70
    assert money_out_of_band(spec).ratios_out_of_range == 0 and money_out_of_band(units).amounts_out_of_band == 0


def test_a_new_records_amounts_are_fitted_to_the_values_given_with_them(domains):
    wash = domains["car_wash_memberships"]
    membership = wash.entity("wash_membership")
    fitted = fit_new_amounts(wash, membership, {}, {"plan": "basic", "monthly_fee": 44.0}, lambda *_: None)
    assert fitted["plan"] == "basic" and 19.99 <= fitted["monthly_fee"] <= 24.99
    kept = {"plan": "ultimate", "monthly_fee": 40.0}
    assert fit_new_amounts(wash, membership, {}, kept, lambda *_: None) == kept
    grocery = domains["grocery_delivery"]
    order = grocery.entity("grocery_order")
    fitted = fit_new_amounts(grocery, order, {}, {"basket_total": 50.0, "driver_tip": 30.0}, lambda *_: None)
    assert fitted["basket_total"] == 50.0 and 0 < fitted["driver_tip"] <= 10.0
    refund = grocery.entity("grocery_refund")
    orders = {"GO1": {"basket_total": 40.0}}
    fitted = fit_new_amounts(
        grocery, refund, {"grocery_order_id": "GO1"}, {"amount": 90.0}, lambda _, key: orders.get(key)
    )
    assert set(fitted) == {"amount"} and 0 < fitted["amount"] <= 40.0
