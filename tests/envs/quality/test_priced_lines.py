"""Lines off their quantity times unit price (measure 80): two shifter cables at 115.46 each on a line of
127.43; and the seed rule that prices them (``synthesis.domains.priced_lines``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.priced_lines import lines_off_their_units, unit_priced
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.priced_lines import fit_unit_prices
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def bike_shop() -> EnvSpec:
    domains = {d.id: d for d in load_ontology()}
    return generate_env(assign_enforcement(domains["bike_shop_repairs"]), seed=0).spec


def _line(spec: EnvSpec, quantity: int) -> tuple[dict[str, Any], float]:
    prices = {p["part_id"]: p["unit_price"] for p in spec.seed["parts"]}
    row = next(r for r in spec.seed["part_lines"] if r["quantity"] == quantity)
    return row, prices[row["part_id"]]


def test_a_line_with_a_quantity_names_its_unit_price(bike_shop):
    [rule] = unit_priced(bike_shop)
    assert (rule.table, rule.quantity, rule.amount, rule.parent, rule.unit_price) == (
        "part_lines",
        "quantity",
        "line_price",
        "parts",
        "unit_price",
    )


def test_generated_lines_cost_their_units(bike_shop):
    counts = lines_off_their_units(bike_shop)
    assert counts.priced_lines_checked == len(bike_shop.seed["part_lines"]) > 0
    assert counts.lines_off_their_units == 0


def test_a_line_off_its_units_is_counted_and_priced_again(bike_shop):
    spec = bike_shop.model_copy(update={"seed": copy.deepcopy(bike_shop.seed)})
    row, price = _line(spec, 2)
    row["line_price"] = round(price * 1.1, 2)
    assert lines_off_their_units(spec).lines_off_their_units == 1
    assert fit_unit_prices(spec) == 1
    assert row["line_price"] == round(2 * price, 2) and row["quantity"] == 2
    assert lines_off_their_units(spec).lines_off_their_units == 0


def test_a_line_a_cap_scaled_keeps_its_price_in_whole_units(bike_shop):
    spec = bike_shop.model_copy(update={"seed": copy.deepcopy(bike_shop.seed)})
    row, price = _line(spec, 2)
    row["line_price"] = round(price * 1.5, 2)  # between one unit and two: one unit fits below it
    assert fit_unit_prices(spec, keep_below=True) == 1
    assert (row["quantity"], row["line_price"]) == (1, price)
