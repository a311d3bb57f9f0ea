"""Tools with a list argument: several items of one record at once, all or nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from envs import Environment, check_env
from envs.errors import StateError
from synthesis.domains.ontology import load_ontology
from synthesis.gate.probe import probe_env
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def bike() -> Any:
    for domain in load_ontology():  # the first domain with items a bulk tool acts on
        g = generate_env(domain, seed=0)
        if any(_is_bulk(t) for t in g.spec.tools):
            return domain, g
    raise AssertionError("no domain has a bulk tool")


def _is_bulk(tool: Any) -> bool:
    return any(p.get("type") == "array" for p in tool.parameters["properties"].values())


def _bulk(spec: Any) -> Any:
    return next(t for t in spec.tools if _is_bulk(t))


def test_items_of_one_record_move_together_or_not_at_all(bike):
    _, g = bike
    tool = _bulk(g.spec)
    items_param = next(n for n, p in tool.parameters["properties"].items() if p.get("type") == "array")
    parent_col = tool.parameters["required"][0]
    item_table = next(t for t in g.spec.tables if t.primary_key[0] == items_param.removesuffix("s"))
    rows = g.spec.seed[item_table.name]
    by_parent: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_parent.setdefault(r[parent_col], []).append(r)
    env = Environment(g.spec)
    parent_table = next(t for t in g.spec.tables if t.primary_key[0] == parent_col)
    owner_col = next(c for c in tool.parameters["required"] if c not in (parent_col, items_param))
    moved = refused = 0
    for parent_id, items in by_parent.items():
        parent = next(p for p in g.spec.seed[parent_table.name] if p[parent_col] == parent_id)
        args = {
            parent_col: parent_id,
            owner_col: parent[owner_col],
            items_param: [i[item_table.primary_key[0]] for i in items],
        }
        ep = env.episode()
        before = ep.serialize()
        try:
            result = ep.call_tool(tool.name, args)
            moved += 1
            assert len(result.content) == len(items)
        except StateError as exc:
            refused += 1
            assert ep.serialize() == before, exc  # all or nothing
    assert moved and refused
    # an item of another record is refused, naming the list
    a, b = list(by_parent)[:2]
    parent = next(p for p in g.spec.seed[parent_table.name] if p[parent_col] == a)
    foreign = by_parent[b][0][item_table.primary_key[0]]
    with pytest.raises(StateError, match="Not every id"):
        env.episode().call_tool(tool.name, {parent_col: a, owner_col: parent[owner_col], items_param: [foreign]})


def test_bulk_tools_pass_the_gate_and_appear_in_verified_tasks(bike):
    domain, g = bike
    report = probe_env(domain, g.spec, g.meta, seed=0)
    assert report.rejected == {}
    tool = _bulk(g.spec)
    tasks, _ = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)
    using = [t for t in tasks if any(c.tool == tool.name for c in t.gold_actions)]
    assert using
    assert check_env(g.spec, using).ok
    assert all(
        len(c.arguments[next(iter(k for k, v in c.arguments.items() if isinstance(v, list)))]) >= 2
        for t in using
        for c in t.gold_actions
        if c.tool == tool.name
    )


def test_a_rule_about_the_parent_is_checked_once_for_all_items():
    """household_moving_jobs: damage to items is reported only for a completed move, within its window."""
    domain = next(d for d in load_ontology() if d.id == "household_moving_jobs")
    g = generate_env(domain, seed=0)
    tool = next(t for t in g.spec.tools if _is_bulk(t))
    parent_checks = [s for s in tool.steps if s.kind == "require" and ":parent." in s.sql and "IS :" not in s.sql]
    assert parent_checks
    items_param = next(n for n, p in tool.parameters["properties"].items() if p.get("type") == "array")
    parent_col = tool.parameters["required"][0]
    item_table = next(t for t in g.spec.tables if t.primary_key[0] == items_param.removesuffix("s"))
    parent_table = next(t for t in g.spec.tables if t.primary_key[0] == parent_col)
    env = Environment(g.spec)
    owner_col = next(c for c in tool.parameters["required"] if c not in (parent_col, items_param))
    refused = 0
    for parent in g.spec.seed[parent_table.name]:
        items = [i for i in g.spec.seed[item_table.name] if i[parent_col] == parent[parent_col]]
        if not items or parent["status"] == "completed":
            continue
        ep = env.episode()
        with pytest.raises(StateError, match="which does not allow this"):
            ep.call_tool(
                tool.name,
                {
                    parent_col: parent[parent_col],
                    owner_col: parent[owner_col],
                    items_param: [items[0][item_table.primary_key[0]]],
                },
            )
        refused += 1
    assert refused


def test_effects_on_referenced_records_add_up_over_the_items():
    """physical_therapy_sessions: cancelling sessions gives each one's visit back to the care plan."""
    domain = next(d for d in load_ontology() if d.id == "physical_therapy_sessions")
    g = generate_env(domain, seed=0)
    env = Environment(g.spec)
    by_plan: dict[str, list[dict[str, Any]]] = {}
    cancellable = (g.spec.clock + timedelta(hours=24)).strftime("%Y-%m-%d %H:%M:%S")  # "more than 24 hours away"
    for s in g.spec.seed["therapy_sessions"]:
        if s["status"] == "booked" and s["scheduled_at"] > cancellable:
            by_plan.setdefault(s["care_plan_id"], []).append(s)
    plan_id, sessions = next((p, s) for p, s in by_plan.items() if len(s) >= 2)
    plan = next(p for p in g.spec.seed["care_plans"] if p["care_plan_id"] == plan_id)
    ep = env.episode()
    ids = [s["therapy_session_id"] for s in sessions[:2]]
    ep.call_tool(
        "cancel_therapy_sessions",
        {"care_plan_id": plan_id, "therapy_session_ids": ids, "patient_id": plan["patient_id"]},
    )
    after = ep.rows_by_key("care_plans", [(plan_id,)])[(plan_id,)]
    assert after is not None and after["authorized_visits"] == plan["authorized_visits"] + 2


