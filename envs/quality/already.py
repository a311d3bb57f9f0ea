"""Refusals of a request for what the record already is (measure 85, docs/synthesis.md).

"Issue my permit" of a permit that is `issued`, "I've been waiting on it for a while": the status
that refuses the action is the one the action sets, or one only an action already done leads to
(a permit `expired` after it was issued), so the user asks for what they know has happened. Read
from the tools' SQL alone: a write that moves its record's status from some states to one (``SELECT
:rec.status IN ('approved')`` then ``UPDATE … SET status = 'issued'``), and every such write of the
same table, which makes the states the tools lead to. A state is past the action when the action's
target leads to it and its starting states do not, but through the target.

A refusal is counted when its reason is such a state (``reason`` holds the status with spaces).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..formats.spec import EnvSpec, ExecStep, RequireStep, ToolSpec
from ..formats.task import Task
from .tool_sql import inserts, required_states, set_state

_LITERAL = re.compile(r"^'(\w+)'$")


@dataclass(frozen=True)
class Move:
    """A write that moves one table's status column from ``starts`` to ``to``."""

    table: str
    column: str
    starts: frozenset[str]
    to: str


def move_of(tool: ToolSpec) -> Move | None:
    """The status move ``tool`` makes, if it makes one from states it requires."""
    starts: dict[str, frozenset[str]] = {}
    found: Move | None = None
    for step in tool.steps:
        sql = step.sql or ""
        if isinstance(step, RequireStep) and (required := required_states(sql)):
            starts[required[0]] = required[1]
        elif isinstance(step, ExecStep) and (moved := set_state(sql)) and moved.column in starts:
            found = Move(moved.table, moved.column, starts[moved.column], moved.state)
    return found


def _reach(moves: list[Move], start: Iterable[str], avoid: str | None = None) -> set[str]:
    seen = set(start)
    todo = list(seen)
    while todo:
        state = todo.pop()
        for m in moves:
            if state in m.starts and m.to not in seen and m.to != avoid:
                seen.add(m.to)
                todo.append(m.to)
    return seen


def done_states(move: Move, moves: list[Move], initial: Iterable[str] = ()) -> set[str]:
    """The states that say ``move`` was already made: its target, and, when nothing else makes the
    target (no other move, no ``initial`` state a record starts in), the states only it leads to.

    >>> a = Move("p", "status", frozenset({"submitted"}), "approved")
    >>> b = Move("p", "status", frozenset({"approved"}), "issued")
    >>> c = Move("p", "status", frozenset({"submitted", "approved"}), "withdrawn")
    >>> sorted(done_states(b, [a, b, c])), sorted(done_states(a, [a, b, c]))
    (['issued'], ['approved', 'issued'])
    >>> sorted(done_states(a, [a, b, c], initial={"approved"}))
    ['approved']
    >>> extend = Move("p", "status", frozenset({"issued"}), "issued")  # a move within the state makes none
    >>> sorted(done_states(b, [a, b, c, extend]))
    ['issued']
    """
    same = [m for m in moves if (m.table, m.column) == (move.table, move.column)]
    if move.to in initial or any(m.to == move.to and m != move and m.starts - {move.to} for m in same):
        # an active card need not have been unlocked: only the target itself says it was done
        return {move.to}
    before = _reach(same, move.starts - {move.to}, avoid=move.to)
    return {move.to} | (_reach(same, {move.to}) - before)


@dataclass
class AlreadyCounts:
    """Refusals on a record's status, and those whose status says the action was already done."""

    status_refusals_checked: int = 0
    refusals_of_done_action: int = 0


def initial_states(spec: EnvSpec) -> set[tuple[str, str, str]]:
    """(table, column, state) of every state a record starts in: one a tool's INSERT gives as a
    literal, and the first of a status column's values (a lifecycle lists its states from the first)."""
    out = {(t.name, c.name, c.enum[0]) for t in spec.tables for c in t.columns if c.enum and c.name == "status"}
    for tool in spec.tools:
        for step in tool.steps:
            for table, values in inserts(step.sql or ""):
                out |= {(table, column, m[1]) for column, v in values.items() if (m := _LITERAL.match(v))}
    return out


def refusals_of_done_actions(spec: EnvSpec, tasks: Iterable[Task]) -> AlreadyCounts:
    """Measure 85 over ``tasks``."""
    moves = {t.name: m for t in spec.tools if t.kind == "write" and (m := move_of(t)) is not None}
    every = list(moves.values())
    made = initial_states(spec)
    out = AlreadyCounts()
    for task in tasks:
        for refusal in task.refusals:
            move = moves.get(refusal.call.tool) if refusal.call is not None else None
            if move is None or refusal.rule is not None or len(refusal.reason) != 1:
                continue
            out.status_refusals_checked += 1
            out.refusals_of_done_action += refusal.reason[0].replace(" ", "_") in done_states(
                move, every, {s for table, column, s in made if (table, column) == (move.table, move.column)}
            )
    return out
