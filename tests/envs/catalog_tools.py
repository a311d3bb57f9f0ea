"""The tool schemas the engine meets in practice, for tests that compare a fast path with jsonschema."""

from __future__ import annotations

import functools
from typing import Any

from envs.catalog import load_env
from envs.engine import Environment
from envs.formats.task import Task
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@functools.cache
def tool_schemas_with_gold_arguments() -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """Every tool of the reference environments and of one generated env per sector, with the
    arguments its tasks' gold actions pass to it (known valid)."""
    envs: list[tuple[Any, list[Task]]] = [(e.spec, e.tasks) for e in (load_env("retail"), load_env("clinic"))]
    seen: set[str] = set()
    for domain in load_ontology():
        if domain.sector not in seen:
            seen.add(domain.sector)
            gen = generate_env(domain, seed=0)
            envs.append((gen.spec, generate_tasks(domain, gen.spec, gen.meta, count=30, seed=0)[0]))
    out = []
    for spec, tasks in envs:
        gold: dict[str, list[dict[str, Any]]] = {}
        for task in tasks:
            for action in task.gold_actions:
                gold.setdefault(action.tool, []).append(action.arguments)
        out += [(f"{spec.id}.{t.name}", t.parameters, gold.get(t.name, [])) for t in spec.tools]
    return out


@functools.cache
def default_catalog_environments() -> tuple[Environment, ...]:
    """The whole default catalog as the test suite builds it: the reference environments and every
    built-in domain as the default catalog synthesizes it (seed 0). Built once per test process."""
    envs = [load_env("retail").environment, load_env("clinic").environment]
    envs += [Environment(generate_env(domain, seed=0).spec) for domain in load_ontology()]
    return tuple(envs)
