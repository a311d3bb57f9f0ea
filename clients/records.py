"""Trial records and the run directory's ``results.jsonl`` (append-only; resumable).

Each finished trial appends one JSON line. On resume the latest record per (task_id, trial) wins;
trials whose latest record is an infrastructure error, and trials with no record at all (the run
was interrupted), are run again. A torn last line from a crash is ignored.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from .errors import RunDirError
from .wire import Score

log = logging.getLogger("envfarm.clients")
RESULTS_FILE = "results.jsonl"
SUCCESS_THRESHOLD = 1.0 - 1e-9


class ToolCallRecord(BaseModel):
    """One tool call of a trial: what was asked, what came back, how long it took."""

    id: str
    tool: str
    arguments: dict[str, Any] | None
    raw_arguments: str
    is_error: bool
    result: str
    turn: int
    latency_ms: float
    actor: Literal["agent", "user"] = "agent"  # the user calls tools of their own in dual control


class Tokens(BaseModel):
    """Tokens used by the agent and by the user simulator."""

    agent_input: int = 0
    agent_output: int = 0
    user_input: int = 0
    user_output: int = 0


class Latency(BaseModel):
    """Seconds spent in the whole trial and in each part of it."""

    total_s: float = 0.0
    agent_s: float = 0.0
    user_s: float = 0.0
    tools_s: float = 0.0
    score_s: float = 0.0


class TrialRecord(BaseModel):
    """Everything about one trial of one task.

    ``error_class`` is None for a clean run, ``agent`` when the agent failed (the trial still counts,
    scored on the state it left), ``infra`` when the server or an API failed (no score; never counted
    as reward 0; run again on resume). ``truncated`` marks a run cut off by max turns or tool calls.
    """

    task_id: str
    env_id: str
    sector: str = ""
    difficulty: str = ""
    trial: int
    agent: str
    model: str | None = None
    user: str = "solo"
    user_model: str | None = None
    episode_id: str | None = None
    messages: list[dict[str, Any]] = []
    tool_calls: list[ToolCallRecord] = []
    answer: str = ""
    reward: float | None = None
    partial_credit: float | None = None
    score: Score | None = None
    diff: list[str] = []
    tokens: Tokens = Tokens()
    latency: Latency = Latency()
    turns: int = 0
    retries: int = 0
    truncated: bool = False
    terminated: bool = False
    error_class: Literal["agent", "infra"] | None = None
    error_type: str | None = None
    error: str | None = None
    started_at: float = 0.0
    finished_at: float = 0.0

    @property
    def key(self) -> tuple[str, int]:
        """(task_id, trial): what identifies a trial across resumes."""
        return (self.task_id, self.trial)

    @property
    def counts(self) -> bool:
        """Whether this trial counts in the metrics (it was not an infrastructure error)."""
        return self.error_class != "infra" and self.reward is not None

    @property
    def success(self) -> bool:
        """Whether the trial earned the full reward."""
        return self.counts and (self.reward or 0.0) >= SUCCESS_THRESHOLD


class ResultStore:
    """``results.jsonl`` in a run directory.

    >>> import tempfile
    >>> store = ResultStore(Path(tempfile.mkdtemp()))
    >>> store.latest()
    {}
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.path = run_dir / RESULTS_FILE

    def load(self) -> list[TrialRecord]:
        """Every readable record, in file order (unreadable lines are skipped with a warning)."""
        if not self.path.exists():
            return []
        records: list[TrialRecord] = []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise RunDirError(f"cannot read {self.path}: {exc.strerror}") from None
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append(TrialRecord.model_validate_json(line))
            except ValidationError:
                log.warning("%s line %d is not a trial record (an interrupted write?); ignored", self.path, n)
        return records

    def latest(self) -> dict[tuple[str, int], TrialRecord]:
        """The latest record of every (task_id, trial)."""
        return {r.key: r for r in self.load()}

    def finished(self) -> set[tuple[str, int]]:
        """Trials that need no new run: their latest record is not an infrastructure error."""
        return {k for k, r in self.latest().items() if r.error_class != "infra"}

    def append(self, record: TrialRecord) -> None:
        """Append one record as one line, flushed to disk."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        line = record.model_dump_json() + "\n"
        with self.path.open("a", encoding="utf-8") as f:
            if f.tell() > 0 and not _ends_with_newline(self.path):
                f.write("\n")  # seal a torn line left by a crash
            f.write(line)
            f.flush()
            os.fsync(f.fileno())


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def read_json(path: Path) -> Any:
    """Load a JSON file of a run directory, as a ``RunDirError`` when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunDirError(f"cannot read {path}: {exc}") from None
