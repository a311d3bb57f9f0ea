"""A record paid in full whose amount paid is the sum of its payments: the payments add up to its
price (measure 59's "paid, yet owing or paid nothing", where the amount paid is an aggregate)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from envs.quality.own_row import own_row_findings
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def layaways() -> Any:
    domain = next(d for d in load_ontology() if d.id == "layaway_plans")
    return generate_env(assign_enforcement(domain), seed=0).spec


def test_a_paid_off_layaway_has_posted_payments_adding_up_to_its_price(layaways):
    paid: dict[str, float] = defaultdict(float)
    for payment in layaways.seed["layaway_payments"]:
        if payment["status"] == "posted" and payment["kind"] in ("installment", "payoff"):
            paid[payment["layaway_id"]] += payment["amount"]
    with_payments = {p["layaway_id"] for p in layaways.seed["layaway_payments"]}
    paid_off = [r for r in layaways.seed["layaways"] if r["status"] == "paid_off"]
    # how many paid-off layaways have payments is the draw's (13 before public lists named each thing
    # once, 3 after: fewer items, fewer payments); each of them must add up
    assert len([r for r in paid_off if r["layaway_id"] in with_payments]) >= 3
    for row in paid_off:
        if row["layaway_id"] in with_payments:
            assert round(paid[row["layaway_id"]], 2) == row["total_price"] == row["amount_paid"]
            assert row["balance_remaining"] == 0


def test_only_paid_off_layaways_with_no_payment_at_all_still_read_as_paying_nothing(layaways):
    against = [shape for shape, disagrees in own_row_findings(layaways, layaways.seed) if disagrees]
    with_payments = {p["layaway_id"] for p in layaways.seed["layaway_payments"]}
    bare = [r for r in layaways.seed["layaways"] if r["status"] == "paid_off" and r["layaway_id"] not in with_payments]
    assert against == ["paid"] * len(bare)
