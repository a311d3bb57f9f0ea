"""A name one person gives twice (measure 95, docs/synthesis.md): an owner with two businesses both
trading as "Oak & Iron", two pets named Andrea, two ad campaigns called "Free Trial Drive", two payees
nicknamed "Home".

Read by names and references alone, so the measure runs on any catalog; the seed generator keeps the
rule (``synthesis.domains.own_names``). A table that references the user table directly and whose
name column names the row itself — ``name``, ``title``, the table's own noun before either
(``pet_name`` of ``pets``, ``release_title`` of ``releases``), a ``nickname`` or a trading name
(``dba_name``) — holds each name once per owner: a person tells their own things apart by name. The
names of things the row only points at are not the row's (``hotel_name`` of a stay, ``movie_title``
of a rental: one hotel stayed at twice is two stays).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .catalog_names import CatalogNames, name_findings, names_thing
from .spec import user_table
from .tool_sql import one_reference

#: Names a person gives their own thing whatever the table is called.
_GIVEN_NAMES = frozenset({"nickname", "dba_name", "display_name", "trading_name"})


def own_name_column(table: TableSpec) -> str | None:
    """The text column naming ``table``'s row itself, if it has one."""
    return next(
        (
            c.name
            for c in table.columns
            if c.type == "text" and (c.name in _GIVEN_NAMES or names_thing(table.name, c.name))
        ),
        None,
    )


def own_names(spec: EnvSpec) -> list[CatalogNames]:
    """The tables of the user's own things with a name of their own, each name once per owner (the
    owner's column is the group's ``parent``)."""
    users = user_table(spec)
    if users is None:
        return []
    out = []
    for table in spec.tables:
        if table.name == users:
            continue
        owner = one_reference(table, users)
        column = own_name_column(table)
        if owner is not None and column is not None:
            out.append(CatalogNames(table.name, column, owner))
    return out


@dataclass
class OwnNameCounts:
    """Named rows of a person's own things, and those repeating a name the owner gave before (95)."""

    own_names_checked: int = 0
    own_names_repeated: int = 0


def own_names_repeated(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> OwnNameCounts:
    """Measure 95 over ``rows`` (table -> rows; the seed by default)."""
    out = OwnNameCounts()
    for _, again in name_findings(own_names(spec), spec.seed if rows is None else rows):
        out.own_names_checked += 1
        out.own_names_repeated += again
    return out
