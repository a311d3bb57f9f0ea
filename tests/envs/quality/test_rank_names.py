"""Measure 111: a record named by a rank ("my most expensive membership") where a name of its own (its
plan, its car, its day) tells it apart from the user's other records; recency is how people talk."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from envs import Task
from envs.formats.spec import EnvSpec
from envs.formats.task import ToolCall, UserProfile
from envs.quality.rank_names import names_by_rank, rank_name_counts
from envs.quality.spec import Ownership
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@functools.cache
def _spec() -> EnvSpec:
    return generate_env({d.id: d for d in load_ontology()}["car_wash_memberships"], seed=0).spec


def _membership(key: str, vehicle: str, plan: str, fee: float, billing: str) -> dict[str, Any]:
    return {
        "wash_membership_id": key,
        "member_id": "M1",
        "member_vehicle_id": vehicle,
        "plan": plan,
        "monthly_fee": fee,
        "next_billing_date": billing,
        "status": "active",
    }


def _counts(instruction: str, memberships: list[dict[str, Any]]) -> tuple[int, int]:
    spec = _spec()
    rows: dict[str, list[dict[str, Any]]] = {t.name: [] for t in spec.tables}
    rows["members"] = [{"member_id": "M1", "full_name": "Ana Ruiz", "email": "ana@example.com"}]
    rows["member_vehicles"] = [
        {"member_vehicle_id": "V1", "member_id": "M1", "plate_number": "7ABC123", "make": "honda"},
        {"member_vehicle_id": "V2", "member_id": "M1", "plate_number": "8XYZ987", "make": "tesla"},
    ]
    rows["wash_memberships"] = memberships
    dearest = max(memberships, key=lambda r: r["monthly_fee"])
    task = Task(
        id="t-1",
        env=spec.id,
        instruction=instruction,
        user=UserProfile(),
        gold_actions=[
            ToolCall(tool="pause_wash_membership", arguments={"wash_membership_id": dearest["wash_membership_id"]})
        ],
    )
    found = rank_name_counts(spec, [task], Ownership.of(spec).state(rows))
    return found.rank_named_tasks, found.rank_named_with_name


def test_a_rank_over_records_a_name_tells_apart_is_counted() -> None:
    apart = [
        _membership("W1", "V1", "basic", 20.0, "2026-04-01"),
        _membership("W2", "V2", "ultimate", 40.0, "2026-04-01"),
    ]
    assert _counts("Hi. Please pause my most expensive membership. I'm away.", apart) == (1, 1)
    # the same plan and billing day, but on another car: "my membership for the Tesla" still names it
    cars = [_membership("W1", "V1", "basic", 20.0, "2026-04-01"), _membership("W2", "V2", "basic", 40.0, "2026-04-01")]
    assert _counts("Please pause my membership that costs the most per month.", cars) == (1, 1)


def test_a_rank_is_not_counted_where_nothing_else_tells_the_records_apart() -> None:
    twins = [_membership("W1", "V1", "basic", 20.0, "2026-04-01"), _membership("W2", "V1", "basic", 40.0, "2026-04-01")]
    assert _counts("Please pause my most expensive membership.", twins) == (1, 0)


@pytest.mark.parametrize(
    ("text", "ranked"),
    [
        ("Please cancel my cheapest membership.", True),
        ("Please move my booking with the earliest check-in date by 2 days.", True),
        ("It is for the most expensive oxygen concentrator equipment model.", True),
        ("Please renew my loan that is due first.", True),
        ("Please file the protection claim for my most recent purchase.", False),  # recency: how people say it
        ("It is for the earliest clinic session on or after June 5.", False),  # the first after a day
        ("Please pause my deluxe membership for the Tesla.", False),
        ("It is the most I can pay this month.", False),
    ],
)
def test_which_words_name_a_record_by_rank(text: str, ranked: bool) -> None:
    assert names_by_rank(text) is ranked
