"""``envfarm eval`` run folders as the console shows them, read from ``Settings.runs_dir``.

A run folder holds ``run.json`` (what was run), ``report.json`` (the aggregates the report shows) and
``results.jsonl`` (one trial record per line, the latest per task and trial winning, as the eval
runner resumes). The server does not import the clients that wrote them (DESIGN.md, layers), so the
records are read as the JSON they are, leniently: a field a page needs and a record lacks shows as
missing, and a line that is not JSON (a torn last line) is skipped. Scores are the ``envs`` model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from envs import Score

from ..errors import ServiceError

RESULTS_FILE, REPORT_FILE, RUN_FILE = "results.jsonl", "report.json", "run.json"
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
SUCCESS = 1.0 - 1e-9


class RunNotFound(ServiceError):
    status, code = 404, "run_not_found"


@dataclass
class Trial:
    """One trial's latest record."""

    record: dict[str, Any]
    score: Score | None

    @property
    def task_id(self) -> str:
        return str(self.record.get("task_id", ""))

    @property
    def trial(self) -> int:
        value = self.record.get("trial", 0)
        return value if isinstance(value, int) else 0

    @property
    def reward(self) -> float | None:
        value = self.record.get("reward")
        return float(value) if isinstance(value, int | float) else None

    @property
    def infra(self) -> bool:
        return self.record.get("error_class") == "infra"

    @property
    def passed(self) -> bool:
        return self.reward is not None and self.reward >= SUCCESS


@dataclass
class Run:
    """A run folder: what was run, its report, and its trials (latest record per task and trial)."""

    run_id: str
    path: Path
    run: dict[str, Any]
    report: dict[str, Any]
    trials: list[Trial] = field(default_factory=list)

    @property
    def headline(self) -> dict[str, Any]:
        overall = self.report.get("overall")
        return overall if isinstance(overall, dict) else {}

    def envs_worst_first(self) -> list[tuple[str, dict[str, Any]]]:
        """The report's environments, lowest pass^1 (then average reward) first."""
        by_env = self.report.get("by_env")
        rows = [(k, v) for k, v in (by_env.items() if isinstance(by_env, dict) else []) if isinstance(v, dict)]

        def key(item: tuple[str, dict[str, Any]]) -> tuple[float, float, str]:
            hats = item[1].get("pass_hat") or {}
            return (float(hats.get("1", 0.0)), float(item[1].get("avg_reward") or 0.0), item[0])

        return sorted(rows, key=key)

    def trial(self, task_id: str, trial: int) -> Trial:
        for t in self.trials:
            if t.task_id == task_id and t.trial == trial:
                return t
        raise RunNotFound(f"Run '{self.run_id}' has no trial {trial} of task '{task_id}'", field="trial")


def _json_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _trials(path: Path) -> list[Trial]:
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if isinstance(record, dict):
            latest[(str(record.get("task_id", "")), int(record.get("trial") or 0))] = record
    trials = []
    for record in latest.values():
        score = None
        if isinstance(record.get("score"), dict):
            try:
                score = Score.model_validate(record["score"])
            except ValidationError:
                score = None
        trials.append(Trial(record, score))
    return sorted(trials, key=lambda t: (t.task_id, t.trial))


def run_ids(root: Path) -> list[str]:
    """Run folders directly under ``root`` (those holding results), newest first."""
    try:
        found = [p for p in root.iterdir() if _RUN_ID.match(p.name) and (p / RESULTS_FILE).is_file()]
    except OSError:
        return []
    return [p.name for p in sorted(found, key=lambda p: (p / RESULTS_FILE).stat().st_mtime, reverse=True)]


def load_run(root: Path, run_id: str, *, with_trials: bool = True) -> Run:
    """The run folder ``run_id`` of ``root``; only a direct child's name is taken (no path)."""
    path = root / run_id
    if not _RUN_ID.match(run_id) or not (path / RESULTS_FILE).is_file():
        raise RunNotFound(f"Run '{run_id}' not found", field="run_id")
    report = _json_file(path / REPORT_FILE)
    run = _json_file(path / RUN_FILE) or (report.get("run") if isinstance(report.get("run"), dict) else {})
    trials = _trials(path / RESULTS_FILE) if with_trials else []
    return Run(run_id=run_id, path=path, run=run or {}, report=report, trials=trials)
