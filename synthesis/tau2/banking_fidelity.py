"""Compare the imported banking_knowledge domain with tau2's own replay of every task
(``expected/banking_knowledge.jsonl``): each task's initial state (as a diff from ``db.json``, and tau2's
DB hash), each gold action's result text and error flag (as its requestor), and the final state (as a
diff from the initial one, and the hash).

A result matches when it is tau2's text exactly. tau2's unlock and hand-over texts quote its tools'
docstrings, which this repository does not copy: ``results_but_descriptions`` also counts a result that
is tau2's once every ``Description:`` line and parameter description is set aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from envs.engine import Environment
from envs.errors import ToolError
from envs.formats.task import Task

from .banking_data import db_hash, export_db
from .common import db_diff
from .fidelity import _explain, _normalized_diff

_ACTORS = {"assistant": "agent", "user": "user"}
_SPANS = (
    re.compile(r"^(Tool unlocked: [^\n]*\nDescription: ).*?(\n\nTool: )", re.DOTALL),
    re.compile(r"(\n\nTool: [^\n]*\nDescription: ).*?(\nParameters:\n)", re.DOTALL),
    re.compile(r"^(Tool given to user: [^\n]*\nDescription: ).*?(\nArguments: )", re.DOTALL),
)
_DESCRIBED = re.compile(r"^(Description: ).*$|^(  - \w+: \w+ \((?:required|optional)\) - ).*$", re.MULTILINE)


@dataclass
class BankingFidelity:
    tasks: int = 0
    imported: int = 0
    initial_states_equal: int = 0
    initial_hashes_equal: int = 0
    actions: int = 0
    actions_equal: int = 0
    actions_equal_but_descriptions: int = 0
    final_states_equal: int = 0
    final_hashes_equal: int = 0
    tasks_equal: int = 0
    tasks_equal_but_descriptions: int = 0
    mismatches: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.imported}/{self.tasks} tasks imported; of them {self.tasks_equal} equal "
            f"({self.tasks_equal_but_descriptions} apart from tool descriptions); initial states "
            f"{self.initial_states_equal}/{self.imported} (hash {self.initial_hashes_equal}); gold action results "
            f"{self.actions_equal}/{self.actions} ({self.actions_equal_but_descriptions} apart from tool "
            f"descriptions); final states {self.final_states_equal}/{self.imported} (hash {self.final_hashes_equal})"
        )


def _data(dump: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {table: content["data"] for table, content in dump.items()}


def without_descriptions(text: str) -> str:
    """A result with the tool descriptions it quotes set aside (a description may run over lines: it ends
    where the result's next part starts)."""
    for pattern in _SPANS:
        text = pattern.sub(r"\1\2", text)
    return _DESCRIBED.sub(lambda m: m.group(1) or m.group(2), text)


def compare_banking(env: Environment, tasks: Iterable[Task], expected: Iterable[dict[str, Any]]) -> BankingFidelity:
    """Replay every imported task's tau2 gold actions on its initial state and compare with ``expected``
    (records in tau2's loader order; tasks that were not imported are counted, not replayed)."""
    report = BankingFidelity()
    by_id = {tag.removeprefix("tau2-id:"): task for task in tasks for tag in task.tags if tag.startswith("tau2-id:")}
    pristine_episode = env.episode()
    pristine = export_db(pristine_episode)
    pristine_episode.close()
    for record in expected:
        report.tasks += 1
        task = by_id.get(record["task_id"])
        if task is None:
            continue
        report.imported += 1
        where = f"task {record['task_id']}"
        ok = loose = True
        episode = env.episode(task)
        initial = export_db(episode)
        init_diff = _normalized_diff(db_diff(_data(pristine), _data(initial)))
        if init_diff == _normalized_diff(record["init_diff"]):
            report.initial_states_equal += 1
        else:
            ok = loose = False
            report.mismatches.append(f"{where}: initial state differs: {_explain(record['init_diff'], init_diff)}")
        if db_hash(initial) == record["initial_db_hash"]:
            report.initial_hashes_equal += 1
        else:
            ok = loose = False
            report.mismatches.append(f"{where}: initial DB hash differs")
        for i, action in enumerate(record["actions"]):
            report.actions += 1
            text, error = None, False
            try:
                value = episode.call_tool(action["name"], action["arguments"], actor=_ACTORS[action["requestor"]])
                text = value.content if isinstance(value.content, str) else repr(value.content)
            except ToolError as exc:
                text, error = f"Error: {exc}", True
            if text == action["result"] and error == action["error"]:
                report.actions_equal += 1
                report.actions_equal_but_descriptions += 1
                continue
            ok = False
            if error == action["error"] and without_descriptions(text) == without_descriptions(action["result"]):
                report.actions_equal_but_descriptions += 1
                continue
            loose = False
            report.mismatches.append(
                f"{where} action {i} {action['name']}: expected {action['result']!r}, got {text!r}"
            )
        final = export_db(episode)
        diff = _normalized_diff(db_diff(_data(initial), _data(final)))
        if diff == _normalized_diff(record["diff"]):
            report.final_states_equal += 1
        else:
            ok = loose = False
            report.mismatches.append(f"{where}: final DB differs: {_explain(record['diff'], diff)}")
        if db_hash(final) == record["final_db_hash"]:
            report.final_hashes_equal += 1
        else:
            ok = loose = False
            report.mismatches.append(f"{where}: final DB hash differs")
        episode.close()
        report.tasks_equal += ok
        report.tasks_equal_but_descriptions += loose
    return report
