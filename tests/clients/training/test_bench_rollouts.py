"""``envfarm bench rollouts``: oracle rollouts through the adapters' episode layer against the test farm."""

from __future__ import annotations

import json

from click.testing import CliRunner

from clients.training.bench import RolloutBench
from envfarm.cli import cli

TASKS = "clinic-001,clinic-002,retail-001"


def test_oracle_rollouts_all_score_1_and_the_farms_share_is_measured(farm_url):
    for transport in ("mcp", "rest"):
        result = RolloutBench(farm_url, rollouts=6, concurrency=3, tasks=TASKS, transport=transport).run()
        assert result["rollouts"] == 6 and result["tasks"] == 3 and result["all_rewards_1"]
        assert result["tool_calls"] > 6 and result["rollouts_per_s"] > 0
        assert 0 < result["farm_ms_per_rollout"] <= result["rollout_ms"]["mean"]
        assert 0 < result["farm_share_of_rollout_time"] <= 1


def test_the_command_writes_its_figures(farm_url, tmp_path):
    out = tmp_path / "rollouts.json"
    args = ["bench", "rollouts", "--server", farm_url, "--rollouts", "4", "--concurrency", "2", "--tasks", TASKS]
    result = CliRunner().invoke(cli, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert figures["rollouts"] == 4 and figures["transport"] == "mcp"
    assert "rollouts/s" in result.output and "waiting on the farm" in result.output
