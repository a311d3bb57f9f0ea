"""The gaming agents on a dual-control task: the gold replayed with each call made by its actor earns
the reward, and no adversary (each acts as the agent alone, so it never gets the user to act) earns
it where the fault is on the user's side."""

from __future__ import annotations

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.quality.adversaries import ADVERSARIES
from envs.quality.gaming import play

from ..engine.test_dual_control import PHONE, TASK


def test_the_oracle_earns_the_reward_and_no_adversary_does_without_the_user():
    env = Environment(EnvSpec.model_validate(PHONE))
    task = Task.model_validate(TASK)
    assert play("oracle", env, task) == 1.0
    earned = {name: play(name, env, task) for name in ADVERSARIES}
    assert earned and all(reward == 0.0 for reward in earned.values()), earned