def test_a_rule_about_each_items_own_reference_is_checked_per_item():
    """rail_pass_reservations: a seat whose train leaves within 2 hours (or left) cannot be cancelled,
    and one such seat in the list refuses the whole call."""
    domain = next(d for d in load_ontology() if d.id == "rail_pass_reservations")
    g = generate_env(domain, seed=0)
    env = Environment(g.spec)
    soon = (g.spec.clock + timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S")
    departs = {t["train_id"]: t["departs_at"] for t in g.spec.seed["trains"]}
    booked = [r for r in g.spec.seed["seat_reservations"] if r["status"] in ("booked", "reserved", "confirmed")]
    by_pass: dict[str, list[dict[str, Any]]] = {}
    for r in booked:
        by_pass.setdefault(r["rail_pass_id"], []).append(r)
    passes = {p["rail_pass_id"]: p for p in g.spec.seed["rail_passes"]}
    mixed = next(
        (rows for rows in by_pass.values() if {departs[r["train_id"]] > soon for r in rows} == {True, False}), None
    )
    assert mixed is not None
    late = next(r for r in mixed if departs[r["train_id"]] <= soon)
    ep = env.episode()
    before = ep.serialize()
    args = {
        "rail_pass_id": late["rail_pass_id"],
        "traveller_id": passes[late["rail_pass_id"]]["traveller_id"],
        "seat_reservation_ids": [r["seat_reservation_id"] for r in mixed],
    }
    lates = "|".join(r["seat_reservation_id"] for r in mixed if departs[r["train_id"]] <= soon)
    with pytest.raises(StateError, match=rf"({lates}) does not allow this \(future on its train\)"):
        ep.call_tool("cancel_seat_reservations", args)
    assert ep.serialize() == before


def test_a_balance_the_items_share_must_cover_their_sum():
    """security_deposit_settlement: accepting several deductions at once needs the deposit held to
    cover them together, and takes their sum from it."""
    domain = next(d for d in load_ontology() if d.id == "security_deposit_settlement")
    g = generate_env(domain, seed=0)
    deduction = domain.entity("deduction")
    assert deduction.lifecycle is not None
    accept = next(t for t in deduction.lifecycle.transitions if t.name == "accept")
    tool = g.spec.tool("accept_deductions")
    assert tool is not None
    env = Environment(g.spec)
    outcomes = set()
    for lease in g.spec.seed["leases"]:
        allowed = [
            i
            for i in g.spec.seed["deductions"]
            if i["lease_id"] == lease["lease_id"] and i["status"] in accept.from_states
        ]
        if len(allowed) < 2:
            continue
        total = round(sum(i["amount"] for i in allowed), 2)
        args = {
            "lease_id": lease["lease_id"],
            "tenant_id": lease["tenant_id"],
            "deduction_ids": [i["deduction_id"] for i in allowed],
        }
        ep = env.episode()
        if lease["deposit_held"] >= total:
            ep.call_tool(tool.name, args)
            after = ep.rows_by_key("leases", [(lease["lease_id"],)])[(lease["lease_id"],)]
            assert after is not None and abs(after["deposit_held"] - round(lease["deposit_held"] - total, 2)) < 0.005
            outcomes.add("covered")
        else:
            before = ep.serialize()
            with pytest.raises(StateError, match="does not cover"):
                ep.call_tool(tool.name, args)
            assert ep.serialize() == before
            outcomes.add("refused")
    assert outcomes


def test_an_item_limit_per_record_counts_the_listed_items():
    """phone_bill_disputes: at most 2 charges of one bill in dispute at a time, the listed ones
    included; a third is refused with nothing changed."""
    domain = next(d for d in load_ontology() if d.id == "phone_bill_disputes")
    g = generate_env(domain, seed=0)
    env = Environment(g.spec)
    bills = {b["monthly_bill_id"]: b for b in g.spec.seed["monthly_bills"]}
    by_bill: dict[str, list[dict[str, Any]]] = {}
    for c in g.spec.seed["bill_charges"]:
        if c["status"] == "billed" and c["charge_type"] != "equipment":
            by_bill.setdefault(c["monthly_bill_id"], []).append(c)
    disputed = {
        b: sum(1 for c in g.spec.seed["bill_charges"] if c["monthly_bill_id"] == b and c["status"] == "disputed")
        for b in bills
    }
    outcomes = set()
    for bill_id, charges in by_bill.items():
        if len(charges) < 2:
            continue
        ids = [c["bill_charge_id"] for c in charges[:3]]
        args = {
            "monthly_bill_id": bill_id,
            "account_holder_id": bills[bill_id]["account_holder_id"],
            "bill_charge_ids": ids,
            "reason": "Never used roaming",
        }
        ep = env.episode()
        if disputed[bill_id] + len(ids) <= 2:
            ep.call_tool("dispute_bill_charges", args)
            statuses = [ep.rows_by_key("bill_charges", [(i,)])[(i,)]["status"] for i in ids]  # type: ignore[index]
            assert statuses == ["disputed"] * len(ids)
            outcomes.add("within")
        else:
            before = ep.serialize()
            with pytest.raises(StateError, match="may have at most 2 bill charges disputed"):
                ep.call_tool("dispute_bill_charges", args)
            assert ep.serialize() == before
            outcomes.add("over")
    assert outcomes == {"within", "over"}


def test_each_item_gets_its_own_refund_to_the_card_the_order_was_paid_with():
    """click_and_collect_pickups: reporting two missing lines inserts two refunds, each of its line's
    price, to the order's card even when the customer has other cards."""
    domain = next(d for d in load_ontology() if d.id == "click_and_collect_pickups")
    # missing lines now sit only under collected orders, so an order with none takes more seeds to find
    found = (_collected_order_with_two_lines(generate_env(domain, seed=seed)) for seed in range(60))
    g, order, lines = next(f for f in found if f is not None)
    env = Environment(g.spec)
    chosen = [line for line in lines if line["status"] == "packed"][:2]
    ep = env.episode()
    before = {r["store_refund_id"] for r in ep.dump("store_refunds")}
    ep.call_tool(
        "report_missing_order_lines",
        {
            "pickup_order_id": order["pickup_order_id"],
            "customer_id": order["customer_id"],
            "order_line_ids": [line["order_line_id"] for line in chosen],
        },
    )
    new = [r for r in ep.dump("store_refunds") if r["store_refund_id"] not in before]
    assert sorted(r["amount"] for r in new) == sorted(line["line_price"] for line in chosen)
    assert {r["payment_card_id"] for r in new} == {order["payment_card_id"]}
    assert {r["customer_id"] for r in new} == {order["customer_id"]}


def _collected_order_with_two_lines(g: Any) -> tuple[Any, dict[str, Any], list[dict[str, Any]]] | None:
    """A collected order of a customer with several cards, two packed lines its total covers."""
    cards_of: dict[str, set[str]] = {}
    for card in g.spec.seed["payment_cards"]:
        cards_of.setdefault(card["customer_id"], set()).add(card["payment_card_id"])
    for o in g.spec.seed["pickup_orders"]:
        lines = [line for line in g.spec.seed["order_lines"] if line["pickup_order_id"] == o["pickup_order_id"]]
        packed = [line for line in lines if line["status"] == "packed"]
        if (
            o["status"] == "collected"
            and len(cards_of[o["customer_id"]]) > 1
            and len(packed) >= 2
            and not any(line["status"] == "reported_missing" for line in lines)
            and o["order_total"] >= sum(line["line_price"] for line in packed[:2])
        ):
            return g, o, lines
    return None
