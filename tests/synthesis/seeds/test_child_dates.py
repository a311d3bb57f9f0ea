"""Seed rows dated after the record they belong to came to be: a payment after its citation, a fine
after its loan; a child's own dates move together and a lifecycle's dates stay."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.child_dates import children_before_parent
from envs.quality.seed_time import seed_time
from synthesis.domains.child_dates import settle_child_dates

from ...envs.specs import SHOP
from .generated import generated_spec

# each had children dated before their parents before seeds followed their parents' dates
DOMAINS = (
    "parking_citation_appeals",
    "online_certificate_programs",
    "passport_renewal",
    "library_loans",
    "credit_card_disputes",
    "employee_expense_claims",
)

REFUNDS = {
    "name": "refunds",
    "primary_key": ["refund_id"],
    "columns": [
        {"name": "refund_id", "type": "text"},
        {"name": "order_id", "type": "text"},
        {"name": "requested_on", "type": "date"},
        {"name": "paid_at", "type": "datetime", "nullable": True},
    ],
    "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
}


def _spec() -> EnvSpec:
    spec = copy.deepcopy(SHOP)  # order O1 created 2026-01-10, O2 2026-01-11; the clock 2026-01-15 09:00
    spec["tables"].append(copy.deepcopy(REFUNDS))
    spec["seed"]["refunds"] = [
        {"refund_id": "R1", "order_id": "O1", "requested_on": "2025-12-01", "paid_at": "2025-12-03 10:00:00"},
        {"refund_id": "R2", "order_id": "O2", "requested_on": "2026-01-12", "paid_at": None},
        {"refund_id": "R3", "order_id": "O2", "requested_on": "2025-09-01", "paid_at": "2025-12-30 10:00:00"},
    ]
    return EnvSpec.model_validate(spec)


def _refunds(spec: EnvSpec) -> dict[str, dict[str, Any]]:
    return {r["refund_id"]: r for r in spec.seed["refunds"]}


def test_a_childs_dates_move_after_its_parent_together():
    spec = _spec()
    assert children_before_parent(spec).children_before_parent == 2
    assert settle_child_dates(spec) == 2
    assert children_before_parent(spec).children_before_parent == 0
    r1, r2, r3 = _refunds(spec).values()
    assert "2026-01-10" <= r1["requested_on"] <= r1["paid_at"] <= "2026-01-15 09:00:00"
    assert r2 == _refunds(_spec())["R2"]  # after its order already
    # four months between request and payment do not fit in four days: squeezed, in order
    assert "2026-01-11" <= r3["requested_on"] <= r3["paid_at"][:10] <= "2026-01-15"
    assert r3["paid_at"][14:16] in ("00", "15", "30", "45")


def test_settling_is_deterministic_and_holds_what_a_lifecycle_times():
    first, second = _spec(), _spec()
    settle_child_dates(first)
    settle_child_dates(second)
    assert first.seed == second.seed
    held = _spec()
    assert settle_child_dates(held, lambda table, row: frozenset({"requested_on"})) == 0
    assert held.seed == _spec().seed


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_generated_children_come_after_their_parents(domain_id):
    spec = generated_spec(domain_id)
    counts = children_before_parent(spec)
    assert counts.child_rows_checked >= 3
    assert counts.children_before_parent == 0
    timeline = seed_time(spec, spec.seed, spec.clock)
    assert (timeline.inverted_date_pairs, timeline.clock_violations) == (0, 0)
