"""One real thing recorded many times (measure 45): two live returns of one order, two active
subscriptions of one account; a cancelled return, a purchase of two units returned twice, claims on a
standing policy, a subscription of each of two packages are no excess."""

from __future__ import annotations

import copy
from typing import Any

from envs.catalog import CatalogEntry
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.one_off import OneOffRules, done_once, held_one_at_a_time, recorded_many_times

from ..specs import SHOP


def _table(name: str, columns: list[tuple[str, str]], parents: dict[str, str]) -> dict[str, Any]:
    key = ("policy" if name == "policies" else name.removesuffix("s")) + "_id"
    return {
        "name": name,
        "primary_key": [key],
        "columns": [{"name": key, "type": "text"}]
        + [{"name": n, "type": t, "nullable": True} for n, t in columns]
        + [{"name": c, "type": "text"} for c in parents],
        "foreign_keys": [{"columns": [c], "table": t, "references": [c]} for c, t in parents.items()],
    }


TABLES = [
    _table("return_requests", [("status", "text")], {"order_id": "orders"}),
    _table("purchases", [("quantity", "integer")], {"account_id": "accounts"}),
    _table("exchanges", [], {"purchase_id": "purchases"}),
    _table("policies", [], {"account_id": "accounts"}),
    _table("insurance_claims", [("status", "text")], {"policy_id": "policies"}),
    _table("packages", [], {}),
    _table("subscriptions", [("plan", "text"), ("status", "text")], {"account_id": "accounts"}),
    _table("package_subscriptions", [("status", "text")], {"account_id": "accounts", "package_id": "packages"}),
]
SEED: dict[str, list[dict[str, Any]]] = {
    "return_requests": [
        {"return_request_id": "R1", "order_id": "O1", "status": "requested"},
        {"return_request_id": "R2", "order_id": "O1", "status": "refunded"},  # O1 returned twice
        {"return_request_id": "R3", "order_id": "O2", "status": "cancelled"},  # called off: room for R4
        {"return_request_id": "R4", "order_id": "O2", "status": "approved"},
    ],
    "purchases": [
        {"purchase_id": "P1", "account_id": "U1", "quantity": 2},
        {"purchase_id": "P2", "account_id": "U1", "quantity": None},
    ],
    "exchanges": [
        {"exchange_id": "X1", "purchase_id": "P1"},
        {"exchange_id": "X2", "purchase_id": "P1"},  # two units bought: two exchanges
        {"exchange_id": "X3", "purchase_id": "P2"},
        {"exchange_id": "X4", "purchase_id": "P2"},  # one unit: exchanged twice
    ],
    "policies": [{"policy_id": "PO1", "account_id": "U1"}],
    "insurance_claims": [{"insurance_claim_id": f"IC{i}", "policy_id": "PO1", "status": "submitted"} for i in range(3)],
    "packages": [{"package_id": "K1"}, {"package_id": "K2"}],
    "subscriptions": [
        {"subscription_id": "S1", "account_id": "U1", "plan": "basic", "status": "active"},
        {"subscription_id": "S2", "account_id": "U1", "plan": "premium", "status": "past_due"},  # a second one held
        {"subscription_id": "S3", "account_id": "U2", "plan": "basic", "status": "active"},
        {"subscription_id": "S4", "account_id": "U2", "plan": "basic", "status": "cancelled"},
    ],
    "package_subscriptions": [
        {"package_subscription_id": "PS1", "account_id": "U1", "package_id": "K1", "status": "active"},
        {"package_subscription_id": "PS2", "account_id": "U1", "package_id": "K2", "status": "active"},
    ],
}


def spec_with(seed: dict[str, list[dict[str, Any]]]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["tables"] += copy.deepcopy(TABLES)
    spec["seed"] |= seed
    return EnvSpec.model_validate(spec)


def test_tables_are_read_from_their_names():
    assert done_once("return_requests", "purchases") and done_once("deposit_refunds", "leases")
    assert done_once("return_refunds", "return_requests") and done_once("freight_claims", "freight_shipments")
    assert not done_once("insurance_claims", "travel_policies")  # a policy is claimed on again and again
    assert not done_once("claim_documents", "insurance_claims")  # a claim has many documents
    assert held_one_at_a_time("streaming_subscriptions") and held_one_at_a_time("benefit_claims")
    assert not held_one_at_a_time("insurance_claims") and not held_one_at_a_time("loans")
    rules = OneOffRules(spec_with({}))
    assert [(r.child, r.parent, r.quantity) for r in rules.once] == [
        ("return_requests", "orders", None),
        ("exchanges", "purchases", "quantity"),
    ]
    assert [(r.table, r.key) for r in rules.held] == [
        ("subscriptions", ("account_id",)),
        ("package_subscriptions", ("account_id", "package_id")),
    ]


def test_acts_beyond_their_things_room_and_second_held_records_are_counted():
    counts = recorded_many_times(spec_with(copy.deepcopy(SEED)))
    # checked: O1, O2 (returns), P1, P2 (exchanges), U1, U2 (subscriptions), U1-K1, U1-K2 (packages)
    # beyond: O1 returned twice, P2 exchanged twice for one unit, U1 holding two subscriptions
    assert (counts.one_off_groups_checked, counts.one_off_recorded_many_times) == (8, 3)


def test_a_write_that_records_one_thing_again_is_named():
    rules = OneOffRules(spec_with({}))
    before = {"orders": SHOP["seed"]["orders"], "return_requests": [SEED["return_requests"][0]]}
    again = {**before, "return_requests": SEED["return_requests"][:2]}
    other = {**before, "return_requests": [SEED["return_requests"][0], SEED["return_requests"][3]]}
    assert rules.new_excess(before, again) == ["return_requests.order_id O1 recorded more than once"]
    assert rules.new_excess(before, other) == []  # a first return of O2
    assert rules.read_tables({"return_requests"}) == {"return_requests", "orders"}
    assert rules.read_tables({"accounts"}) == set()


def test_the_report_counts_the_seed():
    spec = spec_with(copy.deepcopy(SEED))
    counts = env_quality(CatalogEntry(spec=spec, tasks=[])).counts
    assert (counts.one_off_groups_checked, counts.one_off_recorded_many_times) == (8, 3)
