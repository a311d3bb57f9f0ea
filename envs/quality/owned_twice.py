"""One owner holding the same thing twice (measure 84, docs/synthesis.md): a player who owns one game
through two purchases, a member with one audiobook in the library twice.

Read by status words and foreign keys alone, so the measure runs on any catalog; the seed generator
keeps the rule (``synthesis.domains.owned_twice``). A table whose status names ownership
(:data:`OWNED`: a purchase ``owned``, a library item ``owned``) and that references the user table and
one other table that belongs to no one (a game, a title: the table references nothing) records a
person's title to a thing: per person and thing, at most one row is in an owned status. A second
copy of a licence is bought by no one; a refunded or returned one leaves room for another.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .own_row import status_of
from .spec import user_table
from .text import word_set
from .tool_sql import one_reference

#: Status values saying the person holds title to the thing.
OWNED = word_set("owned")


@dataclass(frozen=True)
class Title:
    """Rows of ``table`` in ``states`` hold title for the ``person`` to the ``thing`` they reference."""

    table: str
    person: str
    thing: str
    thing_table: str
    states: frozenset[str]


def titles(spec: EnvSpec) -> list[Title]:
    """The tables recording a person's title to a thing no one else owns."""
    user = user_table(spec)
    tables = {t.name: t for t in spec.tables}
    out = []
    for table in spec.tables:
        statuses = [c for c in table.columns if c.name == "status" and c.enum]
        owned = frozenset(v for v in (statuses[0].enum or []) if v in OWNED) if statuses else frozenset()
        person = one_reference(table, user) if user else None
        if not owned or person is None:
            continue
        things = [
            (column, fk.table)
            for fk in table.foreign_keys
            if fk.table not in (user, table.name)
            and (column := one_reference(table, fk.table))
            and fk.table in tables
            and not tables[fk.table].foreign_keys
        ]
        if len(things) == 1:
            out.append(Title(table.name, person, things[0][0], things[0][1], owned))
    return out


def held_twice(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[Title, dict[str, Any], bool]]:
    """(title, row, whether an earlier row of the person already owns the thing) for every owned row."""
    tables = {t.name: t for t in spec.tables}
    for title in titles(spec):
        seen: Counter[tuple[Any, Any]] = Counter()
        for row in rows.get(title.table, []):
            if status_of(row, tables[title.table]) not in title.states:
                continue
            key = (row.get(title.person), row.get(title.thing))
            seen[key] += 1
            yield title, row, seen[key] > 1


@dataclass
class OwnedTwiceCounts:
    """Rows holding title to a thing, and those holding one the person already holds (measure 84)."""

    owned_rows_checked: int = 0
    owned_twice: int = 0


def owned_twice(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> OwnedTwiceCounts:
    """Measure 84 over ``rows`` (table -> rows; the seed by default)."""
    out = OwnedTwiceCounts()
    for _, _, again in held_twice(spec, spec.seed if rows is None else rows):
        out.owned_rows_checked += 1
        out.owned_twice += again
    return out
