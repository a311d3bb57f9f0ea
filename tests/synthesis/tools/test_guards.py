"""The richer rule kinds: limits, aggregates, windows, value sets — enforced by the generated SQL,
predicted by the oracle, admitted by the gate and turned into refusal tasks."""

from __future__ import annotations

from typing import Any

import pytest

from envs import Environment, check_env
from envs.errors import StateError
from synthesis.domains.domain import Domain
from synthesis.gate.probe import probe_env
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


def shop() -> Domain:
    return Domain.model_validate(
        {
            "id": "rule_shop",
            "name": "Rule shop",
            "sector": "retail",
            "description": "A shop whose orders are refunded, cancelled and rescheduled under several rules.",
            "user_entity": "customer",
            "entities": [
                {
                    "name": "customer",
                    "id_prefix": "CU",
                    "attributes": [
                        {"name": "full_name", "kind": "person_name"},
                        {"name": "email", "kind": "email", "unique": True, "lookup": True},
                        {"name": "tier", "kind": "enum", "values": ["basic", "plus", "premium"]},
                    ],
                },
                {
                    "name": "order",
                    "id_prefix": "OR",
                    "references": [{"entity": "customer", "role": "owner"}],
                    "attributes": [
                        {"name": "order_code", "kind": "code", "prefix": "ORD-", "unique": True, "lookup": True},
                        {"name": "amount_paid", "kind": "money", "range": [20, 300]},
                        {"name": "channel", "kind": "enum", "values": ["online", "in_store"]},
                        {"name": "delivered_at", "kind": "datetime"},
                        {"name": "delivery_date", "kind": "date"},
                        {"name": "items", "kind": "quantity", "range": [1, 9]},
                    ],
                    "lifecycle": {
                        "states": ["placed", "delivered", "cancelled"],
                        "initial": "placed",
                        "transitions": [
                            {
                                "name": "request_refund",
                                "description": "Refund part of a delivered order within 30 days of delivery",
                                "from_states": ["delivered"],
                                "to": "delivered",
                                "params": [{"name": "amount", "kind": "money"}],
                                "guards": [
                                    {"kind": "owner"},
                                    {"kind": "within", "field": "field:delivered_at", "hours": 720},
                                    {
                                        "kind": "sum_max",
                                        "field": "field:order_id",
                                        "entity": "refund",
                                        "match": "order_id",
                                        "column": "amount",
                                        "add": "param:amount",
                                        "amount": "field:amount_paid",
                                    },
                                ],
                                "effects": [
                                    {
                                        "kind": "insert",
                                        "entity": "refund",
                                        "values": {"order": "self", "amount": "param:amount"},
                                    }
                                ],
                            },
                            {
                                "name": "cancel",
                                "description": "Cancel an online order; at most 2 cancelled orders per customer",
                                "from_states": ["placed"],
                                "to": "cancelled",
                                "guards": [
                                    {"kind": "owner"},
                                    {"kind": "not_equals", "field": "field:channel", "value": "in_store"},
                                    {
                                        "kind": "count_max",
                                        "field": "field:customer_id",
                                        "entity": "order",
                                        "match": "customer_id",
                                        "states": ["cancelled"],
                                        "amount": 2,
                                    },
                                ],
                            },
                            {
                                "name": "reschedule",
                                "description": "Move the delivery of a small order of a plus or premium customer",
                                "from_states": ["placed"],
                                "to": "placed",
                                "params": [{"name": "new_date", "kind": "date"}],
                                "guards": [
                                    {"kind": "owner"},
                                    {"kind": "one_of", "field": "via:customer.tier", "values": ["plus", "premium"]},
                                    {"kind": "max", "field": "field:items", "amount": 5},
                                    {"kind": "differs", "field": "field:delivery_date", "amount": "param:new_date"},
                                ],
                                "effects": [
                                    {"kind": "set", "target": "field:delivery_date", "value": "param:new_date"}
                                ],
                            },
                        ],
                    },
                },
                {
                    "name": "refund",
                    "id_prefix": "RF",
                    "references": [{"entity": "order", "role": "owner"}],
                    "attributes": [{"name": "amount", "kind": "money", "range": [1, 40]}],
                },
            ],
        }
    )


@pytest.fixture(scope="module")
def env() -> Any:
    return generate_env(shop(), seed=3)


def test_every_rule_kind_is_admitted_by_the_gate(env):
    report = probe_env(shop(), env.spec, env.meta, seed=3)
    assert report.rejected == {}
    assert report.guards_checked >= 6


def _row(env: Any, table: str, **where: Any) -> dict[str, Any]:
    return next(r for r in env.spec.seed[table] if all(r[k] == v for k, v in where.items()))


def test_rules_refuse_with_messages_naming_values(env):
    ep = Environment(env.spec).episode()
    in_store = _row(env, "orders", status="placed", channel="in_store")
    with pytest.raises(StateError, match=r"channel of order .* is in_store"):
        ep.call_tool("cancel_order", {"order_id": in_store["order_id"], "customer_id": in_store["customer_id"]})
    delivered = next(
        r for r in env.spec.seed["orders"] if r["status"] == "delivered" and r["delivered_at"] > "2026-02-01"
    )
    args = {"order_id": delivered["order_id"], "customer_id": delivered["customer_id"]}
    refunded = sum(r["amount"] for r in env.spec.seed["refunds"] if r["order_id"] == delivered["order_id"])
    with pytest.raises(StateError, match="would exceed"):
        ep.call_tool("request_refund_order", {**args, "amount": round(delivered["amount_paid"] - refunded + 1, 2)})
    before = ep.serialize()
    ep.call_tool("request_refund_order", {**args, "amount": 0.5})
    assert ep.serialize() != before


def test_the_oracle_agrees_with_the_sql_on_every_seed_row(env):
    """For each rule and seed row, the Python prediction and the tool's answer are the same."""
    from synthesis.gate.oracle import Oracle

    d = shop()
    oracle = Oracle(d, env.spec)
    order = d.entity("order")
    assert order.lifecycle is not None
    checked = 0
    for t in order.lifecycle.transitions:
        tool = f"{t.name}_order"
        for row in env.spec.seed["orders"]:
            args: dict[str, Any] = {"order_id": row["order_id"], "customer_id": row["customer_id"]}
            if t.name == "request_refund":
                args["amount"] = 25.0
            if t.name == "reschedule":
                args["new_date"] = "2026-03-20"
            predicted = row["status"] in t.from_states and all(
                oracle.holds(g, order, row, args) for g in t.guards if g.kind != "owner"
            )
            ep = Environment(env.spec).episode()
            try:
                ep.call_tool(tool, args)
                happened = True
            except StateError:
                happened = False
            assert happened == predicted, (tool, row)
            checked += 1
    assert checked > 50


def test_rule_kinds_become_refusal_tasks(env):
    tasks, _ = generate_tasks(shop(), env.spec, env.meta, count=30, seed=3)
    assert check_env(env.spec, tasks).ok
    refused = [t for t in tasks if "refusal" in t.tags]
    assert refused and all(r.reason for t in refused for r in t.refusals)
    descriptions = " ".join(t.description for t in env.spec.tools)
    assert "within the last 30 days" in descriptions and "at most 2 cancelled orders per" in descriptions
