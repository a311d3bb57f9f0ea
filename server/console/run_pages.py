"""Console pages of ``envfarm eval`` runs (``Settings.runs_dir``): the runs, one run's figures with its
worst environments first and every task's trials, and one trial's trajectory beside what was expected.

Run folders are the operator's files, not a tenant's: with API keys configured only admin keys see
them (and the tasks' gold paths the trial page shows beside the trajectory), in local mode everyone.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from envs.errors import EnvFarmError

from ..api.deps import FarmDep, FarmState
from ..auth import Principal
from ..errors import Forbidden
from ..scores import RecordedScore
from .pages import ConsoleRoute, render
from .runs import RunNotFound, Trial, load_run, run_ids
from .session import PREFIX, ViewerDep

router = APIRouter(prefix=PREFIX, route_class=ConsoleRoute, include_in_schema=False)
RUNS_LISTED = 100
log = logging.getLogger(__name__)
#: What a value of the wrong shape that the loader let through raises while a page is drawn.
_SHAPE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError, OverflowError)


def _render_run(request: Request, name: str, run_id: str, **context: Any) -> HTMLResponse:
    """A run page; a run folder whose files hold what no page expects is said to be malformed
    (naming its files), never an error of the server."""
    try:
        return render(request, name, **context)
    except _SHAPE_ERRORS as exc:
        log.warning("run folder %s could not be shown: %s", run_id, type(exc).__name__)
        message = (
            f"Run folder '{run_id}' is malformed: run.json, report.json or results.jsonl holds a value "
            f"of a shape the console does not read ({type(exc).__name__})"
        )
        return render(request, "error.html", status_code=422, code="run_malformed", message=message, **context)


def _runs_dir(farm: FarmState, viewer: Principal) -> Path:
    if not viewer.admin:
        raise Forbidden("Eval runs are shown to admin keys only", field="authorization")
    if farm.settings.runs_dir is None:
        raise RunNotFound("No runs folder is configured (ENVFARM_RUNS_DIR)", field="runs_dir")
    return farm.settings.runs_dir


@router.get("/runs", response_class=HTMLResponse)
def runs_page(request: Request, farm: FarmDep, viewer: ViewerDep) -> HTMLResponse:
    """Every run folder, newest first, with its headline figures."""
    root = _runs_dir(farm, viewer)
    runs = [load_run(root, run_id, with_trials=False) for run_id in run_ids(root)[:RUNS_LISTED]]
    return _render_run(request, "runs.html", "(all)", viewer=viewer, runs=runs, root=root)


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, run_id: str, farm: FarmDep, viewer: ViewerDep) -> HTMLResponse:
    """Headline figures, environments worst first, and each task's trials (failed tasks first)."""
    run = load_run(_runs_dir(farm, viewer), run_id)
    by_task: dict[str, list[Trial]] = defaultdict(list)
    for t in run.trials:
        by_task[t.task_id].append(t)
    tasks = sorted(by_task.items(), key=lambda item: (sum(t.passed for t in item[1]) / len(item[1]), item[0]))
    return _render_run(request, "run.html", run_id, viewer=viewer, run=run, tasks=tasks)


@router.get("/runs/{run_id}/trials/{task_id}/{trial}", response_class=HTMLResponse)
def trial_page(
    request: Request, run_id: str, task_id: str, trial: int, farm: FarmDep, viewer: ViewerDep
) -> HTMLResponse:
    """One trial: messages and tool calls, the score with its diff, and the task's expected outcome."""
    run = load_run(_runs_dir(farm, viewer), run_id)
    found = run.trial(task_id, trial)
    task = None
    try:
        task = farm.catalog.task(task_id)[1]
    except EnvFarmError:  # the run was of another catalog
        pass
    record = found.record
    recorded = None
    if found.score is not None:
        finished = record.get("finished_at")
        recorded = RecordedScore(
            float(finished) if isinstance(finished, int | float) else 0.0, str(record.get("answer") or ""), found.score
        )
    return _render_run(
        request, "trial.html", run_id, viewer=viewer, run=run, trial=found, record=record, task=task, recorded=recorded
    )
