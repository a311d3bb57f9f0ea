"""With an LLM backend, task instructions are rewritten by the LLM, then re-verified.

The template text names every fact the gold actions depend on (an email, an id, a date, a quoted
title, an amount). A rewrite is kept only if each of those values still appears in it verbatim;
otherwise, or if the API fails, the template text stays. Every outcome is counted.
"""

from __future__ import annotations

import re
from collections import Counter

from envs import Task

from ..sources.llm import ClientConfig, LLMError, write_task_texts

_FACTS = [
    re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),  # emails
    re.compile(r"\b\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}:\d{2})?\b"),  # dates and datetimes
    re.compile(r"'([^']{2,})'"),  # quoted titles
    re.compile(r"\b[A-Z]{1,4}\d{3,}\b"),  # record ids
    re.compile(r"\b\d+(?:\.\d+)?\b"),  # numbers
]


def facts_of(text: str) -> list[str]:
    """The values a rewrite must keep verbatim.

    >>> facts_of("My email is ann@example.com. Please renew my loan for 'Tidy Windows' due on 2026-04-12.")
    ['ann@example.com', '2026-04-12', 'Tidy Windows']
    """
    found: list[str] = []
    for rx in _FACTS:
        for m in rx.finditer(text):
            value = m.group(1) if rx.groups else m.group(0)
            if value not in found and not any(value in f for f in found):
                found.append(value)
    return found


def rewrite_instructions(tasks: list[Task], config: ClientConfig, counts: Counter[str]) -> list[Task]:
    """Tasks with LLM-written instructions where the rewrite keeps every fact."""
    out = []
    for task in tasks:
        facts = facts_of(task.instruction)
        try:
            text = write_task_texts(
                task.instruction, {f"fact_{i}": f for i, f in enumerate(facts)}, config, persona=task.user.persona
            )
        except LLMError:
            counts["llm_rewrite_failed"] += 1
            out.append(task)
            continue
        if all(f in text for f in facts) and text != task.instruction:
            counts["llm_rewrite_kept"] += 1
            out.append(task.model_copy(update={"instruction": text}))
        else:
            counts["llm_rewrite_rejected"] += 1
            out.append(task)
    return out
