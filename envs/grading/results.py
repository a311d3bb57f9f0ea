"""What a score is made of: table diffs, checklist items and the verdict itself."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

Row = dict[str, Any]


class ColumnChange(BaseModel):
    """One column of one row that differs."""

    column: str
    expected: Any
    actual: Any


class ChangedRow(BaseModel):
    """A row present on both sides whose columns differ."""

    key: dict[str, Any]
    columns: list[ColumnChange]


class TableDiff(BaseModel):
    """How one table differs from what was expected."""

    table: str
    missing: list[Row] = []
    extra: list[Row] = []
    changed: list[ChangedRow] = []

    @property
    def empty(self) -> bool:
        return not (self.missing or self.extra or self.changed)


class CheckResult(BaseModel):
    """One checklist item and whether it holds: an ``assertion`` on the final state, or a check of
    the answer: a required ``output`` stated, a ``distractor`` not stated, a ``refusal`` said."""

    kind: str
    description: str
    passed: bool
    error: str | None = None


class Score(BaseModel):
    """The verdict on an episode.

    Attributes:
        reward: 1.0 if every component in the task's reward basis holds, else 0.0.
        partial_credit: share of checklist items and expected row changes achieved, minus
            unexpected row changes, in [0, 1].
        components: each reward component's value (state, outputs, assertions).
        diff: per changed table, rows missing / extra / changed column by column.
        renamed_ids: the agent's generated ids read as the gold run's (see ``score_episode``); the
            diff, checklist and answer are judged under this renaming. Empty when none was needed.
    """

    task_id: str
    reward: float
    partial_credit: float
    components: dict[str, float]
    checklist: list[CheckResult]
    expected_changes: int
    achieved_changes: int
    unexpected_changes: int
    diff: list[TableDiff]
    renamed_ids: dict[str, str] = {}

    def explain(self) -> str:
        """A few readable lines: what failed and how."""
        lines = [f"task {self.task_id}: reward {self.reward:.2f}, partial credit {self.partial_credit:.2f}"]
        if self.renamed_ids:
            pairs = ", ".join(f"{old} as {new}" for old, new in sorted(self.renamed_ids.items()))
            lines.append(f"  generated ids read as the gold run's: {pairs}")
        lines += [
            f"  [{c.kind}] not satisfied: {c.description}" + (f" ({c.error})" if c.error else "")
            for c in self.checklist
            if not c.passed
        ]
        for d in self.diff:
            lines += [f"  {d.table}: missing row {json.dumps(r, default=str)}" for r in d.missing]
            lines += [f"  {d.table}: unexpected row {json.dumps(r, default=str)}" for r in d.extra]
            for ch in d.changed:
                cols = "; ".join(f"{c.column}: expected {c.expected!r}, got {c.actual!r}" for c in ch.columns)
                lines.append(f"  {d.table} {ch.key}: {cols}")
        return "\n".join(lines)
