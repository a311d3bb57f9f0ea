"""pass^k and the other aggregate numbers of an evaluation.

pass^k (tau-bench): for a task run ``n`` times with ``c`` full-reward successes, the chance that
``k`` trials drawn without replacement all succeed is ``C(c, k) / C(n, k)``; pass^k of a set of
tasks is the mean over its tasks that have at least ``k`` counted trials.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from math import comb

from pydantic import BaseModel

from .records import TrialRecord


def pass_hat_k(trials: int, successes: int, k: int) -> float:
    """``C(successes, k) / C(trials, k)``: the chance that k of the trials, drawn at random, all succeed.

    >>> pass_hat_k(4, 2, 1), pass_hat_k(4, 2, 2), pass_hat_k(4, 2, 3)
    (0.5, 0.16666666666666666, 0.0)
    """
    if not 1 <= k <= trials:
        raise ValueError(f"k must be in 1..{trials}, got {k}")
    return comb(successes, k) / comb(trials, k)


class GroupStats(BaseModel):
    """Metrics of a group of tasks (an environment, a sector, a difficulty, or all).

    ``pass_hat`` maps k to pass^k (None where no task has k counted trials).
    """

    tasks: int
    trials: int
    successes: int
    pass_hat: dict[int, float | None]
    avg_reward: float | None
    avg_partial_credit: float | None
    truncated: int
    agent_errors: int


def group_stats(records: Iterable[TrialRecord], max_k: int) -> GroupStats:
    """Metrics over counted trials (infrastructure errors excluded).

    >>> rs = [TrialRecord(task_id="a", env_id="e", trial=i, agent="x", reward=r, partial_credit=r)
    ...       for i, r in enumerate([1.0, 1.0, 0.0])]
    >>> group_stats(rs, 3).pass_hat
    {1: 0.6666666666666666, 2: 0.3333333333333333, 3: 0.0}
    """
    counted = [r for r in records if r.counts]
    per_task: dict[str, list[TrialRecord]] = defaultdict(list)
    for r in counted:
        per_task[r.task_id].append(r)
    pass_hat: dict[int, float | None] = {}
    for k in range(1, max_k + 1):
        values = [pass_hat_k(len(rs), sum(r.success for r in rs), k) for rs in per_task.values() if len(rs) >= k]
        pass_hat[k] = sum(values) / len(values) if values else None
    n = len(counted)
    return GroupStats(
        tasks=len(per_task),
        trials=n,
        successes=sum(r.success for r in counted),
        pass_hat=pass_hat,
        avg_reward=sum(r.reward or 0.0 for r in counted) / n if n else None,
        avg_partial_credit=sum(r.partial_credit or 0.0 for r in counted) / n if n else None,
        truncated=sum(r.truncated for r in counted),
        agent_errors=sum(r.error_class == "agent" for r in counted),
    )


def grouped(records: list[TrialRecord], key: Callable[[TrialRecord], str], max_k: int) -> dict[str, GroupStats]:
    """``group_stats`` per value of ``key`` (environment, sector, difficulty), sorted by key."""
    groups: dict[str, list[TrialRecord]] = defaultdict(list)
    for r in records:
        groups[key(r)].append(r)
    return {name: group_stats(rs, max_k) for name, rs in sorted(groups.items())}


def failure_signatures(record: TrialRecord) -> list[str]:
    """Short, comparable descriptions of what went wrong in a failed trial (from its score)."""
    score = record.score
    if score is None or record.success:
        return []
    sigs: list[str] = []
    for c in score.checklist:
        if not c.passed:
            sigs.append(
                f"output not stated: {c.description}" if c.kind == "output" else f"{c.kind} failed: {c.description}"
            )
    for d in score.diff:
        if d.missing:
            sigs.append(f"{d.table}: expected row missing")
        if d.extra:
            sigs.append(f"{d.table}: unexpected row")
        for ch in d.changed:
            sigs += [f"{d.table}.{col.column}: wrong value" for col in ch.columns]
    if record.truncated:
        sigs.append("truncated (turn or tool-call limit)")
    return list(dict.fromkeys(sigs))


class FailurePattern(BaseModel):
    """A failure seen in several trials, with the tasks it appeared in."""

    signature: str
    count: int
    tasks: list[str]


FAILURES_KEPT = 10  # how many failure signatures a report keeps


def common_failures(records: Iterable[TrialRecord], top: int = FAILURES_KEPT) -> list[FailurePattern]:
    """The most frequent failure signatures over failed, counted trials."""
    counts: dict[str, int] = defaultdict(int)
    tasks: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if not r.counts:
            continue
        for sig in failure_signatures(r):
            counts[sig] += 1
            if r.task_id not in tasks[sig]:
                tasks[sig].append(r.task_id)
    ranked = sorted(counts, key=lambda s: (-counts[s], s))[:top]
    return [FailurePattern(signature=s, count=counts[s], tasks=tasks[s]) for s in ranked]


def rank_key(stats: GroupStats) -> tuple[float, ...]:
    """How a group ranks, lowest first: pass^1, then pass^k for larger k, then average partial credit
    (rounded, so equal results tie exactly); a group with no counted trial ranks after every other."""
    if stats.avg_partial_credit is None:
        return (float("inf"),)
    passes = [stats.pass_hat[k] for k in sorted(stats.pass_hat)]
    return (*(round(v if v is not None else float("inf"), 9) for v in passes), round(stats.avg_partial_credit, 9))


def worst_first(groups: dict[str, GroupStats]) -> list[str]:
    """Group names from the lowest result to the highest (ties by name); groups with no counted trial last."""
    return sorted(groups, key=lambda name: (rank_key(groups[name]), name))


@dataclass(frozen=True)
class Lowest:
    """The lowest-ranked groups, said honestly.

    Attributes:
        names: at most ``n`` groups, lowest first, each ranking below the best group (none when all tie).
        more_tied: how many more groups tie with the last of ``names`` (so "the lowest n" was a cut in a tie).
        all_tie: every group with counted trials has the same result (and there are at least two).
        counted: how many groups have counted trials.
    """

    names: list[str]
    more_tied: int
    all_tie: bool
    counted: int


def lowest(groups: dict[str, GroupStats], n: int) -> Lowest:
    """The ``n`` lowest groups below the best, and how many more tie with the last of them.

    >>> g = {e: GroupStats(tasks=1, trials=1, successes=0, pass_hat={1: v}, avg_reward=v, avg_partial_credit=v,
    ...                    truncated=0, agent_errors=0) for e, v in {"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.0}.items()}
    >>> lowest(g, 2)
    Lowest(names=['d', 'b'], more_tied=1, all_tie=False, counted=4)
    """
    counted = [name for name in worst_first(groups) if groups[name].avg_partial_credit is not None]
    keys = {name: rank_key(groups[name]) for name in counted}
    if not counted:
        return Lowest([], 0, False, 0)
    best = keys[counted[-1]]
    below = [name for name in counted if keys[name] != best]
    names = below[:n]
    more = sum(keys[name] == keys[names[-1]] for name in below[n:]) if names else 0
    return Lowest(names, more, len(counted) > 1 and not below, len(counted))
