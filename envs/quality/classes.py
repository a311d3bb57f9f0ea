"""The task classes of the gaming report: what kind of judgment a task tests."""

from __future__ import annotations

from ..engine import Environment
from ..formats.task import Task
from .dual import needs_user_write

INFORMATION, POLICY_REFUSAL, ENFORCED_REFUSAL, WRITE, WRITE_VALUE, USER_ACTS, DOCUMENTS, DOCUMENT_WRITES = (
    "information",
    "refusal (policy-only rule)",
    "refusal (enforced)",
    "write",
    "write (value asked)",
    "user acts",
    "documents",
    "documents (write)",
)
CLASSES = (INFORMATION, POLICY_REFUSAL, ENFORCED_REFUSAL, WRITE, WRITE_VALUE, USER_ACTS, DOCUMENTS, DOCUMENT_WRITES)


def task_class(env: Environment, task: Task) -> str:
    """Which class of the gaming report ``task`` falls in: ``documents`` when the documents it names
    decide a refusal (a knowledge-base task: the rule is in an article the agent must find and read),
    ``documents (write)`` when they decide only writes the agent must make; ``write (value asked)`` for
    a write task that asks for a value too (the new balance after the writes)."""
    if task.required_documents:
        return DOCUMENTS if task.refusals else DOCUMENT_WRITES
    if task.refusals:
        for r in task.refusals:
            rule = env.spec.rule(r.rule) if r.rule else None
            if rule is not None and rule.enforced_by == "policy":
                return POLICY_REFUSAL
        return ENFORCED_REFUSAL
    if "information" in task.tags:
        return INFORMATION
    if needs_user_write(env, task):  # dual control: the user must change something on their side
        return USER_ACTS
    return WRITE_VALUE if task.outputs else WRITE
