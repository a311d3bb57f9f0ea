"""Measures of dual control (the user acts too): how much of a task's work is the user's, and whether
an agent that never gets the user to act can still pass (docs/synthesis.md, "Quality report").

Read from the tasks' gold, and one replay per task that needs the user to change something:

* ``dual_control_envs`` / ``dual_tasks``: environments where the user has tables or tools, and their tasks;
* ``tasks_needing_user_writes``: tasks whose gold has the user change something on their side;
* ``user_actions`` / ``user_writes`` / ``agent_actions_in_dual``: gold calls by each actor (the user's
  reads and writes, and the user's writes apart), for per-task averages;
* ``user_fault_tasks_solved_alone``: of the tasks needing a user write, those the gold without the
  user's calls still passes (an agent that never asks): 0 in a sound environment.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Environment
from ..formats.task import Task
from ..grading.scoring import score_episode


@dataclass
class DualCounts:
    dual_control_envs: int = 0
    dual_tasks: int = 0
    tasks_needing_user_writes: int = 0
    user_actions: int = 0
    user_writes: int = 0
    agent_actions_in_dual: int = 0
    user_fault_tasks_solved_alone: int = 0


def needs_user_write(env: Environment, task: Task) -> bool:
    """Whether the task's gold has the user change something on their own side."""
    return any(
        c.actor == "user" and (t := env.tools.get(c.tool)) is not None and t.kind == "write" for c in task.gold_actions
    )


def agent_alone_reward(env: Environment, task: Task) -> float:
    """The reward of the gold without the user's calls: what an agent that never asks earns."""
    episode = env.episode(task)
    try:
        episode.replay([call for call in task.gold_actions if call.actor == "agent"])
        return score_episode(env, task, episode).reward
    finally:
        episode.close()


def dual_counts(env: Environment, tasks: list[Task], *, replay: bool = True) -> DualCounts:
    """The dual-control measures of one environment (all 0 where only the agent acts). ``replay``:
    also replay each task that needs a user write without the user's calls."""
    if not env.dual_control:
        return DualCounts()
    c = DualCounts(dual_control_envs=1, dual_tasks=len(tasks))
    for task in tasks:
        c.user_actions += sum(call.actor == "user" for call in task.gold_actions)
        c.agent_actions_in_dual += sum(call.actor == "agent" for call in task.gold_actions)
        if needs_user_write(env, task):
            c.tasks_needing_user_writes += 1
            c.user_writes += sum(
                call.actor == "user" and env.tools[call.tool].kind == "write" for call in task.gold_actions
            )
            c.user_fault_tasks_solved_alone += replay and agent_alone_reward(env, task) == 1.0
    return c
