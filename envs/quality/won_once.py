"""A parent with two winning children (measure 88, docs/synthesis.md): a load carrying two accepted
offers, one posted load with an offer accepted and another already delivered, one car sold through
four deposit holds.

Read from the tools' SQL, the policy's rules and status words, so the measure runs on any catalog; the
seed generator keeps the rule (``synthesis.domains.won_once``). A child made only while its parent is
open (the create's rule ``the load must be posted``: ``write_rules``) competes for it where its own
status names a win (:data:`WON`: an offer ``accepted``) and its parent's names being taken by one
(:data:`TAKEN`: a load ``covered``, a position ``filled``), a state no tool moves the parent into: the
win takes it. One child per parent can then hold the win or any state a tool moves a winner on to
(``in_transit``, ``delivered``); a second one was accepted on a parent no longer open, and a parent
with a winner reads as taken (a load with an accepted offer is covered, not posted or withdrawn).

A win is also read where a tool says it (:func:`taking_moves`): a tool moving its own row into a
status and, in the same call, setting a column of the row it references to a word of being taken
(``UPDATE "inventory_vehicles" SET "availability" = 'sold' WHERE inventory_vehicle_id =
:rec.inventory_vehicle_id`` beside ``SET status = 'converted'``) ends the parent's story with that
status: one hold per car is converted, and the car it converted reads sold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .seed import status_columns
from .text import word_set
from .tool_sql import bound_tables, one_reference, required_moves, set_state, status_moves
from .write_rules import write_rules

#: Child statuses saying the other side chose this one.
WON = word_set("accepted awarded won")
#: Parent statuses saying one child took it.
TAKEN = word_set("covered filled awarded sold leased taken adopted hired")


@dataclass(frozen=True)
class Contest:
    """Rows of ``table`` made while their parent (``via``, a row of ``parent``) is ``open`` compete for
    it; rows in ``won`` hold it, and the parent's ``taken`` status says so."""

    table: str
    via: str
    parent: str
    open: frozenset[str]
    won: frozenset[str]
    taken: frozenset[str]
    #: the parent's column saying it is taken: its status, or the column the win's own move sets
    column: str = "status"
    #: whether the win's own move sets ``column``, so a parent with a winner is taken whatever it held
    set_by_win: bool = False


def _onward(spec: EnvSpec, table: str, start: frozenset[str]) -> frozenset[str]:
    """``start`` and every status a tool moves a row of ``table`` on to from one of them."""
    moves = [(m.state, froms) for _, m, froms in required_moves(spec) if m.table == table]
    out, grew = set(start), True
    while grew:
        grew = False
        for to, froms in moves:
            if to not in out and froms & out:
                out.add(to)
                grew = True
    return frozenset(out)


def contests(spec: EnvSpec) -> list[Contest]:
    """The child tables whose rows compete for one parent."""
    tables = {t.name: t for t in spec.tables}
    moved_into = {(m.table, m.state) for _, m, _ in required_moves(spec)}
    out: dict[tuple[str, str], Contest] = {}
    for rule in write_rules(spec):
        cond = rule.condition
        if rule.via is None or cond.negated or cond.table == rule.table:
            continue
        parent_status = status_columns(tables[cond.table])
        child_status = status_columns(tables[rule.table])
        if not parent_status or not child_status or cond.column != parent_status[0].name:
            continue
        taken = frozenset(v for v in parent_status[0].enum or [] if v in TAKEN and (cond.table, v) not in moved_into)
        won = frozenset(v for v in child_status[0].enum or [] if v in WON)
        if taken and won:
            out[rule.table, rule.via] = Contest(
                rule.table,
                rule.via,
                cond.table,
                frozenset(cond.values),
                _onward(spec, rule.table, won),
                taken,
                parent_status[0].name,
            )
    for contest in taking_moves(spec):
        out.setdefault((contest.table, contest.via), contest)
    return list(out.values())


def taking_moves(spec: EnvSpec) -> list[Contest]:
    """The wins a tool's SQL says: its own row moved into a status while the row it references is set to
    a word of being taken (a hold converted, its vehicle sold)."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for tool in spec.tools:
        own = bound_tables(tool).get("rec")
        moves = [m.state for m in status_moves(tool) if m.table == own]
        if own not in tables or len(moves) != 1:
            continue
        for step in tool.steps:
            taking = set_state(step.sql or "") if step.kind == "exec" else None
            if taking is None or taking.table == own or taking.state not in TAKEN or taking.table not in tables:
                continue
            via = one_reference(tables[own], taking.table)
            if via is None or f":rec.{via}" not in (step.sql or ""):
                continue
            column = next(c for c in tables[taking.table].columns if c.name == taking.column)
            others = frozenset(v for v in column.enum or [] if v != taking.state)
            won = _onward(spec, own, frozenset(moves))
            out.append(Contest(own, via, taking.table, others, won, frozenset({taking.state}), taking.column, True))
    return out


def winners(
    spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]
) -> Iterator[tuple[Contest, dict[str, Any], bool, bool]]:
    """(contest, winning row, whether an earlier row already won its parent, whether the parent reads
    as taken) for every winning row whose parent is on record."""
    tables = {t.name: t for t in spec.tables}
    for contest in contests(spec):
        status = status_columns(tables[contest.table])[0].name
        key = tables[contest.parent].primary_key[0]
        parents = {r.get(key): r.get(contest.column) for r in rows.get(contest.parent, [])}
        seen: Counter[Any] = Counter()
        for row in rows.get(contest.table, []):
            if row.get(status) not in contest.won or row.get(contest.via) not in parents:
                continue
            seen[row[contest.via]] += 1
            yield contest, row, seen[row[contest.via]] > 1, parents[row[contest.via]] in contest.taken


@dataclass
class WonOnceCounts:
    """Children holding their parent's win, those holding one another already holds, and those under
    a parent that does not read as taken (an accepted offer on a load still posted: measure 88)."""

    winning_rows_checked: int = 0
    won_twice: int = 0
    won_untaken: int = 0


def won_twice(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> WonOnceCounts:
    """Measure 88 over ``rows`` (table -> rows; the seed by default)."""
    out = WonOnceCounts()
    for _, _, again, taken in winners(spec, spec.seed if rows is None else rows):
        out.winning_rows_checked += 1
        out.won_twice += again
        out.won_untaken += not taken
    return out
