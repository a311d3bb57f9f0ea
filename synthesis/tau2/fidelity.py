"""Compare an imported tau2 domain with tau2's own replay of every task (``expected/<domain>.jsonl``):
each gold action's result and error flag, and the final database as a diff against the initial one.

A result matches when tau2's text equals the string the tool returned, or parses as JSON equal to
the value it returned; an error matches when tau2's ``"Error: <message>"`` carries the engine's
message. The diff matches when every table's added, changed and removed records are equal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from envs.engine import Environment
from envs.errors import ToolError

from .common import Tau2Domain, db_diff, export_db


@dataclass
class Fidelity:
    tasks: int = 0
    tasks_equal: int = 0
    actions: int = 0
    actions_equal: int = 0
    states_equal: int = 0
    mismatches: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.tasks_equal}/{self.tasks} tasks equal; gold action results {self.actions_equal}/{self.actions}; "
            f"final states {self.states_equal}/{self.tasks}"
        )


def result_matches(expected: dict[str, Any], value: Any, error: str | None) -> bool:
    """Whether one call's outcome is tau2's (``expected`` has ``error`` and ``result``)."""
    if expected["error"] or error is not None:
        return bool(expected["error"]) and error is not None and expected["result"] == f"Error: {error}"
    if isinstance(value, str):
        return bool(expected["result"] == value)
    try:
        return bool(json.loads(expected["result"]) == value)
    except ValueError:
        return False


def _normalized_diff(diff: dict[str, Any]) -> dict[str, Any]:
    return {
        table: {"added": d.get("added", {}), "changed": d.get("changed", {}), "removed": sorted(d.get("removed", []))}
        for table, d in diff.items()
    }


def compare(
    env: Environment,
    domain: Tau2Domain,
    expected: Iterable[dict[str, Any]],
    *,
    progress: Callable[[int], None] | None = None,
) -> Fidelity:
    """Replay every task's tau2 gold actions on a fresh episode and compare with ``expected``."""
    report = Fidelity()
    initial_episode = env.episode()
    initial = export_db(initial_episode, domain)
    initial_episode.close()
    for record in expected:
        report.tasks += 1
        task_ok = True
        episode = env.episode()
        for i, action in enumerate(record["actions"]):
            report.actions += 1
            value, error = None, None
            try:
                value = episode.call_tool(action["name"], action["arguments"]).content
            except ToolError as exc:
                error = str(exc)
            if result_matches(action, value, error):
                report.actions_equal += 1
            else:
                task_ok = False
                got = f"error {error!r}" if error is not None else json.dumps(value)[:300]
                where = f"task {record['task_id']} action {i} {action['name']}"
                report.mismatches.append(f"{where}: expected {action['result'][:300]!r}, got {got}")
        diff = db_diff(initial, export_db(episode, domain))
        episode.close()
        if _normalized_diff(diff) == _normalized_diff(record["diff"]):
            report.states_equal += 1
        else:
            task_ok = False
            report.mismatches.append(f"task {record['task_id']}: final state differs: {_explain(record['diff'], diff)}")
        report.tasks_equal += task_ok
        if progress:
            progress(report.tasks)
    return report


def _explain(expected: dict[str, Any], actual: dict[str, Any]) -> str:
    parts = []
    for table in sorted(expected.keys() | actual.keys()):
        e, a = expected.get(table, {}), actual.get(table, {})
        for kind in ("added", "changed"):
            for key in sorted(set(e.get(kind, {})) | set(a.get(kind, {}))):
                ev, av = e.get(kind, {}).get(key), a.get(kind, {}).get(key)
                if ev != av:
                    fields = sorted(
                        k for k in (ev or {}).keys() | (av or {}).keys() if (ev or {}).get(k) != (av or {}).get(k)
                    )
                    parts.append(
                        f"{table} {kind} {key}: fields {fields}"
                        + (f" expected {[ev.get(k) for k in fields]} got {[av.get(k) for k in fields]}")
                    )
        if sorted(e.get("removed", [])) != sorted(a.get("removed", [])):
            parts.append(f"{table} removed {e.get('removed')} vs {a.get('removed')}")
    return "; ".join(parts)[:1500]
