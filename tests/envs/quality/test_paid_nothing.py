"""Money records of nothing in a settled or owed state (measure 107), and the seed rule that keeps
them (``synthesis.domains.paid_amounts``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.money_rows import money_table, owed_columns, sum_columns
from envs.quality.paid_nothing import paid_amounts_of_nothing
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.paid_amounts import settle_paid_amounts
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def table(spec: EnvSpec, name: str):
    return next(t for t in spec.tables if t.name == name)


def test_money_tables_and_their_sums_are_read_by_name(domains):
    storage = generated(domains, "self_storage_rentals")
    assert money_table(table(storage, "storage_payments"))
    assert [c.name for c in sum_columns(table(storage, "storage_payments"))] == ["amount"]
    assert not money_table(table(storage, "unit_rentals"))
    assert [c.name for c in owed_columns(table(storage, "unit_rentals"))] == ["balance_due"]
    grocery = generated(domains, "grocery_delivery")
    orders = table(grocery, "grocery_orders")
    assert not money_table(orders)
    assert [c.name for c in sum_columns(orders)] == ["basket_total"]  # a tip of nothing is a choice


@pytest.mark.parametrize("name", ["self_storage_rentals", "veterinary_clinic_visits", "p2p_payment_requests"])
def test_generated_seeds_hold_no_settled_payment_of_nothing(domains, name):
    counts = paid_amounts_of_nothing(generated(domains, name))
    assert counts.paid_amounts_checked > 0
    assert counts.paid_amounts_of_nothing == 0


def test_a_paid_invoice_and_a_posted_payment_of_nothing_are_counted_and_redrawn(domains):
    vet = generated(domains, "veterinary_clinic_visits")
    paid = next(r for r in vet.seed["vet_invoices"] if r["status"] == "paid")
    unpaid = next(r for r in vet.seed["vet_invoices"] if r["status"] == "unpaid")
    paid["amount"], unpaid["amount"] = 0.0, 0.0
    # an unpaid invoice's amount is what it bills, not what was paid: only the paid one counts
    assert paid_amounts_of_nothing(vet).paid_amounts_of_nothing == 1
    assert settle_paid_amounts(vet) == 1
    assert paid["amount"] > 0 and unpaid["amount"] == 0.0
    storage = generated(domains, "self_storage_rentals")
    posted = next(r for r in storage.seed["storage_payments"] if r["status"] == "posted")
    posted["amount"] = 0.0
    assert paid_amounts_of_nothing(storage).paid_amounts_of_nothing == 1
    settle_paid_amounts(storage)
    assert posted["amount"] > 0
    assert paid_amounts_of_nothing(storage).paid_amounts_of_nothing == 0


def test_an_overdue_balance_of_nothing_is_counted(domains):
    storage = generated(domains, "self_storage_rentals")
    rental = storage.seed["unit_rentals"][0]
    rental["status"], rental["balance_due"] = "overdue", 0.0
    assert paid_amounts_of_nothing(storage).paid_amounts_of_nothing == 1
    rental["balance_due"] = 120.0
    assert paid_amounts_of_nothing(storage).paid_amounts_of_nothing == 0
