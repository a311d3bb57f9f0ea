"""How much of a dual-control environment's work is the customer's: measures over its tasks' gold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.grading.scoring import score_episode


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


def agent_alone_solved(spec: EnvSpec, tasks: Sequence[Task]) -> dict[str, Any]:
    """Replay each task's gold without the customer's calls (an agent that never asks) and count the
    tasks it still solves; of those needing a customer's write, none should be."""
    env = Environment(spec)
    solved = needing_solved = 0
    for task in tasks:
        episode = env.episode(task)
        try:
            episode.replay([call for call in task.gold_actions if call.actor == "agent"])
            reward = score_episode(env, task, episode).reward
        finally:
            episode.close()
        needs_user = any(c.actor == "user" and env.tools[c.tool].kind == "write" for c in task.gold_actions)
        solved += reward == 1.0
        needing_solved += needs_user and reward == 1.0
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
