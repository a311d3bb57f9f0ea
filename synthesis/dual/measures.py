"""How much of a dual-control environment's work is the customer's: measures over its tasks' gold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envs.formats.spec import EnvSpec
from envs.formats.task import Task


def _share(part: float, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def dual_control_measures(spec: EnvSpec, tasks: Sequence[Task]) -> dict[str, Any]:
    """Per environment: how many tasks need the customer to act (a gold write by the user), their
    share, and the customer's gold actions per task (reads and writes; writes apart), beside the
    agent's. A task that needs a user write cannot be solved by an agent that never asks.

    >>> from synthesis.dual import build_dual_env, built_in_domains
    >>> spec, tasks = build_dual_env(built_in_domains()[0])
    >>> m = dual_control_measures(spec, tasks)
    >>> m["tasks"], 0 < m["share_needing_user_actions"] < 1
    (24, True)
    """
    kinds = {tool.name: tool.kind for tool in spec.tools}
    user_calls = [sum(c.actor == "user" for c in t.gold_actions) for t in tasks]
    user_writes = [sum(c.actor == "user" and kinds.get(c.tool) == "write" for c in t.gold_actions) for t in tasks]
    agent_calls = [sum(c.actor == "agent" for c in t.gold_actions) for t in tasks]
    needing = sum(w > 0 for w in user_writes)
    return {
        "env": spec.id,
        "dual_control": spec.dual_control,
        "user_tables": len(spec.tables_of("user")),
        "user_tools": len(spec.tools_of("user")),
        "tasks": len(tasks),
        "tasks_needing_user_actions": needing,
        "share_needing_user_actions": _share(needing, len(tasks)),
        "user_actions_per_task": _share(sum(user_calls), len(tasks)),
        "user_writes_per_task": _share(sum(user_writes), len(tasks)),
        "agent_actions_per_task": _share(sum(agent_calls), len(tasks)),
    }


def total_measures(per_env: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The catalog's figures from the environments' (task-weighted)."""
    tasks = sum(m["tasks"] for m in per_env)
    needing = sum(m["tasks_needing_user_actions"] for m in per_env)

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
    }
