"""A refusal on a time rule follows from the rule's words, the policy's current time and the value."""

from __future__ import annotations

import copy
from datetime import datetime

import pytest

from envs import check_env
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.grading.decidable import decide, is_time_rule, stated_now

from ..specs import SHOP
from .test_answers import REFUSED

NOW = datetime(2026, 3, 2, 9, 0)


@pytest.mark.parametrize(
    ("rule", "value", "allowed"),
    [
        ("the tour's start date must be more than 2 days away", "2026-03-03", False),
        ("the tour's start date must be more than 2 days away", "2026-03-09", True),
        ("the departure time must be more than 2 hours away", "2026-03-02 10:30", False),
        ("the departure time must be more than 2 hours away", "2026-03-02 11:30", True),
        ("the renewal date must be no more than 30 days away", "2026-06-09", False),
        ("the renewal date must be no more than 30 days away", "2026-03-20", True),
        ("the service date must be within the last 30 days", "2025-12-08", False),
        ("the service date must be within the last 30 days", "2026-02-20", True),
        ("the arrival date must have passed", "2026-05-02", False),
        ("the arrival date must have passed", "2026-02-27", True),
        ("the move date must be in the future", "2026-02-27", False),
    ],
)
def test_a_time_rule_is_decided_from_its_words(rule, value, allowed):
    assert is_time_rule(rule)
    assert decide(rule, NOW, value) is allowed


def test_a_bare_date_on_the_day_of_the_rule_edge_decides_nothing():
    assert decide("the departure time must be more than 2 hours away", NOW, "2026-03-02") is None
    assert decide("the balance must be at least 5", NOW, "2026-03-02") is None
    assert not is_time_rule("the balance must be at least 5")


def test_the_current_time_is_read_from_the_policy():
    assert stated_now("Hello.\n\nThe current time is 2026-03-02 09:00 (UTC).") == NOW
    assert stated_now("The current date is 2026-03-02.") == datetime(2026, 3, 2)
    assert stated_now("Be nice.") is None


def _spec(rule_text: str, policy: str) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["policy"] = policy
    spec["rules"] = [{"id": "cancel_order.0", "tool": "cancel_order", "text": rule_text, "enforced_by": "policy"}]
    return EnvSpec.model_validate(spec)


def test_check_env_wants_a_time_rule_decidable_from_what_the_agent_is_shown():
    task = Task.model_validate(REFUSED)  # refused: placed 2026-01-10; the shop's clock is 2026-01-15 09:00
    rule = "the order date must be within the last 3 days"
    assert check_env(_spec(rule, "The current time is 2026-01-15 09:00 (UTC)."), [task]).ok
    undated = check_env(_spec(rule, "Be nice."), [task])
    assert any("states no current time" in p.message for p in undated.problems)
    allows = check_env(
        _spec("the order date must be within the last 30 days", "The current time is 2026-01-15 09:00."), [task]
    )
    assert any("allows the action for 2026-01-10" in p.message for p in allows.problems)
