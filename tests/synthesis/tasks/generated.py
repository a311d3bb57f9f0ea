"""Environments and tasks generated from ontology domains, as the task tests read them."""

from __future__ import annotations

from envs import Task
from envs.formats.spec import EnvSpec
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


def generated_tasks(names: tuple[str, ...], count: int = 30) -> list[tuple[EnvSpec, list[Task]]]:
    """Each domain's spec and its first `count` tasks, both drawn with seed 0."""
    domains = {d.id: d for d in load_ontology()}
    out = []
    for name in names:
        g = generate_env(domains[name], seed=0)
        out.append((g.spec, generate_tasks(domains[name], g.spec, g.meta, count=count, seed=0)[0]))
    return out
