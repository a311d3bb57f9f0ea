"""Compare the imported telecom domain with tau2's own replay of every task (``expected/telecom.jsonl``):
the initial state of both sides, each gold action's result text and error flag (as its requestor),
the final state of both sides as diffs, and each env assertion's ``met``.

A result matches when tau2's text is the string the tool returned, or, for a JSON result, Python's
``json.dumps`` of it (tau2's serialization); an error matches when tau2's ``"Error: <message>"`` carries
the engine's message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from envs.engine import Environment
from envs.errors import ToolError
from envs.formats.task import Task

from .common import db_diff
from .fidelity import _explain, _normalized_diff
from .telecom_data import export_agent_db
from .telecom_phone import export_user_db, object_diff

_ACTORS = {"assistant": "agent", "user": "user"}


@dataclass
class TelecomFidelity:
    tasks: int = 0
    initial_states_equal: int = 0
    actions: int = 0
    actions_equal: int = 0
    agent_states_equal: int = 0
    user_states_equal: int = 0
    assertions: int = 0
    assertions_equal: int = 0
    tasks_equal: int = 0
    mismatches: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.tasks_equal}/{self.tasks} tasks equal; initial states {self.initial_states_equal}/{self.tasks}; "
            f"gold action results {self.actions_equal}/{self.actions}; final agent DB {self.agent_states_equal}/"
            f"{self.tasks}, final user DB {self.user_states_equal}/{self.tasks}; env assertions "
            f"{self.assertions_equal}/{self.assertions}"
        )


def result_text(value: Any) -> str:
    """A tool's result as tau2's tool message shows it."""
    return value if isinstance(value, str) else json.dumps(value)


def compare_telecom(env: Environment, tasks: Iterable[Task], expected: Iterable[dict[str, Any]]) -> TelecomFidelity:
    """Replay every task's tau2 gold actions on its imported initial state and compare with ``expected``
    (records in the order of ``tasks``)."""
    report = TelecomFidelity()
    pristine_episode = env.episode()
    pristine_agent, pristine_user = export_agent_db(pristine_episode), export_user_db(pristine_episode)
    pristine_episode.close()
    for task, record in zip(tasks, expected, strict=True):
        report.tasks += 1
        ok, where = True, f"task {record['task_id']}"
        if f"tau2-id:{record['task_id']}" not in task.tags:
            raise ValueError(f"{where}: the imported tasks are not in the reference's order (got {task.id})")
        episode = env.episode(task)
        agent, user = export_agent_db(episode), export_user_db(episode)
        init_agent = _normalized_diff(db_diff(pristine_agent, agent))
        if (
            init_agent == _normalized_diff(record["init_diff"])
            and user == record["initial_user_db"]
            and object_diff(pristine_user, user) == record["init_user_diff"]
        ):
            report.initial_states_equal += 1
        else:
            ok = False
            report.mismatches.append(
                f"{where}: initial state differs: {_explain(record['init_diff'], init_agent)} "
                f"user {object_diff(record['initial_user_db'], user)}"
            )
        for i, action in enumerate(record["actions"]):
            report.actions += 1
            text, error = None, False
            try:
                value = episode.call_tool(action["name"], action["arguments"], actor=_ACTORS[action["requestor"]])
                text = result_text(value.content)
            except ToolError as exc:
                text, error = f"Error: {exc}", True
            if text == action["result"] and error == action["error"]:
                report.actions_equal += 1
            else:
                ok = False
                report.mismatches.append(
                    f"{where} action {i} {action['name']}: expected {action['result']!r}, got {text!r}"
                )
        final_agent, final_user = export_agent_db(episode), export_user_db(episode)
        diff = _normalized_diff(db_diff(agent, final_agent))
        if diff == _normalized_diff(record["diff"]):
            report.agent_states_equal += 1
        else:
            ok = False
            report.mismatches.append(f"{where}: final agent DB differs: {_explain(record['diff'], diff)}")
        user_diff = object_diff(user, final_user)
        if user_diff == record["user_diff"]:
            report.user_states_equal += 1
        else:
            ok = False
            report.mismatches.append(f"{where}: final user DB differs: expected {record['user_diff']}, got {user_diff}")
        for i, (check, wanted) in enumerate(zip(task.assertions, record["env_assertions"], strict=True)):
            report.assertions += 1
            rows = episode.query(check.sql)
            met = bool(rows and next(iter(rows[0].values())))
            if met == wanted["met"]:
                report.assertions_equal += 1
            else:
                ok = False
                report.mismatches.append(
                    f"{where} assertion {i} {wanted['func_name']}: tau2 {wanted['met']}, here {met}"
                )
        episode.close()
        report.tasks_equal += ok
    return report
