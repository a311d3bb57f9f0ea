"""``envfarm bench synthesis``: environments and verified tasks per minute on this machine.

Runs the real pipeline (generation, procedural tests, task instantiation, ``check_env`` with every
gold replay) over the built-in domains — cycling through variants to reach the requested count —
once with one worker on a slice (the baseline) and once with all workers on the full count, and
projects the time for 1,000 environments with 30 tasks each.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..catalog.pipeline import EnvOutcome, SynthesisConfig, run_pipeline
from ..domains.ontology import load_ontology

TARGET_ENVS = 1000
TARGET_SECONDS = 600


def baseline_envs(envs: int) -> int:
    """How many environments the one-worker baseline synthesizes before the measured run of ``envs``."""
    return max(4, envs // 10)


def _run(
    count: int, workers: int, tasks: int, progress: Callable[[EnvOutcome], None] = lambda o: None
) -> dict[str, Any]:
    domains = load_ontology()
    variants = max(1, -(-count // len(domains)))
    chosen = domains if count >= len(domains) else domains[:count]
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        report = run_pipeline(
            chosen,
            SynthesisConfig(out=Path(out), tasks_per_env=tasks, variants=variants, workers=workers, limit=count),
            progress=progress,
        )
        seconds = time.perf_counter() - t0
    accepted = report["environments"]["accepted"]
    return {
        "workers": workers,
        "environments_attempted": report["environments"]["attempted"],
        "environments_accepted": accepted,
        "distinct_domains": report["domains"],
        "verified_tasks": report["tasks"]["total"],
        "seconds": round(seconds, 2),
        "environments_per_minute": round(accepted / seconds * 60, 1),
        "verified_tasks_per_minute": round(report["tasks"]["total"] / seconds * 60, 1),
    }


def bench_synthesis(
    *,
    envs: int = 200,
    tasks_per_env: int = 30,
    workers: int | None = None,
    progress: Callable[[str, EnvOutcome], None] = lambda run, o: None,
) -> dict[str, Any]:
    """Measure the pipeline; return a JSON-serializable report.

    ``progress(run, outcome)`` is called after each of the ``baseline_envs(envs) + envs`` environments,
    ``run`` naming the run it belongs to ("1 worker" for the baseline, then "N workers").
    """
    workers = workers or os.cpu_count() or 1
    baseline = _run(baseline_envs(envs), 1, tasks_per_env, lambda o: progress("1 worker", o))
    full = _run(envs, workers, tasks_per_env, lambda o: progress(f"{workers} worker{'' if workers == 1 else 's'}", o))
    per_env = full["seconds"] / max(1, full["environments_attempted"])
    projected = per_env * TARGET_ENVS
    return {
        "benchmark": "synthesis",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "tasks_per_env": tasks_per_env,
        "single_worker_baseline": baseline,
        "all_workers": full,
        "parallel_speedup_vs_baseline": round(
            full["environments_per_minute"] / max(1e-9, baseline["environments_per_minute"]), 2
        ),
        "projected_seconds_for_1000_envs": round(projected, 1),
        "target_seconds_for_1000_envs": TARGET_SECONDS,
        "meets_target": projected <= TARGET_SECONDS,
    }
