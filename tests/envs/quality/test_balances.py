"""Amounts that do not add up on one row (measure 69): a balance above what the thing costs, or off its
whole less what was paid; and the seed rule that keeps them (``synthesis.domains.balances``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.quality.balances import Balance, balances, balances_not_adding_up, does_not_add_up
from synthesis.domains.balances import settle_balances
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_whole_a_balance_and_what_was_paid_are_read_by_their_names(domains):
    assert balances(generated(domains, "furniture_custom_orders")) == [
        Balance("furniture_orders", "order_total", "balance_due", ("deposit_paid",))
    ]
    assert balances(generated(domains, "cruise_cabin_bookings")) == [
        Balance("cruise_bookings", "total_fare", "balance_due", ())
    ]
    # a price per person is a rate, no whole: the balance has nothing on its row to add up to
    assert balances(generated(domains, "guided_tour_packages")) == []


def test_a_balance_is_off_above_its_whole_or_off_the_whole_less_what_was_paid():
    paid = Balance("orders", "order_total", "balance_due", ("deposit_paid",))
    bare = Balance("bookings", "total_fare", "balance_due", ())
    assert does_not_add_up(paid, {"order_total": 936.93, "deposit_paid": 0, "balance_due": 4477.29})
    assert does_not_add_up(paid, {"order_total": 900.0, "deposit_paid": 100.0, "balance_due": 900.0})
    assert not does_not_add_up(paid, {"order_total": 900.0, "deposit_paid": 100.0, "balance_due": 800.0})
    # paid off: the deposit column counts the deposit only, the final payment is a payment of its own
    assert not does_not_add_up(paid, {"order_total": 900.0, "deposit_paid": 100.0, "balance_due": 0})
    assert does_not_add_up(bare, {"total_fare": 1652.3, "balance_due": 2367.66})
    assert does_not_add_up(bare, {"total_fare": 1652.3, "balance_due": -5.0})
    assert not does_not_add_up(bare, {"total_fare": 1652.3, "balance_due": 1402.3})
    assert does_not_add_up(bare, {"total_fare": None, "balance_due": 10.0}) is None


@pytest.mark.parametrize("name", ["furniture_custom_orders", "cruise_cabin_bookings", "layaway_plans"])
def test_generated_seeds_keep_balances_that_add_up(domains, name):
    counts = balances_not_adding_up(generated(domains, name))
    assert counts.balance_rows_checked > 20
    assert counts.balances_not_adding_up == 0


def test_a_balance_off_its_row_is_counted_and_set_to_the_whole_less_the_deposit(domains):
    spec = generated(domains, "furniture_custom_orders")
    row = next(r for r in spec.seed["furniture_orders"] if r["balance_due"] > 0)
    row["balance_due"] = row["order_total"] * 3
    assert balances_not_adding_up(spec).balances_not_adding_up == 1
    assert settle_balances(spec) == 1
    assert row["balance_due"] == round(row["order_total"] - row["deposit_paid"], 2)


def test_a_deposit_paid_by_the_tool_keeps_the_sum(domains):
    spec = generated(domains, "furniture_custom_orders")
    row = next(r for r in spec.seed["furniture_orders"] if r["status"] == "quoted")
    episode = Environment(spec).episode()
    episode.call_tool(
        "pay_deposit_furniture_order",
        {"furniture_order_id": row["furniture_order_id"], "buyer_id": row["buyer_id"], "amount": 150.0},
    )
    after = episode.dump("furniture_orders")
    paid = next(r for r in after if r["furniture_order_id"] == row["furniture_order_id"])
    assert (paid["status"], paid["deposit_paid"]) == ("confirmed", 150.0)
    assert balances_not_adding_up(spec, {"furniture_orders": after}).balances_not_adding_up == 0
