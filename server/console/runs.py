"""``envfarm eval`` run folders as the console shows them, read from ``Settings.runs_dir``.

A run folder holds ``run.json`` (what was run), ``report.json`` (the aggregates the report shows) and
``results.jsonl`` (one trial record per line, the latest per task and trial winning, as the eval
runner resumes). The server does not import the clients that wrote them (DESIGN.md, layers), so the
records are read as the JSON they are, leniently: a field a page needs and a record lacks shows as
missing, and a line that is not JSON (a torn last line) is skipped. What is there but of the wrong
shape (a trial number given as text, a figure that is not a number, JSON nested past ``MAX_DEPTH``)
is left out and named in ``Run.malformed`` with its file, which the pages show. Scores are the
``envs`` model.
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
#: The deepest JSON a page renders (a record's arguments or messages); deeper is malformed.
MAX_DEPTH = 64
#: Fields of a trial record the pages show as they are: text or a number, nothing nested.
_RECORD_SCALARS = (
    "env_id", "agent", "model", "turns", "retries", "episode_id", "error", "error_class", "error_type",
    "answer", "finished_at", "truncated",
)  # fmt: skip
_FIGURES = ("avg_reward", "avg_partial_credit")
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
    malformed: list[str] = field(default_factory=list)  # what was left out, and from which file

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


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _depth(value: Any) -> int:
    """How deep ``value`` nests (1 for a flat object), stopping past ``MAX_DEPTH``; without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            stack.extend((x, depth + 1) for x in (item.values() if isinstance(item, dict) else item))
    return deepest


def _parse(text: str, where: str, notes: list[str]) -> Any:
    """JSON ``text``, or None: not JSON (say so unless a results line, where a torn last line is
    normal), or nested too deep (said)."""
    try:
        data = json.loads(text)
    except RecursionError:
        notes.append(f"{where}: nested too deep to read")
        return None
    except ValueError:
        if not where.startswith(RESULTS_FILE):
            notes.append(f"{where}: not JSON")
        return None
    if _depth(data) > MAX_DEPTH:
        notes.append(f"{where}: nested more than {MAX_DEPTH} deep")
        return None
    return data


def _json_file(path: Path, notes: list[str]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return {}
    data = _parse(text, path.name, notes)
    if data is not None and not isinstance(data, dict):
        notes.append(f"{path.name}: not a JSON object")
    return data if isinstance(data, dict) else {}


def _figures(value: Any, where: str, notes: list[str]) -> dict[str, Any]:
    """A report's figures (overall, or one environment's): scalars, with ``pass_hat`` a mapping of
    numbers and the averages numbers; anything else left out and noted."""
    if not isinstance(value, dict):
        if value is not None:
            notes.append(f"{where}: not an object")
        return {}
    out = {str(k): v for k, v in value.items() if _is_scalar(v)}
    for name in _FIGURES:
        if name in out and out[name] is not None and not _is_number(out[name]):
            notes.append(f"{where}.{name}: {str(out.pop(name))[:40]!r} is not a number")
    hats = value.get("pass_hat")
    if hats is not None:
        good = {str(k): v for k, v in hats.items() if _is_number(v)} if isinstance(hats, dict) else {}
        if not isinstance(hats, dict) or len(good) != len(hats):
            notes.append(f"{where}.pass_hat: holds values that are not numbers")
        out["pass_hat"] = good
    return out


def _report(raw: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    where = REPORT_FILE
    by_env = raw.get("by_env")
    if by_env is not None and not isinstance(by_env, dict):
        notes.append(f"{where}.by_env: not an object")
    failures: list[Any] = raw["failures"] if isinstance(raw.get("failures"), list) else []
    out: dict[str, Any] = {k: v for k, v in raw.items() if _is_scalar(v) and k != "created_at"}
    out["overall"] = _figures(raw.get("overall"), f"{where}.overall", notes)
    envs = by_env if isinstance(by_env, dict) else {}
    out["by_env"] = {str(k): _figures(v, f"{where}.by_env.{k}", notes) for k, v in envs.items()}
    out["failures"] = [
        {**{k: v for k, v in f.items() if _is_scalar(v)}, "tasks": [str(t) for t in f.get("tasks") or [] if t]}
        for f in failures
        if isinstance(f, dict) and isinstance(f.get("tasks") or [], list)
    ]
    out["infra_errors"] = raw.get("infra_errors") if isinstance(raw.get("infra_errors"), list) else []
    out["created_at"] = raw.get("created_at") if _is_number(raw.get("created_at")) else None
    run = raw.get("run")
    out["run"] = {k: v for k, v in run.items() if _is_scalar(v)} if isinstance(run, dict) else {}
    return out


def _record(record: dict[str, Any], where: str, notes: list[str]) -> dict[str, Any] | None:
    """A trial record as the pages read it, or None when it names no task and trial (noted)."""
    task_id, trial = record.get("task_id"), record.get("trial", 0)
    if not isinstance(task_id, str) or not isinstance(trial, int) or isinstance(trial, bool) or trial < 0:
        notes.append(f"{where}: task_id {str(task_id)[:40]!r} / trial {str(trial)[:40]!r} is not a task and a trial")
        return None
    out = dict(record)
    for name in _RECORD_SCALARS:
        if name in out and not _is_scalar(out[name]):
            notes.append(f"{where}.{name}: not text or a number")
            del out[name]
    if "reward" in out and out["reward"] is not None and not _is_number(out["reward"]):
        notes.append(f"{where}.reward: {str(out.pop('reward'))[:40]!r} is not a number")
    latency = out.get("latency")
    if latency is not None and not (isinstance(latency, dict) and _is_number(latency.get("total_s", 0))):
        notes.append(f"{where}.latency: not an object of numbers")
        out["latency"] = {}
    for name in ("messages", "tool_calls"):
        if name in out and not isinstance(out[name], list):
            notes.append(f"{where}.{name}: not a list")
            out[name] = []
    calls = []
    for call in out.get("tool_calls") or []:
        if isinstance(call, dict) and not _is_number(call.get("latency_ms", 0)):
            notes.append(f"{where}.tool_calls: a latency_ms that is not a number")
            call = {k: v for k, v in call.items() if k != "latency_ms"}
        calls.append(call)
    if "tool_calls" in out:
        out["tool_calls"] = calls
    return out


def _trials(path: Path, notes: list[str]) -> list[Trial]:
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):
        return []
    for number, line in enumerate(lines, start=1):
        where = f"{RESULTS_FILE} line {number}"
        raw = _parse(line, where, notes)  # a torn last line is skipped without a note
        record = _record(raw, where, notes) if isinstance(raw, dict) else None
        if record is not None:
            latest[(record["task_id"], int(record.get("trial", 0)))] = record
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
    notes: list[str] = []
    report = _report(_json_file(path / REPORT_FILE, notes), notes)
    run = {k: v for k, v in _json_file(path / RUN_FILE, notes).items() if _is_scalar(v)} or report["run"]
    trials = _trials(path / RESULTS_FILE, notes) if with_trials else []
    return Run(run_id=run_id, path=path, run=run, report=report, trials=trials, malformed=notes)
