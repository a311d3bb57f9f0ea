"""What the user says when asked because the policy waits on it: "Open a dispute only after the
cardholder says they tried to resolve it with the merchant, unless it is fraud." No record holds it,
so each gold write such a line governs (and its exception does not spare) gives the user the
statement as a fact they reveal when asked (``envs.grading.stated``, which ``check_env`` reads back).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from envs import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task, ToolCall
from envs.grading.stated import Stated, policy_conditions
from envs.grading.tested import details_tool, unshown_values

from .chain import Goal


class Statements:
    """The conditions only the user can state, read once from an environment's policy."""

    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self.conditions: list[tuple[Stated, set[str]]] = [
            (c, set(c.governs(spec))) for c in policy_conditions([spec.policy])
        ]

    def facts(self, calls: Sequence[dict[str, Any]], goals: Sequence[Goal]) -> list[str]:
        """The statements the task's gold writes wait on, each once: a bare sentence where one write
        waits, else each prefixed with the record it is about ("About my card transaction posted on
        February 3: …")."""
        found: list[tuple[Stated, str | None]] = []
        for call in calls:
            for c, tools in self.conditions:
                if call["tool"] in tools and not c.exempts(call["arguments"]):
                    keys = {str(v) for v in call["arguments"].values()}
                    phrase = next((g.phrase for g in goals if g.tool == call["tool"] and g.key in keys), None)
                    found.append((c, phrase))
        found = list(dict.fromkeys(found))
        if len(found) == 1:
            return [f"{found[0][0].statement}."]
        return [f"About {p}: {c.statement}." if p else f"{c.statement}." for c, p in found]


def read_what_rules_test(env: Environment, task: Task, results: Sequence[Any]) -> Task:
    """``task`` with a read of each record a rule left to the policy tests on a gold write, where no
    earlier call returns the value (``envs.grading.tested``): a score recipient added within 30 days
    of the sitting reads the sitting, or the agent decides on a date it was never shown. Each read
    goes just before the write; a record with no details tool is left as it is (``check_env`` says so)."""
    inserts: dict[int, list[ToolCall]] = {}
    for t in unshown_values(env, task, list(results)):
        tool = details_tool(env.spec, t.table)
        key = env.spec.table(t.table).primary_key[0]
        call = ToolCall(tool=tool, arguments={key: t.key}) if tool is not None else None
        if call is not None and call not in inserts.get(t.index, []):
            inserts.setdefault(t.index, []).append(call)
    if not inserts:
        return task
    gold = [c for i, call in enumerate(task.gold_actions) for c in [*inserts.get(i, []), call]]
    return task.model_copy(update={"gold_actions": gold})
