"""The value a rule tests on the record a gold write acts on, read from the state just before the call.

A rule's subject names the record and the field ("the parking reservation's entry time", "the move
job" for its status, "the parking lot's lot type"); the record is the row of the table holding that
column whose key the call passes. A subject whose record the call does not name (the member of a
loan renewed by loan id) gives None: no knowledge-base task rests on it.
"""

from __future__ import annotations

from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.tested import column_named, owner_and_column, owner_table, record_lookup

from .terms import Terms


def tested_value(env: Environment, task: Task, index: int, terms: Terms) -> str | None:
    """The value ``terms`` test on the record gold call ``index`` acts on, in the state before it."""
    call = task.gold_actions[index]
    owner_words, words = owner_and_column(terms.subject)
    owner = owner_table(env.spec, owner_words)
    column = column_named(owner, words, terms.kind in ("after", "before", "last", "passed")) if owner else None
    lookup = record_lookup(env.spec, owner, column, call.arguments) if owner is not None and column else None
    if lookup is None:
        return None
    episode = env.episode(task)
    try:
        episode.replay(task.gold_actions[:index])
        rows = episode.query(*lookup)
    finally:
        episode.close()
    if len(rows) != 1 or rows[0]["v"] is None:
        return None
    return str(rows[0]["v"])
