"""Confirmations: an action the customer must agree to says what it would do and waits for
confirm=true; tasks where the user agrees only if no fee applies."""

from __future__ import annotations

import re
from datetime import timedelta
from functools import cache
from typing import Any

import pytest

from envs import Environment
from envs.errors import StateError
from synthesis.domains.ontology import load_ontology
from synthesis.gate.probe import probe_env
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.confirm import NOT_YET
from synthesis.tools.envgen import GeneratedEnv, generate_env


@cache
def _airline() -> GeneratedEnv:
    return generate_env(next(d for d in load_ontology() if d.id == "airline_rebooking"), seed=0)


def _cancellable(g: GeneratedEnv) -> list[dict[str, Any]]:
    """Confirmed bookings whose flight leaves more than 3 hours from now (the cancel rule)."""
    later = (g.spec.clock + timedelta(hours=3)).strftime("%Y-%m-%d %H:%M:%S")
    departs = {f["flight_id"]: f["departs_at"] for f in g.spec.seed["flights"]}
    return [b for b in g.spec.seed["bookings"] if b["status"] == "confirmed" and departs[b["flight_id"]] > later]


def test_without_confirmation_nothing_changes_and_the_error_says_what_would_happen() -> None:
    g = _airline()
    env = Environment(g.spec)
    tool = g.spec.tool("cancel_booking")
    assert tool is not None and "confirm" in tool.required_params
    soon = (g.spec.clock + timedelta(hours=24)).strftime("%Y-%m-%d %H:%M:%S")
    departs = {f["flight_id"]: f["departs_at"] for f in g.spec.seed["flights"]}
    fees = set()
    for booking in _cancellable(g):
        args = {"booking_id": booking["booking_id"], "passenger_id": booking["passenger_id"]}
        ep = env.episode()
        before = ep.serialize()
        with pytest.raises(StateError, match=NOT_YET) as refused:
            ep.call_tool("cancel_booking", {**args, "confirm": False})
        assert ep.serialize() == before
        message = str(refused.value)
        fee = 50 if departs[booking["flight_id"]] <= soon else 0  # the 50.00 kept within 24 hours
        assert f"{booking['fare_paid']} is added to the travel credit" in message
        assert f"{fee} is taken from the travel credit" in message
        fees.add(fee)
        ep.call_tool("cancel_booking", {**args, "confirm": True})
        after = ep.rows_by_key("bookings", [(booking["booking_id"],)])[(booking["booking_id"],)]
        assert after is not None and after["status"] == "cancelled"
    assert fees == {0, 50}


def test_a_rule_that_refuses_is_reported_before_any_confirmation() -> None:
    g = _airline()
    booking = next(b for b in g.spec.seed["bookings"] if b["status"] == "cancelled")
    ep = Environment(g.spec).episode()
    with pytest.raises(StateError) as refused:
        ep.call_tool(
            "cancel_booking",
            {"booking_id": booking["booking_id"], "passenger_id": booking["passenger_id"], "confirm": False},
        )
    assert NOT_YET not in str(refused.value) and "cancelled" in str(refused.value)


def test_the_gate_checks_confirmations_and_gold_calls_carry_them() -> None:
    domain = next(d for d in load_ontology() if d.id == "ferry_vehicle_crossings")
    g = generate_env(domain, seed=0)
    assert probe_env(domain, g.spec, g.meta, seed=0).rejected == {}
    tasks, _ = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)
    confirmed = [c for t in tasks for c in t.gold_actions if c.tool == "cancel_ferry_booking"]
    assert confirmed and all(c.arguments["confirm"] is True for c in confirmed)


def test_a_user_who_agrees_only_without_a_fee_keeps_the_booking_when_one_applies() -> None:
    domain = next(d for d in load_ontology() if d.id == "ferry_vehicle_crossings")
    g = generate_env(domain, seed=0)
    env = Environment(g.spec)
    tasks, _ = generate_tasks(domain, g.spec, g.meta, count=30, seed=0)
    # a task may refuse another request beside a conditional cancel that had no fee and went ahead
    conditional = [
        t
        for t in tasks
        if "If there's a fee" in t.instruction and any(r.request.startswith("cancel") for r in t.refusals)
    ]
    assert conditional
    for task in conditional:
        assert [r.reason for r in task.refusals] == [["25"]]  # the fee kept within 72 hours of departure
        kept = [a for a in task.assertions if "is still" in a.description and "other" not in a.description][-1]
        booking_id = re.search(r"ferry_booking_id = '(\w+)'", kept.sql)
        assert booking_id is not None
        assert all(c.tool != "cancel_ferry_booking" for c in task.gold_actions)  # the other request is another action
        ep = env.episode(task)
        ep.replay(task.gold_actions)  # another request of the user's is carried out beside it
        assert (booking_id.group(1),) not in ep.changed_keys().get("ferry_bookings", set())
        row = next(b for b in g.spec.seed["ferry_bookings"] if b["ferry_booking_id"] == booking_id.group(1))
        args = {"ferry_booking_id": row["ferry_booking_id"], "account_holder_id": row["account_holder_id"]}
        with pytest.raises(StateError, match="25 is taken from the ferry credit"):
            env.episode().call_tool("cancel_ferry_booking", {**args, "confirm": False})
