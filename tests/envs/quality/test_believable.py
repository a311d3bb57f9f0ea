"""Believability measures: undated time rules, birth dates, rules phrased as columns, copied tools."""

from __future__ import annotations

import copy

from envs.catalog import load_env
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.quality.believable import believable_counts

from ..specs import SHOP, TASK


def _spec(policy: str, rule: str, births: list[str]) -> EnvSpec:
    spec = copy.deepcopy(SHOP)
    spec["policy"] = policy
    spec["rules"] = [{"id": "cancel_order.0", "tool": "cancel_order", "text": rule, "enforced_by": "policy"}]
    accounts = next(t for t in spec["tables"] if t["name"] == "accounts")
    accounts["columns"].append({"name": "date_of_birth", "type": "date", "nullable": True})
    for row, born in zip(spec["seed"]["accounts"], births, strict=False):
        row["date_of_birth"] = born
    return EnvSpec.model_validate(spec)


def test_an_undated_time_rule_a_baby_and_a_column_name_are_counted():
    spec = _spec("Be nice.", "the created at must be within the last 3 days", ["2025-12-01", "1980-05-05"])
    counts = believable_counts(spec, [])
    assert (counts.time_rules, counts.undated_time_rules) == (1, 1)
    assert (counts.birth_dates_checked, counts.birth_dates_under_16) == (2, 1)
    assert (counts.rule_texts, counts.rules_phrased_as_columns) == (1, 1)


def test_a_dated_policy_with_a_rule_in_words_counts_nothing():
    spec = _spec(
        "The current time is 2026-01-15 09:00 (UTC).", "the order date must be within the last 3 days", ["1980-05-05"]
    )
    counts = believable_counts(spec, [])
    assert (counts.undated_time_rules, counts.birth_dates_under_16, counts.rules_phrased_as_columns) == (0, 0, 0)
    assert counts.policy_words == 7


def test_an_instruction_that_speaks_a_tool_description_is_counted():
    spec = load_env("retail").spec
    tool = next(t for t in spec.tools if len(t.description.split(". ")[0].split()) >= 6)
    copied = Task.model_validate({**copy.deepcopy(TASK), "env": spec.id, "instruction": tool.description})
    mine = Task.model_validate({**copy.deepcopy(TASK), "env": spec.id, "instruction": "Hi, can you help me?"})
    assert believable_counts(spec, [copied, mine]).instructions_copying_tools == 1


def test_a_reason_on_a_row_whose_status_names_another_event_is_counted():
    spec = copy.deepcopy(SHOP)
    orders = next(t for t in spec["tables"] if t["name"] == "orders")
    orders["columns"].append({"name": "cancellation_reason", "type": "text", "nullable": True})
    pending, delivered = spec["seed"]["orders"]
    pending["cancellation_reason"] = "Ordered twice by mistake"  # a pending order has no cancellation
    delivered["status"], delivered["cancellation_reason"] = "cancelled", "Found it cheaper elsewhere"
    counts = believable_counts(EnvSpec.model_validate(spec), [])
    assert (counts.event_reasons_checked, counts.event_reasons_outside_their_state) == (2, 1)
    pending["cancellation_reason"] = None
    counts = believable_counts(EnvSpec.model_validate(spec), [])
    assert (counts.event_reasons_checked, counts.event_reasons_outside_their_state) == (1, 0)
