"""The dual-control catalog: every built-in domain built into an environment and its tasks, checked,
and written as catalog folders the way the synthesis pipeline writes them (spec.json without seed and
policy, seed.json, policy.md, tasks.json)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envs import paths
from envs.check import CheckReport, check_env
from envs.formats.spec import EnvSpec
from envs.formats.task import Task

from .description import DualDomain
from .devices import built_in_domains
from .measures import agent_alone_solved, dual_control_measures, total_measures
from .spec_builder import build_spec
from .tasks import TASKS_PER_DOMAIN, generate_tasks


class DualBuildError(Exception):
    """A built-in domain does not pass ``check_env``: a bug in its description, not bad luck."""


def build_dual_env(domain: DualDomain, *, seed: int = 0, count: int = TASKS_PER_DOMAIN) -> tuple[EnvSpec, list[Task]]:
    """The environment of one domain and its tasks (not checked; ``build_dual_envs`` checks)."""
    spec = build_spec(domain, seed)
    return spec, generate_tasks(domain, spec, seed=seed, count=count)


def build_dual_envs(
    domains: Sequence[DualDomain] | None = None, *, seed: int = 0, count: int = TASKS_PER_DOMAIN, check: bool = True
) -> list[tuple[EnvSpec, list[Task]]]:
    """Every domain's (spec, tasks); with ``check``, each must pass ``check_env`` whole.

    Raises:
        DualBuildError: an environment or one of its tasks fails the check (the first problem named).
    """
    built = []
    for domain in built_in_domains() if domains is None else domains:
        spec, tasks = build_dual_env(domain, seed=seed, count=count)
        if check:
            report: CheckReport = check_env(spec, tasks)
            if not report.ok:
                raise DualBuildError(f"{domain.id}: {report.problems[0]}")
        built.append((spec, tasks))
    return built


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def write_env(spec: EnvSpec, tasks: Sequence[Task], out: Path) -> Path:
    """``out/<env_id>/`` with the four files of a catalog folder; returns the folder."""
    env_dir = out / spec.id
    env_dir.mkdir(parents=True, exist_ok=True)
    (env_dir / paths.SPEC_FILE).write_text(_dump(spec.model_dump(mode="json", exclude={"seed", "policy"})), "utf-8")
    (env_dir / paths.SEED_FILE).write_text(_dump(spec.seed), encoding="utf-8")
    (env_dir / paths.POLICY_FILE).write_text(spec.policy, encoding="utf-8")
    (env_dir / paths.TASKS_FILE).write_text(
        _dump([t.model_dump(mode="json", exclude_defaults=True) for t in tasks]), encoding="utf-8"
    )
    return env_dir


def write_dual_catalog(
    out: Path, *, seed: int = 0, count: int = TASKS_PER_DOMAIN, domains: Sequence[DualDomain] | None = None
) -> dict[str, Any]:
    """Build, check and write every built-in domain (or ``domains``) under ``out``; return the figures
    (also written as ``out/dual-control-measures.json``)."""
    per_env = []
    for spec, tasks in build_dual_envs(domains, seed=seed, count=count):
        write_env(spec, tasks, out)
        per_env.append({**dual_control_measures(spec, tasks), **agent_alone_solved(spec, tasks)})
    figures = {"total": total_measures(per_env), "envs": per_env}
    (out / "dual-control-measures.json").write_text(_dump(figures), encoding="utf-8")
    return figures
