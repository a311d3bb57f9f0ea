"""The gaming agents and the quality report on a dual-control task: the gold replayed with each call
made by its actor earns the reward, no adversary (each acts as the agent alone, so it never gets the
user to act) earns it where the fault is on the user's side, and the report measures the user's share
of the work."""

from __future__ import annotations

from envs import Catalog
from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.paths import BUILTIN_CATALOG
from envs.quality.adversaries import ADVERSARIES
from envs.quality.gaming import USER_ACTS, WRITE, bench_gaming, play, task_class
from envs.quality.presentation import total_lines
from envs.quality.report import env_quality, quality_report

from ..engine.test_dual_control import PHONE, TASK, write_phone_catalog


def test_the_oracle_earns_the_reward_and_no_adversary_does_without_the_user():
    env = Environment(EnvSpec.model_validate(PHONE))
    task = Task.model_validate(TASK)
    assert play("oracle", env, task) == 1.0
    earned = {name: play(name, env, task) for name in ADVERSARIES}
    assert earned and all(reward == 0.0 for reward in earned.values()), earned


def test_the_quality_report_measures_how_much_of_the_work_is_the_users(tmp_path):
    write_phone_catalog(tmp_path)
    phone = env_quality(Catalog(tmp_path).get("phone_support")).counts
    assert (phone.dual_control_envs, phone.dual_tasks, phone.tasks_needing_user_writes) == (1, 1, 1)
    assert (phone.user_actions, phone.user_writes, phone.agent_actions_in_dual) == (2, 1, 2)
    assert phone.user_fault_tasks_solved_alone == 0  # without the user the phone stays in airplane mode
    assert phone.staff_tools == 0
    clinic = env_quality(Catalog(BUILTIN_CATALOG).get("clinic")).counts
    assert (clinic.dual_control_envs, clinic.dual_tasks, clinic.user_actions) == (0, 0, 0)
    report = quality_report([Catalog(tmp_path).get("phone_support"), Catalog(BUILTIN_CATALOG).get("clinic")])
    lines = dict(total_lines(report.totals, len(report.envs)))
    assert lines["dual-control tasks needing the user to act"] == "1/1"
    assert lines["user-side faults an agent alone fixes"] == "0/1"


def test_bench_gaming_puts_the_task_in_the_user_acts_class_and_never_asks_fails_it(tmp_path):
    write_phone_catalog(tmp_path)
    entry = Catalog(tmp_path).get("phone_support")
    assert task_class(entry.environment, entry.tasks[0]) == USER_ACTS
    report = bench_gaming([entry, Catalog(BUILTIN_CATALOG).get("clinic")]).as_json()
    assert report["tasks"][USER_ACTS] == 1 and "never-asks" in report["targets"]
    assert report["pass_rate"]["oracle"][USER_ACTS] == 1.0
    assert report["pass_rate"]["never-asks"][USER_ACTS] == 0.0
    assert report["pass_rate"]["never-asks"][WRITE] == 1.0  # where only the agent acts it is the oracle
