"""The Gymnasium-style adapter over REST."""

from __future__ import annotations

import pytest

from clients import FarmEnv
from clients.gym import EpisodeNotActive
from envs import Catalog

TASK = Catalog().task("clinic-001")[1]


def test_gold_actions_then_answer_earn_the_reward_at_termination(farm_url):
    env = FarmEnv(farm_url)
    with pytest.raises(EpisodeNotActive):
        env.step({"message": "hi"})
    obs = env.reset("clinic-001")
    assert obs["instruction"] == TASK.instruction and obs["policy"]
    assert "book_appointment" in {t["name"] for t in obs["tools"]}
    for action in TASK.gold_actions:
        obs, reward, terminated, truncated, info = env.step({"tool": action.tool, "arguments": action.arguments})
        assert not obs["is_error"] and reward == 0.0 and not terminated and not truncated
    assert obs["content"]["appointment_id"] == "A1001"
    obs, reward, terminated, truncated, info = env.step({"message": " ".join(TASK.outputs)})
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["score"].reward == 1.0
    with pytest.raises(EpisodeNotActive):
        env.step({"tool": "list_providers"})
    env.close()


def test_errors_truncation_and_partial_reward(farm_url):
    env = FarmEnv(farm_url, max_steps=2, reward="partial")
    env.reset("clinic-001")
    obs, reward, terminated, truncated, _ = env.step({"tool": "no_such_tool", "arguments": {}})
    assert obs["is_error"] and "no_such_tool" in obs["content"] and not truncated
    obs, reward, terminated, truncated, info = env.step({"tool": "list_providers", "arguments": {}})
    assert truncated and not terminated and reward == 0.0 and info["score"].reward == 0.0
    env.reset("clinic-001")
    action = TASK.gold_actions[0]
    env.step({"tool": action.tool, "arguments": action.arguments})
    _, reward, terminated, _, info = env.step({"message": "A1001"})
    assert terminated and reward == info["score"].partial_credit and 0 < reward < 1
    env.reset("clinic-001")
    with pytest.raises(ValueError, match="an action is"):
        env.step({"say": "x"})
    env.close()


def test_a_branch_continues_from_the_same_state_on_its_own(farm_url):
    env = FarmEnv(farm_url, max_steps=10)
    with pytest.raises(EpisodeNotActive):
        env.branch()
    env.reset("clinic-001")
    first = TASK.gold_actions[0]
    env.step({"tool": first.tool, "arguments": first.arguments})
    branch = env.branch()
    assert branch.steps == 1 and branch.max_steps == 10
    assert branch.episode.episode_id != env.episode.episode_id
    for action in TASK.gold_actions[1:]:  # the branch finishes the task ...
        obs, *_ = branch.step({"tool": action.tool, "arguments": action.arguments})
        assert not obs["is_error"]
    _, reward, terminated, _, _ = branch.step({"message": " ".join(TASK.outputs)})
    assert terminated and reward == 1.0
    _, reward, terminated, _, _ = env.step({"message": " ".join(TASK.outputs)})  # ... the original did not
    assert terminated and reward == 0.0
    branch.close()
    env.close()
