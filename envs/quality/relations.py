"""Values that disagree with the records they add up (measure 37, docs/synthesis.md): a member's fine
balance that is not the sum of their open fines, a report's total that its items do not make.

An environment declares such a relation as an invariant named ``<table>_<column>_adds_up`` whose
``violations`` query returns the parent rows that break it (docs/formats.md, "Invariants"; the
synthesized environments write one per aggregate of their domain). The measure counts those rows in
the seed and in the state each task's gold actions leave, so it runs on any catalog that names its
relations so; ``check_env`` checks the same invariants on every state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..engine import Environment, Episode
from ..errors import EnvFarmError
from ..formats.spec import EnvSpec, Invariant
from ..formats.task import Task

#: How an invariant's name says it is an aggregate relation.
SUFFIX = "_adds_up"


def relation_invariants(spec: EnvSpec) -> list[Invariant]:
    """The invariants that declare an aggregate relation."""
    return [inv for inv in spec.invariants if inv.name.endswith(SUFFIX)]


def broken_rows(episode: Episode, invariants: Iterable[Invariant]) -> int:
    """Rows of the episode's state that break one of ``invariants`` (a query that cannot run counts none)."""
    total = 0
    for inv in invariants:
        try:
            total += len(episode.query(inv.violations))
        except EnvFarmError:
            continue
    return total


@dataclass
class RelationCounts:
    """Declared relations, and the rows that break them in the seed and after the tasks' gold actions."""

    aggregate_relations: int = 0
    aggregate_rows_broken_in_seed: int = 0
    aggregate_rows_broken_after_gold: int = 0


def relation_counts(
    env: Environment, tasks: Iterable[Task], invariants: list[Invariant] | None = None
) -> RelationCounts:
    """Measure 37 for one environment: ``invariants`` default to the spec's relations; the gold actions
    of every task are replayed on a fresh episode and the rows breaking a relation counted in the
    state they leave (a task whose gold fails counts nothing after the failure)."""
    found = relation_invariants(env.spec) if invariants is None else invariants
    out = RelationCounts(aggregate_relations=len(found))
    if not found:
        return out
    seed = env.episode()
    try:
        out.aggregate_rows_broken_in_seed = broken_rows(seed, found)
    finally:
        seed.close()
    for task in tasks:
        try:
            episode = env.episode(task)
        except EnvFarmError:
            continue
        try:
            for call in task.gold_actions:
                episode.call_tool(call.tool, call.arguments, actor=call.actor)
        except EnvFarmError:
            pass
        finally:
            out.aggregate_rows_broken_after_gold += broken_rows(episode, found)
            episode.close()
    return out
