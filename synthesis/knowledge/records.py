"""The value a rule tests on the record a gold write acts on, read from the state just before the call.

A rule's subject names the record and the field ("the parking reservation's entry time", "the move
job" for its status, "the parking lot's lot type"); the record is the row of the table holding that
column whose key the call passes. A subject whose record the call does not name (the member of a
loan renewed by loan id) gives None: no knowledge-base task rests on it.
"""

from __future__ import annotations

from typing import Any

from envs.engine import Environment
from envs.engine.compile import quote_ident
from envs.formats.spec import EnvSpec, TableSpec
from envs.formats.task import Task

from .terms import Terms


def _owner_and_column(subject: str) -> tuple[str, str]:
    words = subject.removeprefix("the ").strip()
    if "'s " in words:
        owner, _, column = words.rpartition("'s ")
        return owner, column.replace(" ", "_")
    return words, "status"


def _owner_table(spec: EnvSpec, owner: str) -> TableSpec | None:
    """The table the subject names ("event booking": ``event_bookings``)."""
    names = {owner + "s", owner + "es", owner[:-1] + "ies", owner}
    keyed = [t for t in spec.tables if len(t.primary_key) == 1]
    exact = [t for t in keyed if t.name.replace("_", " ") in names]
    ending = [t for t in keyed if any(t.name.replace("_", " ").endswith(" " + n) for n in names)]
    return exact[0] if exact else ending[0] if len(ending) == 1 else None


def _column(table: TableSpec, column: str, timed: bool) -> str | None:
    """The column the subject's words name: exactly, or the one date column that starts the same
    way ("scheduled time": ``scheduled_at``)."""
    if any(c.name == column for c in table.columns):
        return column
    head = column.split("_")[0]
    like = [
        c.name for c in table.columns if c.name.split("_")[0] == head and (not timed or c.type in ("date", "datetime"))
    ]
    return like[0] if len(like) == 1 else None


def _lookup(
    spec: EnvSpec, owner: TableSpec, column: str, arguments: dict[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """A query for the owner's ``column`` from the call's arguments: by the owner's key, or through
    one reference of a record whose key the call passes (a catering order's event booking)."""
    key = owner.primary_key[0]
    col = quote_ident(column)
    if key in arguments:
        return f"SELECT {col} AS v FROM {quote_ident(owner.name)} WHERE {quote_ident(key)} = :k", {"k": arguments[key]}
    for t in spec.tables:
        if len(t.primary_key) != 1 or t.primary_key[0] not in arguments:
            continue
        for fk in t.foreign_keys:
            if fk.table == owner.name and len(fk.columns) == 1 and fk.references == [key]:
                on = f"o.{quote_ident(key)} = t.{quote_ident(fk.columns[0])}"
                sql = (
                    f"SELECT o.{col} AS v FROM {quote_ident(t.name)} t JOIN {quote_ident(owner.name)} o "
                    f"ON {on} WHERE t.{quote_ident(t.primary_key[0])} = :k"
                )
                return sql, {"k": arguments[t.primary_key[0]]}
    return None


def tested_value(env: Environment, task: Task, index: int, terms: Terms) -> str | None:
    """The value ``terms`` test on the record gold call ``index`` acts on, in the state before it."""
    call = task.gold_actions[index]
    owner_words, words = _owner_and_column(terms.subject)
    owner = _owner_table(env.spec, owner_words)
    column = _column(owner, words, terms.kind in ("after", "before", "last", "passed")) if owner else None
    lookup = _lookup(env.spec, owner, column, call.arguments) if owner is not None and column else None
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
