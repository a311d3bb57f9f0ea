"""Measures of judgment: where the rules live, which refusals the tools cannot make for the agent,
whether the instruction gives a refusal away, and whether answers must tell records apart.

Read from a spec's ``rules`` and the tasks alone (docs/synthesis.md, "Quality report"):

* ``rules`` / ``policy_only_rules``: the policy's rules about write tools, and those no tool checks;
* ``policy_refusal_tasks``: tasks with a refusal that rests on a policy-only rule (acting changes
  the state; the tool would allow it);
* ``why_clause_refusal_tasks`` / ``why_clause_other_tasks``: instructions asking "if you can't, tell
  me why", among tasks with a refusal and among the rest (a clause on one kind only gives it away);
* ``information_tasks`` / ``information_tasks_with_distractors``: questions, and those whose answer
  fails if it also states the other candidates' values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..formats.spec import EnvSpec
from ..formats.task import Task

_WHY_CLAUSE = re.compile(
    r"\b(?:tell me why|explain why|let me know why|if (?:that's|that is|it's|it is|this is|"
    r"something is|any of this) (?:not possible|can't be done)|if you can't|if not,? (?:please )?(?:tell|explain))\b",
    re.IGNORECASE,
)


@dataclass
class JudgmentCounts:
    rules: int = 0
    policy_only_rules: int = 0
    policy_refusal_tasks: int = 0
    why_clause_refusal_tasks: int = 0
    why_clause_other_tasks: int = 0
    information_tasks: int = 0
    information_tasks_with_distractors: int = 0


def asks_why(instruction: str) -> bool:
    """Whether an instruction asks to be told why if its request cannot be done.

    >>> asks_why("Please renew my loan. If that's not possible, tell me why."), asks_why("Renew my loan.")
    (True, False)
    """
    return _WHY_CLAUSE.search(instruction) is not None


def judgment_counts(spec: EnvSpec, tasks: list[Task]) -> JudgmentCounts:
    """The judgment measures of one environment."""
    c = JudgmentCounts(rules=len(spec.rules), policy_only_rules=sum(r.enforced_by == "policy" for r in spec.rules))
    in_policy = {r.id for r in spec.rules if r.enforced_by == "policy"}
    for task in tasks:
        refused = bool(task.refusals) or any(tag in task.tags for tag in ("refusal", "partial-refusal"))
        c.policy_refusal_tasks += any(r.rule in in_policy for r in task.refusals)
        why = asks_why(task.instruction)
        c.why_clause_refusal_tasks += refused and why
        c.why_clause_other_tasks += not refused and why
        if "information" in task.tags:
            c.information_tasks += 1
            c.information_tasks_with_distractors += bool(task.distractors)
    return c
