"""The value a rule tests on the record a gold write acts on, and whether the agent is shown it.

A rule's subject names the record and the field ("the parking reservation's entry time", "the move
job" for its status, "the exam sitting's sitting time"); the record is the row of the table holding
that column whose key the call passes, or the one a record the call names points to (the sitting of
the registration the call passes). A subject whose record the call does not reach gives None.

An agent that keeps a rule the tools leave to it decides from that value, so a gold write under such a
rule must be preceded by a call whose result shows it, a read or the create that made the record
(:func:`unshown_values`, checked by ``check_env``): a write on a registration whose sitting no call
reads rests on a date the agent was never told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..engine import Environment
from ..engine.compile import quote_ident
from ..formats.spec import EnvSpec, TableSpec
from ..formats.task import Task
from .decidable import is_time_rule
from .outputs import output_present

_SUBJECT = re.compile(r"^(?:not when (?P<excluded>.+?) is |(?P<subject>.+?) must )")


def owner_and_column(subject: str) -> tuple[str, str]:
    """The record and the column a subject names: "the exam sitting's sitting time" is
    (exam sitting, sitting_time); a bare record ("the move job") is its status.

    >>> owner_and_column("the exam sitting's sitting time"), owner_and_column("the move job")
    (('exam sitting', 'sitting_time'), ('move job', 'status'))
    """
    words = subject.removeprefix("the ").strip()
    if "'s " in words:
        owner, _, column = words.rpartition("'s ")
        return owner, column.replace(" ", "_")
    return words, "status"


def owner_table(spec: EnvSpec, owner: str) -> TableSpec | None:
    """The table the subject names ("event booking": ``event_bookings``)."""
    names = {owner + "s", owner + "es", owner[:-1] + "ies", owner}
    keyed = [t for t in spec.tables if len(t.primary_key) == 1]
    exact = [t for t in keyed if t.name.replace("_", " ") in names]
    ending = [t for t in keyed if any(t.name.replace("_", " ").endswith(" " + n) for n in names)]
    return exact[0] if exact else ending[0] if len(ending) == 1 else None


def column_named(table: TableSpec, column: str, timed: bool) -> str | None:
    """The column the subject's words name: exactly, or the one date column that starts the same
    way ("scheduled time": ``scheduled_at``)."""
    if any(c.name == column for c in table.columns):
        return column
    head = column.split("_")[0]
    like = [
        c.name for c in table.columns if c.name.split("_")[0] == head and (not timed or c.type in ("date", "datetime"))
    ]
    return like[0] if len(like) == 1 else None


def record_lookup(
    spec: EnvSpec, owner: TableSpec, column: str, arguments: dict[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """A query for the owner's ``column`` (as ``v``) and key (as ``k``) from the call's arguments: by
    the owner's key, or through one reference of a record whose key the call passes (a catering
    order's event booking)."""
    key = owner.primary_key[0]
    col, kcol = quote_ident(column), quote_ident(key)
    if key in arguments:
        sql = f"SELECT {col} AS v, {kcol} AS k FROM {quote_ident(owner.name)} WHERE {kcol} = :k"
        return sql, {"k": arguments[key]}
    for t in spec.tables:
        if len(t.primary_key) != 1 or t.primary_key[0] not in arguments:
            continue
        for fk in t.foreign_keys:
            if fk.table == owner.name and len(fk.columns) == 1 and fk.references == [key]:
                on = f"o.{kcol} = t.{quote_ident(fk.columns[0])}"
                sql = (
                    f"SELECT o.{col} AS v, o.{kcol} AS k FROM {quote_ident(t.name)} t JOIN {quote_ident(owner.name)} o "
                    f"ON {on} WHERE t.{quote_ident(t.primary_key[0])} = :k"
                )
                return sql, {"k": arguments[t.primary_key[0]]}
    return None


def rule_subject(text: str) -> str | None:
    """The subject of a rule as a generated policy words it, or None for a form without one.

    >>> rule_subject("the exam sitting's sitting time must be within the last 30 days")
    "the exam sitting's sitting time"
    >>> rule_subject("not when the lot type is valet"), rule_subject("at most 2 reviews per registration")
    ('the lot type', None)
    """
    m = _SUBJECT.match(text.strip())
    if m is None:
        return None
    return m["subject"] or m["excluded"]


@dataclass(frozen=True)
class Decisive:
    """A rule a gold write rests on and what it tests: the table, the record's key, the column, the value."""

    index: int
    rule: str
    table: str
    key: str
    column: str
    value: str


def decisive_values(env: Environment, task: Task) -> Iterator[Decisive]:
    """Each rule the tools leave to the policy on each gold write of ``task``, with the value it tests
    on the record the write acts on, read from the state just before the call (rules whose subject
    the call does not reach are skipped)."""
    episode = None
    done = 0
    try:
        for i, call in enumerate(task.gold_actions):
            tool = env.spec.tool(call.tool)
            if tool is None or tool.kind != "write":
                continue
            for rule in env.spec.rules:
                if rule.tool != call.tool or rule.enforced_by != "policy":
                    continue
                found = _lookup_of(env.spec, rule.text, call.arguments)
                if found is None:
                    continue
                table, column, (sql, params) = found
                if episode is None:
                    episode = env.episode(task)
                episode.replay(task.gold_actions[done:i])
                done = i
                rows = episode.query(sql, params)
                if len(rows) == 1 and rows[0]["v"] is not None:
                    yield Decisive(i, rule.text, table, str(rows[0]["k"]), column, str(rows[0]["v"]))
    finally:
        if episode is not None:
            episode.close()


def _lookup_of(
    spec: EnvSpec, text: str, arguments: dict[str, Any]
) -> tuple[str, str, tuple[str, dict[str, Any]]] | None:
    subject = rule_subject(text)
    if subject is None:
        return None
    owner_words, words = owner_and_column(subject)
    owner = owner_table(spec, owner_words)
    column = column_named(owner, words, is_time_rule(text)) if owner is not None else None
    lookup = record_lookup(spec, owner, column, arguments) if owner is not None and column else None
    return None if lookup is None or owner is None or column is None else (owner.name, column, lookup)


def shows(result: Any, column: str, value: str) -> bool:
    """Whether a tool result holds ``column`` with ``value`` in some row, at any depth."""
    if isinstance(result, dict):
        if column in result and result[column] is not None and str(result[column]) == value:
            return True
        return any(shows(v, column, value) for v in result.values())
    if isinstance(result, list):
        return any(shows(v, column, value) for v in result)
    return False


def unshown_values(env: Environment, task: Task, results: list[Any]) -> list[Decisive]:
    """The values gold writes of ``task`` rest on that no call before the write returns (a read, or
    the create that made the record) and the instruction does not state (``results``: each gold
    call's result, in order)."""
    missing = []
    for t in decisive_values(env, task):
        if not any(shows(r, t.column, t.value) for r in results[: t.index]) and not output_present(
            t.value, task.instruction
        ):
            missing.append(t)
    return missing


def details_tool(spec: EnvSpec, table: str) -> str | None:
    """The read tool that returns one record of ``table`` by its key alone (``get_<record>_details``)."""
    t = spec.table(table)
    key = t.primary_key[0] if len(t.primary_key) == 1 else None
    quoted = (f'from "{table}"', f"from {table} ")
    for tool in spec.tools:
        required = tool.parameters.get("required", [])
        if tool.kind != "read" or key is None or required != [key] or not tool.steps:
            continue
        if any(q in tool.steps[0].sql.lower() for q in quoted) and f"{key} = :{key}" in tool.steps[0].sql:
            return tool.name
    return None
