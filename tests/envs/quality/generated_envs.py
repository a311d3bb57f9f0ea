"""Two generated environments as the default catalog builds them (some rules policy-only), with refusals
and questions, built once per test process: the reference environments have neither."""

from __future__ import annotations

import functools

from envs.engine import Environment
from envs.formats.task import Task
from envs.quality.classes import task_class
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@functools.cache
def generated(
    names: tuple[str, ...] = ("airline_rebooking", "library_loans"),
) -> tuple[tuple[Environment, tuple[Task, ...]], ...]:
    domains = {d.id: d for d in load_ontology()}
    out = []
    for name in names:
        domain = assign_enforcement(domains[name])  # some rules policy-only, as the default catalog has them
        g, twin = generate_env(domain, seed=0), generate_env(domain, seed=0, enforce_all=True)
        tasks = generate_tasks(domain, g.spec, g.meta, count=30, seed=0, twin=twin.spec)[0]
        out.append((Environment(g.spec), tuple(tasks)))
    return tuple(out)


def of_class(cls: str) -> list[tuple[Environment, Task]]:
    """The generated tasks of one gaming class, with their environment."""
    return [(env, t) for env, tasks in generated() for t in tasks if task_class(env, t) == cls]


#: A domain whose questions ask for a status or a kind (paired with a value only the read returns):
#: the two above no longer draw one.
LABELLED = ("pto_leave_requests",)
