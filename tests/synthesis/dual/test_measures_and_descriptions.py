"""The measures of how much work is the customer's, and the checks a domain description gets."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from pydantic import ValidationError

from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from synthesis.dual import DualDomain, build_dual_envs, dual_control_measures, total_measures
from synthesis.dual.devices.home import HOME_INTERNET

from ...envs.engine.test_dual_control import PHONE, TASK


def test_measures_count_the_customers_calls_and_the_tasks_that_need_them():
    spec = EnvSpec.model_validate(PHONE)
    agent_only = Task.model_validate({**TASK, "id": "t2", "gold_actions": TASK["gold_actions"][:2]})
    m = dual_control_measures(spec, [Task.model_validate(TASK), agent_only])
    assert m["tasks"] == 2 and m["tasks_needing_user_actions"] == 1 and m["share_needing_user_actions"] == 0.5
    assert m["user_actions_per_task"] == 1.0  # two calls in the first task, none in the second
    assert m["user_writes_per_task"] == 0.5 and m["agent_actions_per_task"] == 2.0
    assert m["user_tables"] == 1 and m["user_tools"] == 2
    assert dual_control_measures(spec, [])["share_needing_user_actions"] == 0.0


def test_the_catalogs_figures():
    per_env = [dual_control_measures(spec, tasks) for spec, tasks in build_dual_envs(check=False)]
    total = total_measures(per_env)
    assert total["envs"] >= 12 and total["tasks"] == sum(m["tasks"] for m in per_env)
    # a third of the tasks break only the service: the rest need the customer to act
    assert total["share_needing_user_actions"] == pytest.approx(2 / 3, abs=0.01)
    assert 3 <= total["user_actions_per_task"] <= 5
    # the figures docs/synthesis.md states ("Dual-control domains") are these
    docs = (Path(__file__).resolve().parents[3] / "docs" / "synthesis.md").read_text(encoding="utf-8")
    share = 100 * total["share_needing_user_actions"]
    stated = (
        f"{total['envs']} environments, {total['tasks']} tasks, {total['tasks_needing_user_actions']} ({share:.1f} %)"
    )
    assert stated in docs
    assert f"{total['user_actions_per_task']:.2f} gold calls a task" in docs
    assert f"the agent {total['agent_actions_per_task']:.2f}" in docs


def _broken(change) -> dict:
    data = copy.deepcopy(HOME_INTERNET)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["faults"][0].update(symptom="it's dead"), "plain words"),
        (lambda d: d["faults"][1].update(bad="plugged"), "two different values"),
        (lambda d: d["faults"][0].update(bad="off"), "two different values"),
        (
            lambda d: d.update(faults=[f for f in d["faults"] if f["side"] == "agent" or f["id"] == "wifi_radio_off"]),
            "at least two faults on the user's side",
        ),
        (lambda d: d["faults"][1].update(fix_tool="toggle_router_wifi"), "tool names repeat"),
        (lambda d: d["faults"][1].update(column="wifi_enabled"), "share a column"),
        (lambda d: d["device"].update(table="subscriptions"), "tables of their own"),
    ],
)
def test_a_description_that_does_not_hold_together_is_refused(change, message):
    with pytest.raises(ValidationError, match=message):
        DualDomain.model_validate(_broken(change))
