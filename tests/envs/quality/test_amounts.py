"""Amounts beyond their whole (measure 34): refunds of one order above what it cost, shares of one
account above 100 %; a refund within the price, or a store credit balance, is no excess."""

from __future__ import annotations

import copy
from typing import Any

from envs.catalog import CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.amounts import amounts_beyond_parent, money_back_columns, price_column, share_columns

from ..specs import SHOP

REFUNDS = {
    "name": "refunds",
    "primary_key": ["refund_id"],
    "columns": [
        {"name": "refund_id", "type": "text"},
        {"name": "order_id", "type": "text"},
        {"name": "refund_amount", "type": "real"},
        {"name": "credit_balance", "type": "real", "nullable": True},
    ],
    "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
}
HEIRS = {
    "name": "heirs",
    "primary_key": ["heir_id"],
    "columns": [
        {"name": "heir_id", "type": "text"},
        {"name": "account_id", "type": "text"},
        {"name": "share_percent", "type": "integer"},
    ],
    "foreign_keys": [{"columns": ["account_id"], "table": "accounts", "references": ["account_id"]}],
}


def spec_with(refunds: list[dict[str, Any]], heirs: list[dict[str, Any]]) -> EnvSpec:
    """The tiny shop (order O1 cost 30, O2 20) with refunds of its orders and heirs of its accounts."""
    spec = copy.deepcopy(SHOP)
    spec["tables"] += [copy.deepcopy(REFUNDS), copy.deepcopy(HEIRS)]
    spec["seed"] |= {"refunds": refunds, "heirs": heirs}
    return EnvSpec.model_validate(spec)


def test_columns_are_read_from_names():
    spec = spec_with([], [])
    refunds, orders, heirs = spec.table("refunds"), spec.table("orders"), spec.table("heirs")
    assert refunds is not None and orders is not None and heirs is not None
    assert money_back_columns(refunds) == ["refund_amount"]  # a credit balance is no money back
    assert price_column(orders) == "total"
    assert share_columns(heirs) == ["share_percent"]
    # a table of refunds names its money back plain "amount"; another table's amount is no refund
    program_refunds = refunds.model_copy(
        update={
            "name": "program_refunds",
            "columns": [
                c.model_copy(update={"name": "amount"}) if c.name == "refund_amount" else c for c in refunds.columns
            ],
        }
    )
    assert money_back_columns(program_refunds) == ["amount"]
    assert money_back_columns(program_refunds.model_copy(update={"name": "program_payments"})) == []


def test_refunds_above_the_price_and_shares_above_100_are_counted():
    spec = spec_with(
        [
            {"refund_id": "R1", "order_id": "O1", "refund_amount": 20.0, "credit_balance": 500.0},
            {"refund_id": "R2", "order_id": "O1", "refund_amount": 15.0},  # 35 of a 30 order
            {"refund_id": "R3", "order_id": "O2", "refund_amount": 20.0},  # all of it: fine
        ],
        [
            {"heir_id": "H1", "account_id": "U1", "share_percent": 60},
            {"heir_id": "H2", "account_id": "U1", "share_percent": 50},
            {"heir_id": "H3", "account_id": "U2", "share_percent": 100},
        ],
    )
    counts = amounts_beyond_parent(spec)
    assert (counts.amount_groups_checked, counts.amounts_beyond_parent) == (4, 2)


def test_the_quality_report_carries_the_measures_across_rows():
    spec = spec_with(
        [{"refund_id": "R1", "order_id": "O1", "refund_amount": 45.0}],
        [{"heir_id": "H1", "account_id": "U1", "share_percent": 100}],
    )
    counts = env_quality(CatalogEntry(spec=spec, tasks=[])).counts
    assert (counts.amount_groups_checked, counts.amounts_beyond_parent) == (2, 1)
    data = copy.deepcopy(spec.model_dump(mode="json"))
    data["seed"]["orders"][0]["created_at"] = "2026-01-14 10:00:00"
    data["tables"][1]["columns"].append({"name": "due_date", "type": "date", "nullable": True})
    data["seed"]["orders"][0]["due_date"] = "2026-01-01"  # due before the order was created
    data["tables"].append(
        {
            "name": "order_notes",
            "primary_key": ["note_id"],
            "columns": [
                {"name": "note_id", "type": "text"},
                {"name": "order_id", "type": "text"},
                {"name": "posted_at", "type": "datetime"},
            ],
            "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
        }
    )
    data["seed"]["order_notes"] = [{"note_id": "N1", "order_id": "O1", "posted_at": "2026-01-02 10:00:00"}]
    counts = env_quality(CatalogEntry(spec=EnvSpec.model_validate(data), tasks=[])).counts
    assert (counts.deadline_rows_checked, counts.deadlines_before_record) == (1, 1)
    assert (counts.child_rows_checked, counts.children_before_parent) == (1, 1)
