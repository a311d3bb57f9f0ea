"""pass^k and the report's aggregates, against hand-computed values."""

from __future__ import annotations

import asyncio

import pytest

from clients import FarmClient, pass_hat_k
from clients.metrics import common_failures, group_stats, grouped
from clients.records import TrialRecord
from clients.report import build_report, summary_markdown, write_report


def rec(task: str, trial: int, reward: float | None, *, env: str = "e", sector: str = "s", infra: bool = False):
    return TrialRecord(
        task_id=task,
        env_id=env,
        sector=sector,
        difficulty="easy",
        trial=trial,
        agent="x",
        reward=reward,
        partial_credit=reward,
        error_class="infra" if infra else None,
    )


def test_pass_hat_k_by_hand():
    # C(c, k) / C(n, k)
    assert pass_hat_k(4, 2, 1) == 2 / 4
    assert pass_hat_k(4, 2, 2) == 1 / 6
    assert pass_hat_k(4, 3, 2) == 3 / 6
    assert pass_hat_k(5, 3, 3) == 1 / 10
    assert pass_hat_k(4, 4, 4) == 1.0
    assert pass_hat_k(4, 3, 4) == 0.0
    with pytest.raises(ValueError):
        pass_hat_k(3, 1, 4)


def test_group_pass_hat_is_the_mean_over_tasks():
    outcomes = {"a": [1, 1, 0, 0], "b": [1, 1, 1, 1], "c": [0, 0, 0, 0], "d": [1, 1, 1, 0]}
    records = [rec(t, i, float(r)) for t, rs in outcomes.items() for i, r in enumerate(rs)]
    stats = group_stats(records, 4)
    # a: 2/4, 1/6, 0, 0   b: 1, 1, 1, 1   c: 0, 0, 0, 0   d: 3/4, 3/6, 1/4, 0
    assert stats.pass_hat[1] == pytest.approx((0.5 + 1 + 0 + 0.75) / 4)
    assert stats.pass_hat[2] == pytest.approx((1 / 6 + 1 + 0 + 0.5) / 4)
    assert stats.pass_hat[3] == pytest.approx((0 + 1 + 0 + 0.25) / 4)
    assert stats.pass_hat[4] == pytest.approx(0.25)
    assert stats.tasks == 4 and stats.trials == 16 and stats.successes == 9
    assert stats.avg_reward == pytest.approx(9 / 16) and stats.avg_partial_credit == pytest.approx(9 / 16)


def test_infra_errors_are_not_counted():
    records = [rec("a", 0, 1.0), rec("a", 1, None, infra=True), rec("a", 2, 0.0), rec("b", 0, 1.0), rec("b", 1, 1.0)]
    stats = group_stats(records, 3)
    # a has 2 counted trials (1 success), b has 2 (2 successes); no task reaches 3
    assert stats.pass_hat == {1: pytest.approx(0.75), 2: pytest.approx(0.5), 3: None}
    assert stats.trials == 4


def test_grouping_and_report_files(tmp_path):
    records = [
        rec("r1", 0, 1.0, env="retail", sector="retail"),
        rec("r1", 1, 0.0, env="retail", sector="retail"),
        rec("c1", 0, 1.0, env="clinic", sector="healthcare"),
        rec("c1", 1, 1.0, env="clinic", sector="healthcare"),
    ]
    by_env = grouped(records, lambda r: r.env_id, 2)
    assert list(by_env) == ["clinic", "retail"]
    assert by_env["clinic"].pass_hat == {1: 1.0, 2: 1.0}
    assert by_env["retail"].pass_hat == {1: 0.5, 2: 0.0}
    report = build_report(
        records, run={"agent": "x", "tasks": "all", "trials": 2, "user": "solo"}, trials=2, expected=4
    )
    assert report.overall.pass_hat == {1: 0.75, 2: 0.5}
    assert report.by_sector["healthcare"].pass_hat[2] == 1.0
    paths = write_report(report, tmp_path)
    assert paths["png"].read_bytes().startswith(b"\x89PNG")
    assert "data:image/png;base64," in paths["html"].read_text()
    assert "| retail | 1 | 2 | 0.500 | 0.000 | 0.500 |" in summary_markdown(report)


def test_common_failures_come_from_scores(farm_url):
    async def untouched_score():
        async with FarmClient(farm_url) as farm:
            episode = await farm.create_episode(task_id="clinic-001")
            return await farm.score(episode.episode_id, "")

    score = asyncio.run(untouched_score())
    records = [rec("clinic-001", i, 0.0).model_copy(update={"score": score}) for i in range(3)]
    failures = common_failures(records)
    assert failures[0].count == 3 and failures[0].tasks == ["clinic-001"]
    assert {f.signature for f in failures} >= {"appointments: expected row missing", "slots.is_open: wrong value"}
