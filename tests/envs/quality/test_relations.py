"""Totals their records do not add up to (measure 37): an invariant named ``<table>_<column>_adds_up``
declares the relation; its rows are counted in the seed and after each task's gold actions."""

from __future__ import annotations

import copy

from envs.catalog import CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.relations import relation_counts, relation_invariants

from ..specs import SHOP, shop_task

ADDS_UP = {
    "name": "orders_total_adds_up",
    "description": "The total of an order is the sum of the prices of its items that are kept",
    "violations": "SELECT o.order_id FROM orders AS o WHERE ABS(o.total - (SELECT COALESCE(SUM(i.price), 0) "
    "FROM order_items AS i WHERE i.order_id = o.order_id AND i.status = 'ok')) > 0.005",
}


def spec_with_relation(**totals: float) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["invariants"].append(copy.deepcopy(ADDS_UP))
    for row in spec["seed"]["orders"]:
        row["total"] = totals.get(row["order_id"], row["total"])
    return EnvSpec.model_validate(spec)


def test_only_invariants_named_for_a_relation_are_read():
    spec = spec_with_relation()
    assert [i.name for i in relation_invariants(spec)] == ["orders_total_adds_up"]
    assert relation_invariants(EnvSpec.model_validate(copy.deepcopy(SHOP))) == []


def test_a_total_its_items_do_not_make_is_counted_in_the_seed_and_after_the_gold():
    entry = CatalogEntry(spec_with_relation(O2=25.0), [])
    counts = relation_counts(entry.environment, [])
    assert (counts.aggregate_relations, counts.aggregate_rows_broken_in_seed) == (1, 1)
    # returning an item without lowering the order's total breaks the relation on that order too
    task = shop_task(
        gold_actions=[{"tool": "return_items", "arguments": {"order_id": "O1", "item_ids": ["I1"]}}],
        outputs=[],
        assertions=[],
    )
    counts = relation_counts(entry.environment, [task])
    assert counts.aggregate_rows_broken_after_gold == 2


def test_the_quality_report_counts_relations_and_rows():
    counts = env_quality(CatalogEntry(spec_with_relation(), [])).counts
    assert (counts.aggregate_relations, counts.aggregate_rows_broken_in_seed) == (1, 0)
    assert counts.aggregate_rows_broken_after_gold == 0
