"""Records named by a rank where a name of their own would do (measure 111, docs/synthesis.md).

A customer names their thing by what it is: its title or name ("my Nissan Leaf test drive"), its kind
("my ceramic coating appointment"), its day ("my booking on March 3"). "My most expensive rental"
reads as the generator's selector wherever such a name tells the record apart from the user's other
records. Counted: instructions naming a record by a rank word ("my cheapest …", "my earliest …", "…
with the most nights", "… that expires first") whose gold writes act on one of the user's own records
that holds an end of an ordered column among the user's records of its table and has a name unique
among them. Recency is how people talk ("my most recent order", "the first slot on or after March 5"),
and a rank among what a search lists is a shopper's comparison ("the cheapest 10x20 unit", as tau2's
"the cheapest flight"): neither is counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from ..formats.task import Task
from .record_names import customer_knows
from .spec import State

_RANK_WORDS = r"earliest|latest|oldest|newest|cheapest|most expensive|largest|smallest|biggest|highest|lowest|soonest"
#: "my cheapest permit", "with the earliest move in date", "with the most nights", "the order that expires first"
_RANKED = re.compile(
    rf"\b(?:the|my) (?:{_RANK_WORDS})\b|\bwith the (?:most|fewest|least) [a-z]|\b(?:the|my) (?:[\w'-]+ ){{1,5}}?"
    r"that (?:expires|is due|renews|ends|is expected) (?:first|last)\b|\bthat costs the (?:least|most)\b",
    re.I,
)
#: A day to start from makes a rank the first one after it, as people book: "the earliest session on or after June 5".
_FROM_A_DAY = re.compile(r"\bon or after\b", re.I)
_ORDERED = ("integer", "real", "date", "datetime")
#: Last words of a text column that names a record, and of one that is a code its owner was given.
_NAMED_BY = frozenset({"name", "title", "model"})
_CODES = frozenset({"number", "code", "reference", "confirmation", "plate"})


@dataclass
class RankNameCounts:
    rank_named_tasks: int = 0
    rank_named_with_name: int = 0


def ranked_sides(text: str) -> set[bool]:
    """Of each record ``text`` names by a rank word (recency and the first after a day aside), whether
    it is the user's own ("my cheapest permit") or nobody's ("It is for the cheapest garage lot")."""
    found = set()
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        match = _RANKED.search(sentence)
        if match is not None and not _FROM_A_DAY.search(sentence):
            found.add(re.search(r"\bmy\b", sentence[: match.end()], re.I) is not None)
    return found


def names_by_rank(text: str) -> bool:
    """Whether ``text`` names a record by a rank word, recency and the first after a day aside."""
    return bool(ranked_sides(text))


def _is_status(column: str) -> bool:
    return column in ("status", "state") or column.endswith(("_status", "_state"))


def _own_values(table: TableSpec, row: dict[str, Any], *, codes: bool) -> Iterator[tuple[str, Any]]:
    """(column, value) of every handle of ``row`` itself: a name or title, a code its owner was given
    (an order number: ``codes``, for the user's own records only; no one was given the code of a unit
    they have not rented yet), a kind (an enum other than a status), a day of a date its owner knows."""
    named_by = _NAMED_BY | (_CODES if codes else frozenset())
    for c in table.columns:
        value = row.get(c.name)
        if value is None or c.name in table.primary_key:
            continue
        if c.type == "text" and not c.enum and c.name.split("_")[-1] in named_by:
            yield c.name, str(value).strip().lower()
        elif c.enum and not _is_status(c.name):
            yield c.name, value
        elif c.type in ("date", "datetime") and customer_knows(c.name, c.type):
            yield c.name, str(value)[:10]


def _name_values(state: State, table: TableSpec, row: dict[str, Any]) -> dict[tuple[str, ...], Any]:
    """Every handle a person names ``row`` by, its own and those of a record it points at other than
    its owner ("my order for the delivery slot on March 3"), by the path to the column."""
    own = state.owner(table.name, row) is not None
    out: dict[tuple[str, ...], Any] = {(c,): v for c, v in _own_values(table, row, codes=own)}
    for fk in table.foreign_keys:
        parent = state.parent(fk, row) if fk.table != state.users else None
        if parent is not None:
            found = _own_values(state.tables[fk.table], parent, codes=own)
            out.update({(*fk.columns, c): v for c, v in found})
    return out


def has_unique_name(state: State, table: TableSpec, row: dict[str, Any], group: list[dict[str, Any]]) -> bool:
    """Whether some handle of ``row`` (a name, a code, a kind, a day) is shared by no other row of ``group``."""
    theirs = [_name_values(state, table, g) for g in group if g is not row]
    return any(all(t.get(path) != value for t in theirs) for path, value in _name_values(state, table, row).items())


def _holds_an_end(table: TableSpec, row: dict[str, Any], group: list[dict[str, Any]]) -> bool:
    """Whether ``row`` alone holds the smallest or largest value of an ordered column of ``group``."""
    for c in table.columns:
        if c.type not in _ORDERED or c.name in table.primary_key or row.get(c.name) is None:
            continue
        values: list[Any] = [g.get(c.name) for g in group]
        if any(v is None for v in values):
            continue
        if values.count(row[c.name]) == 1 and row[c.name] in (min(values), max(values)):
            return True
    return False


def _groups(state: State, table: TableSpec, row: dict[str, Any]) -> Iterator[list[dict[str, Any]]]:
    """The records ``row`` could have been picked from: its owner's records of its table."""
    owner = state.owner(table.name, row)
    if owner is not None:
        yield [r for r in state.rows.get(table.name, []) if state.owner(table.name, r) == owner]


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, list):
        for v in value:
            yield from _scalars(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, str | int) and not isinstance(value, bool):
        yield value


def named_record_ranked(spec: EnvSpec, state: State, task: Task) -> bool:
    """Whether ``task``'s writes act on one of the user's records (in ``state``) that a rank said of
    their records picks out and a name of its own tells apart from the rest of theirs."""
    sides = ranked_sides(task.instruction)
    tables = {t.name: t for t in spec.tables}
    writes = {t.name for t in spec.tools if t.kind == "write"}
    for call in task.gold_actions:
        if call.tool not in writes:
            continue
        for value in _scalars(call.arguments):
            for name in state.tables_with_id(value):
                table = tables[name]
                if name == state.users:
                    continue
                row = state.lookup(name, table.primary_key, (value,))
                # a rank among what a search lists is a shopper's comparison ("the cheapest 10x20
                # unit"), not a name: only the user's own records are counted
                if row is None or True not in sides or state.owner(name, row) is None:
                    continue
                for group in _groups(state, table, row):
                    if (
                        len(group) >= 2
                        and _holds_an_end(table, row, group)
                        and has_unique_name(state, table, row, group)
                    ):
                        return True
    return False


def rank_name_counts(spec: EnvSpec, tasks: list[Task], state: State) -> RankNameCounts:
    """Measure 111 over ``tasks`` of ``spec``, reading records in ``state`` (the seed)."""
    out = RankNameCounts()
    for task in tasks:
        if ranked_sides(task.instruction):
            out.rank_named_tasks += 1
            out.rank_named_with_name += named_record_ranked(spec, state, task)
    return out
