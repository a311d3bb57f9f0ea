"""Rows with no record the domain implies (measure 79): a meal-kit box of a subscriber and plan with no
subscription of theirs; and the seed rule that keeps them (``synthesis.domains.implied_parents``)."""

from __future__ import annotations

from typing import Any

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.implied_parents import Implied, implied_arrangements, rows_without_arrangement
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.implied_parents import settle_implied_parents
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def domains() -> dict[str, Any]:
    return {d.id: d for d in load_ontology()}


def generated(domains: dict[str, Any], name: str) -> EnvSpec:
    return generate_env(assign_enforcement(domains[name]), seed=0).spec


def test_a_standing_arrangement_of_two_records_implies_one_for_the_rows_of_the_same_two(domains):
    assert implied_arrangements(generated(domains, "meal_kit_subscriptions")) == [
        Implied("weekly_boxes", "delivery_date", "subscriptions", "started_on", ("meal_plan_id", "subscriber_id"))
    ]
    # a hold of a subscription is part of it, not an arrangement between two records standing alone
    assert implied_arrangements(generated(domains, "newspaper_home_delivery")) == []


def test_generated_boxes_go_out_under_a_subscription_started_by_their_date(domains):
    counts = rows_without_arrangement(generated(domains, "meal_kit_subscriptions"))
    assert counts.implied_rows_checked > 30
    # one box the weekly spacing (measure 77) moved a day before its subscription began
    assert counts.rows_without_arrangement <= 1


def test_a_box_of_a_plan_the_subscriber_never_held_is_counted_and_moved(domains):
    spec = generated(domains, "meal_kit_subscriptions")
    held = {(s["subscriber_id"], s["meal_plan_id"]) for s in spec.seed["subscriptions"]}
    other = next(p["meal_plan_id"] for p in spec.seed["meal_plans"] if p["meal_plan_id"] != "MP0001")
    box = next(b for b in spec.seed["weekly_boxes"] if (b["subscriber_id"], other) not in held)
    before = rows_without_arrangement(spec).rows_without_arrangement
    box["meal_plan_id"] = other
    assert rows_without_arrangement(spec).rows_without_arrangement == before + 1
    assert settle_implied_parents(spec) >= 1
    assert rows_without_arrangement(spec).rows_without_arrangement == 0
    if box in spec.seed["weekly_boxes"]:  # moved, not dropped: under one of its subscriber's subscriptions
        assert (box["subscriber_id"], box["meal_plan_id"]) in held
