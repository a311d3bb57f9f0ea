"""Records dated before the record they belong to (measure 32): a payment before its order was
placed counts; an expense incurred before the report that claims it does not."""

from __future__ import annotations

import copy

from envs.formats.spec import EnvSpec
from envs.quality.child_dates import children_before_parent, recorded_dates

from ..specs import SHOP

PAYMENTS = {
    "name": "payments",
    "primary_key": ["payment_id"],
    "columns": [
        {"name": "payment_id", "type": "text"},
        {"name": "order_id", "type": "text"},
        {"name": "paid_on", "type": "date"},
        {"name": "incurred_on", "type": "date", "nullable": True},
        {"name": "due_date", "type": "date", "nullable": True},
    ],
    "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
}


def _spec(*payments: dict[str, str | None]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(copy.deepcopy(PAYMENTS))
    spec["seed"]["payments"] = [{"payment_id": f"P{i}", "order_id": "O1", **p} for i, p in enumerate(payments)]
    return EnvSpec.model_validate(spec)  # order O1 was created 2026-01-10 10:00


def test_recorded_dates_are_a_records_own_history():
    orders = EnvSpec.model_validate(SHOP).table("orders")
    assert orders is not None and recorded_dates(orders) == ["created_at"]
    payments = _spec().table("payments")
    assert payments is not None and recorded_dates(payments) == ["paid_on"]  # not incurred, not due


def test_a_payment_before_its_order_existed_is_counted_once():
    counts = children_before_parent(
        _spec(
            {"paid_on": "2026-01-05"},  # before the order
            {"paid_on": "2026-01-10"},  # the same day
            {"paid_on": "2026-01-12", "incurred_on": "2025-12-01", "due_date": "2025-12-02"},
        )
    )
    assert (counts.child_rows_checked, counts.children_before_parent) == (3, 1)


def test_a_child_without_recorded_dates_or_parent_is_not_checked():
    spec = copy.deepcopy(SHOP)
    spec["tables"].append(copy.deepcopy(PAYMENTS))
    spec["seed"]["payments"] = [
        {"payment_id": "P1", "order_id": "O1", "paid_on": None},
        {"payment_id": "P2", "order_id": "O9", "paid_on": "2020-01-01"},
    ]
    counts = children_before_parent(EnvSpec.model_validate(spec))
    assert (counts.child_rows_checked, counts.children_before_parent) == (0, 0)
