"""How much of a dual-control environment's work is the customer's: measures over its tasks' gold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.quality.dual import agent_alone_reward, dual_counts, needs_user_write


def _share(part: float, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def dual_control_measures(spec: EnvSpec, tasks: Sequence[Task]) -> dict[str, Any]:
    """Per environment: how many tasks need the customer to act (a gold write by the user), their
    share, and the customer's gold actions per task (reads and writes; writes apart), beside the
    agent's (the quality report's counts, ``envs.quality.dual``, as shares and averages).

    >>> from synthesis.dual import build_dual_env, built_in_domains
    >>> spec, tasks = build_dual_env(built_in_domains()[0])
    >>> m = dual_control_measures(spec, tasks)
    >>> m["tasks"], 0 < m["share_needing_user_actions"] < 1
    (24, True)
    """
    c = dual_counts(Environment(spec), list(tasks), replay=False)
    writes = sum(
        call.actor == "user" and spec_kind(spec, call.tool) == "write" for t in tasks for call in t.gold_actions
    )
    return {
        "env": spec.id,
        "dual_control": spec.dual_control,
        "user_tables": len(spec.tables_of("user")),
        "user_tools": len(spec.tools_of("user")),
        "tasks": len(tasks),
        "tasks_needing_user_actions": c.tasks_needing_user_writes,
        "share_needing_user_actions": _share(c.tasks_needing_user_writes, len(tasks)),
        "user_actions_per_task": _share(c.user_actions, len(tasks)),
        "user_writes_per_task": _share(writes, len(tasks)),
        "agent_actions_per_task": _share(c.agent_actions_in_dual, len(tasks)),
    }


def spec_kind(spec: EnvSpec, tool: str) -> str:
    """``read`` or ``write``: the kind of ``spec``'s tool ``tool``."""
    return next((t.kind for t in spec.tools if t.name == tool), "read")


def agent_alone_solved(spec: EnvSpec, tasks: Sequence[Task]) -> dict[str, Any]:
    """Replay each task's gold without the customer's calls (an agent that never asks) and count the
    tasks it still solves; of those needing a customer's write, none should be."""
    env = Environment(spec)
    solved = needing_solved = 0
    for task in tasks:
        passed = agent_alone_reward(env, task) == 1.0
        solved += passed
        needing_solved += passed and needs_user_write(env, task)
    return {"agent_alone_solved": solved, "agent_alone_solved_needing_user": needing_solved}


def total_measures(per_env: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The catalog's figures from the environments' (task-weighted)."""
    tasks = sum(m["tasks"] for m in per_env)
    needing = sum(m["tasks_needing_user_actions"] for m in per_env)
    counts = {
        key: sum(m.get(key, 0) for m in per_env) for key in ("agent_alone_solved", "agent_alone_solved_needing_user")
    }

    def weighted(key: str) -> float:
        return _share(sum(m[key] * m["tasks"] for m in per_env), tasks)

    return {
        "envs": len(per_env),
        "tasks": tasks,
        "tasks_needing_user_actions": needing,
        "share_needing_user_actions": _share(needing, tasks),
        "user_actions_per_task": weighted("user_actions_per_task"),
        "user_writes_per_task": weighted("user_writes_per_task"),
        "agent_actions_per_task": weighted("agent_actions_per_task"),
        **counts,
    }
