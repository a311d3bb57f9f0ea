"""How the grading tests score an answer: a task's gold calls replayed on a fresh episode, then the
answer graded on the state they leave, as the bench scores an agent that did the right things."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from envs import score_episode
from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.results import Score
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


def score_of(env: Environment, task: Task, answer: str, then: Iterable[tuple[str, dict[str, Any]]] = ()) -> Score:
    """The score ``answer`` earns on ``task`` after its gold calls and the tool calls ``then``
    (an agent that also did what it should not have)."""
    episode = env.episode(task)
    try:
        episode.replay(task.gold_actions)
        for tool, arguments in then:
            episode.call_tool(tool, arguments)
        return score_episode(env, task, episode, answer=answer)
    finally:
        episode.close()


def score_after_gold(env: Environment, task: Task, answer: str) -> float:
    """The reward ``answer`` earns on ``task`` after its gold calls."""
    return score_of(env, task, answer).reward


@functools.cache
def generated_domain(name: str) -> tuple[Environment, tuple[Task, ...]]:
    """Domain ``name`` and its tasks, generated as the default catalog builds them (seed 0, 30 tasks)."""
    domain = assign_enforcement(next(d for d in load_ontology() if d.id == name))
    g, twin = generate_env(domain, seed=0), generate_env(domain, seed=0, enforce_all=True)
    return Environment(g.spec), tuple(generate_tasks(domain, g.spec, g.meta, count=30, seed=0, twin=twin.spec)[0])


#: Tasks a review read, kept as the generator made them then: these tests hold the grader to answers
#: written for one task, and a later change to the generator must not swap the task under them.
REVIEWED = Path(__file__).parent / "reviewed"


def reviewed_task(task_id: str) -> tuple[Environment, Task]:
    """The environment generated as above and the task ``task_id`` as it is kept in ``REVIEWED``."""
    env, _ = generated_domain(task_id.rsplit("-", 1)[0])
    return env, Task.model_validate_json((REVIEWED / f"{task_id}.json").read_text())


def score_task(task_id: str, answer: str) -> float:
    """The reward ``answer`` earns on the reviewed task ``task_id`` after its gold calls."""
    return score_after_gold(*reviewed_task(task_id), answer)
