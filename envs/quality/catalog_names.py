"""Reference rows that repeat (measure 71, docs/synthesis.md): two "Canadian Dollar" rows among the
currencies an exchange desk sells, at 125.37 and 128.35 units per dollar, three "Euro" rows.

Read by names alone, so the measure runs on any catalog; the seed generator keeps the rule
(``synthesis.domains.catalog_names``). A public table (one no row of which belongs to a person: no
owner path, :class:`.spec.Ownership`) whose name column names the thing the table lists — ``name`` or
``title``, or the table's own noun before it (``currency_name`` of ``currencies``, ``room_name`` of
``meeting_rooms``; not ``vessel_name`` of ``vessel_voyages``, whose rows are voyages of one vessel) —
holds each name once, among the rows of one parent where it references one (a hotel's room types).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .spec import owner_paths, user_table

_NAME_WORDS = frozenset({"name", "title"})


def singulars(word: str) -> set[str]:
    """The singular forms a plural ``word`` may have (``currencies``: currency; ``branches``: branch)."""
    out = {word}
    if word.endswith("ies"):
        out.add(word[:-3] + "y")
    if word.endswith("es"):
        out.add(word[:-2])
    if word.endswith("s"):
        out.add(word[:-1])
    return out


def names_thing(table: str, column: str) -> bool:
    """Whether ``column`` names the thing ``table`` lists: ``name``, ``title``, or the table's noun before
    either (``currency_name`` of ``currencies``)."""
    parts = column.split("_")
    if parts[-1] not in _NAME_WORDS:
        return False
    return len(parts) == 1 or (len(parts) == 2 and parts[0] in singulars(table.split("_")[-1]))


def name_column(table: TableSpec) -> str | None:
    """The text column naming the thing ``table`` lists, if it has one."""
    return next((c.name for c in table.columns if c.type == "text" and names_thing(table.name, c.name)), None)


@dataclass(frozen=True)
class CatalogNames:
    """``table.column`` names each thing once, within the rows of one ``parent`` value when set."""

    table: str
    column: str
    parent: str | None


def catalog_names(spec: EnvSpec) -> list[CatalogNames]:
    """The public tables with a name column."""
    users = user_table(spec)
    if users is None:
        return []
    paths = owner_paths(spec, users)
    out = []
    for table in spec.tables:
        if table.name == users or paths.get(table.name) or (column := name_column(table)) is None:
            continue
        parent = table.foreign_keys[0].columns[0] if table.foreign_keys else None
        out.append(CatalogNames(table.name, column, parent))
    return out


def repeated(names: CatalogNames, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose name an earlier row of the same parent has (seed order)."""
    seen: set[tuple[Any, str]] = set()
    out = []
    for row in rows:
        value = row.get(names.column)
        if not isinstance(value, str) or not value.strip():
            continue
        key = (row.get(names.parent) if names.parent else None, value.strip().lower())
        if key in seen:
            out.append(row)
        seen.add(key)
    return out


@dataclass
class CatalogNameCounts:
    """Named rows of public tables, and those repeating a name (measure 71)."""

    catalog_names_checked: int = 0
    catalog_names_repeated: int = 0


def catalog_name_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(table, repeats) for every named row read."""
    return name_findings(catalog_names(spec), rows)


def name_findings(groups: list[CatalogNames], rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(table, repeats) for every row named by one of ``groups``, a name repeating within its parent."""
    for names in groups:
        table_rows = rows.get(names.table, [])
        again = {id(r) for r in repeated(names, table_rows)}
        for row in table_rows:
            if isinstance(row.get(names.column), str) and row[names.column].strip():
                yield names.table, id(row) in again


def catalog_names_repeated(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> CatalogNameCounts:
    """Measure 71 over ``rows`` (table -> rows; the seed by default)."""
    out = CatalogNameCounts()
    for _, again in catalog_name_findings(spec, spec.seed if rows is None else rows):
        out.catalog_names_checked += 1
        out.catalog_names_repeated += again
    return out
