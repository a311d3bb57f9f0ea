"""What an evaluation run measured (``EvalReport``), aggregated from its trial records."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from ..metrics import FailurePattern, GroupStats, common_failures, group_stats, grouped
from ..records import Tokens, TrialRecord


class InfraFailure(BaseModel):
    """A trial that failed for infrastructure or API reasons (not counted; run again on resume)."""

    task_id: str
    trial: int
    error_type: str | None
    error: str | None


class EvalReport(BaseModel):
    """What an evaluation run measured."""

    run: dict[str, Any]
    created_at: float
    trials_expected: int
    trials_counted: int
    infra_errors: list[InfraFailure]
    overall: GroupStats
    by_env: dict[str, GroupStats]
    by_sector: dict[str, GroupStats]
    by_difficulty: dict[str, GroupStats]
    failures: list[FailurePattern]
    tokens: Tokens
    mean_trial_seconds: float | None
    env_sectors: dict[str, str] = {}
    #: Tool calls by who made them: the agent, and in dual-control environments the user too.
    tool_calls: dict[str, int] = {}


def build_report(records: Iterable[TrialRecord], *, run: dict[str, Any], trials: int, expected: int) -> EvalReport:
    """Aggregate the latest record of every selected trial.

    Args:
        records: one record per (task, trial).
        run: what was run (agent, model, user, selector ...), copied into the report.
        trials: trials per task (the largest k of pass^k).
        expected: how many trials the run asked for.
    """
    rs = list(records)
    counted = [r for r in rs if r.counts]
    tokens = Tokens(
        agent_input=sum(r.tokens.agent_input for r in rs),
        agent_output=sum(r.tokens.agent_output for r in rs),
        user_input=sum(r.tokens.user_input for r in rs),
        user_output=sum(r.tokens.user_output for r in rs),
    )
    return EvalReport(
        run=run,
        created_at=time.time(),
        trials_expected=expected,
        trials_counted=len(counted),
        infra_errors=[
            InfraFailure(task_id=r.task_id, trial=r.trial, error_type=r.error_type, error=r.error)
            for r in rs
            if not r.counts
        ],
        overall=group_stats(rs, trials),
        by_env=grouped(rs, lambda r: r.env_id, trials),
        by_sector=grouped(rs, lambda r: r.sector or "?", trials),
        by_difficulty=grouped(rs, lambda r: r.difficulty or "?", trials),
        failures=common_failures(rs),
        tokens=tokens,
        mean_trial_seconds=sum(r.latency.total_s for r in counted) / len(counted) if counted else None,
        env_sectors={r.env_id: r.sector or "?" for r in sorted(rs, key=lambda r: r.env_id)},
        tool_calls={actor: sum(c.actor == actor for r in rs for c in r.tool_calls) for actor in ("agent", "user")},
    )
