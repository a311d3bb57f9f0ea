"""The farm's JSON as a client reads it: scores, tool calls and user profiles.

The farm defines these shapes in ``envs`` (``envs.grading.scoring.Score``, ``envs.formats.task.ToolCall``,
``envs.formats.task.UserProfile``). A client must not need ``envs``: the client distribution
(``envfarm-client``) installs beside a trainer's pinned libraries, without the farm's engine. So the
client reads the same JSON into models of its own. They ignore unknown fields, so an older client keeps
working against a newer farm; ``tests/clients/test_wire.py`` keeps them field for field equal to the
farm's models.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Row = dict[str, Any]


class Wire(BaseModel):
    """Base of the wire models: unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")


class UserProfile(Wire):
    """Who the user of a task is, for a user simulator (``persona``, facts told freely, facts told only
    when asked, how the user behaves)."""

    persona: str = ""
    known_facts: list[str] = []
    reveal_if_asked: list[str] = []
    behaviour: list[str] = []


class ToolCall(Wire):
    """One tool call: the name, its arguments, and who makes it (the user, in a dual-control
    environment, on their own device)."""

    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = {}
    actor: Literal["agent", "user"] = Field("agent", exclude_if=lambda actor: actor == "agent")


class ColumnChange(Wire):
    """One column of one row that differs."""

    column: str
    expected: Any
    actual: Any


class ChangedRow(Wire):
    """A row present on both sides whose columns differ."""

    key: dict[str, Any]
    columns: list[ColumnChange]


class TableDiff(Wire):
    """How one table differs from what was expected."""

    table: str
    missing: list[Row] = []
    extra: list[Row] = []
    changed: list[ChangedRow] = []

    @property
    def empty(self) -> bool:
        return not (self.missing or self.extra or self.changed)


class CheckResult(Wire):
    """One checklist item and whether it holds (``assertion``, ``output``, ``distractor``, ``refusal``)."""

    kind: str
    description: str
    passed: bool
    error: str | None = None


class Score(Wire):
    """The farm's verdict on an episode (``POST /episodes/{id}/score``).

    Attributes:
        reward: 1.0 if every component in the task's reward basis holds, else 0.0.
        partial_credit: share of checklist items and expected row changes achieved, minus
            unexpected row changes, in [0, 1].
        components: each reward component's value (state, outputs, assertions).
        diff: per changed table, rows missing / extra / changed column by column.
        renamed_ids: the agent's generated ids read as the gold run's. Empty when none was needed.
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
