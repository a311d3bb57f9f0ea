"""A field the user may change is changed only in the states the domain allows (delivery instructions
until the order is picked), the tool refuses it in the others, the status table lists the change in
the states that allow it, and no task asks for it in the others."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from envs import Environment
from envs.errors import StateError
from synthesis.domains.domain import Domain, Entity
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

TOOL = "update_grocery_order_delivery_instructions"


@pytest.fixture(scope="module")
def grocery() -> tuple[Domain, Any]:
    domain = next(d for d in load_ontology() if d.id == "grocery_delivery")
    return domain, generate_env(domain, seed=1)


def _order(env: Any, status: str) -> dict[str, Any]:
    return next(r for r in env.spec.seed["grocery_orders"] if r["status"] == status)


def test_the_update_tool_refuses_outside_its_states_and_changes_nothing(grocery):
    _, env = grocery
    ep = Environment(env.spec).episode()
    delivered = _order(env, "delivered")
    args = {
        "grocery_order_id": delivered["grocery_order_id"],
        "shopper_id": delivered["shopper_id"],
        "delivery_instructions": "Leave it with the neighbour",
    }
    before = ep.serialize()
    with pytest.raises(StateError, match=r"is delivered; its delivery instructions can be changed only while"):
        ep.call_tool(TOOL, args)
    assert ep.serialize() == before
    placed = _order(env, "placed")
    ep.call_tool(TOOL, {**args, "grocery_order_id": placed["grocery_order_id"], "shopper_id": placed["shopper_id"]})
    assert ep.serialize() != before


def test_the_policy_says_when_a_field_can_be_changed(grocery):
    _, env = grocery
    policy = env.spec.policy
    assert (
        f"- `{TOOL}`: Change the delivery instructions of a grocery order. Allowed only when the grocery order is placed or picking."
        in policy
    )
    rows = {
        line.split("|")[1].strip(" `"): line.split("|")[3].strip()
        for line in policy.splitlines()
        if line.startswith("| `")
    }
    assert (
        "change the delivery instructions" in rows["placed"] and "change the delivery instructions" in rows["picking"]
    )
    assert "change the delivery instructions" not in rows["delivered"]
    # a state the business moves on from is not called final; one a customer's action ends in is
    assert rows["out_for_delivery"] == "nothing you can do at this stage"
    assert rows["cancelled"] == "nothing more can be done; it is final"


def test_no_task_changes_a_field_in_a_state_that_does_not_allow_it(grocery):
    domain, env = grocery
    tasks, _ = generate_tasks(domain, env.spec, env.meta, count=30, seed=1)
    status = {r["grocery_order_id"]: r["status"] for r in env.spec.seed["grocery_orders"]}
    edits = [a for t in tasks for a in t.gold_actions if a.tool == TOOL]
    assert edits, "the draw asks for no instruction change; pick another seed"
    # a dependent edit follows a write of the same task that may have moved the order: only seed states here
    assert all(status[a.arguments["grocery_order_id"]] in ("placed", "picking") for a in edits)


def test_default_states_are_those_a_transition_still_leaves():
    domain = next(d for d in load_ontology() if d.id == "grocery_delivery")
    order = domain.entity("grocery_order")
    note = order.attribute("delivery_instructions")
    assert note is not None and order.editable_states(note) == ["placed", "picking"]
    data = order.model_dump()
    for a in data["attributes"]:
        if a["name"] == "delivery_instructions":
            a["editable_while"] = None
    assert Entity.model_validate(data).editable_states(note.model_copy(update={"editable_while": None})) == [
        "placed",
        "delivered",
    ]


def test_an_unknown_state_is_named():
    domain = next(d for d in load_ontology() if d.id == "grocery_delivery")
    data = domain.entity("grocery_order").model_dump()
    for a in data["attributes"]:
        if a["name"] == "delivery_instructions":
            a["editable_while"] = ["shipped"]
    with pytest.raises(
        ValidationError, match=r"grocery_order\.delivery_instructions.*unknown state\(s\) \['shipped'\]"
    ):
        Entity.model_validate(data)
