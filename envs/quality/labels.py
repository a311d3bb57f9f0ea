"""Labels drawn apart that contradict each other (measure 72, docs/synthesis.md): "Essay outline for
English class" with a chemistry tutor, a brunch menu for a "Board of Directors Dinner", a liquor
licence on a food truck.

* **Off its pool.** A column whose spec names the values that fit each value of another column
  (``ColumnSpec.pools``: of the same row, or ``<foreign key column>.<column>`` of the row it points to)
  holds one of those on every row whose key value the pools name. A key value with a numbered edition
  ("Awards Banquet 2", a unique title drawn twice) is read as its first edition. 0 by construction on
  generated catalogs (``synthesis.domains.labels`` keeps it); a catalog without pools has none to read.
* **Naming another label** (an independent signal, read by words alone on any catalog): a free-text or
  title value that names exactly one value of an enum column of its row or of a row a foreign key leads
  to (not a status), by a word of three letters or more, while that column holds another value that it
  does not name: "Spanish verb conjugations" on a session whose tutor's subject is math.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import ColumnSpec, EnvSpec, TableSpec
from .seed import status_columns

_EDITION = re.compile(r" \d+$")
_WORD = re.compile(r"[a-z0-9]+")
#: Words of enum values that say too little to tell one value from another in a sentence.
_VAGUE = frozenset({"and", "the", "for", "with", "other", "none", "new", "general", "standard", "basic", "full"})


def pool_for(key: Any, pools: Mapping[str, list[str]]) -> list[str] | None:
    """The values that fit ``key`` (None: the pools leave it free); a numbered edition of a key value
    ("Awards Banquet 2") is read as the value."""
    if key is None:
        return None
    text = str(key)
    found = pools.get(text)
    if found is None and _EDITION.search(text):
        found = pools.get(_EDITION.sub("", text))
    return found


def fits_pool(value: Any, pool: list[str]) -> bool:
    """Whether ``value`` is in ``pool``, or a numbered edition of a value in it."""
    text = str(value)
    return text in pool or (_EDITION.search(text) is not None and _EDITION.sub("", text) in pool)


@dataclass(frozen=True)
class Related:
    """Reads a value of ``table`` that ``path`` names: a column of its row, or of the row its foreign
    key column points to."""

    table: TableSpec
    path: str
    column: ColumnSpec | None

    def value(self, row: Mapping[str, Any], index: Mapping[str, Mapping[Any, Mapping[str, Any]]]) -> Any:
        fk_column, _, name = self.path.rpartition(".")
        if not fk_column:
            return row.get(name)
        fk = next((f for f in self.table.foreign_keys if f.columns == [fk_column]), None)
        parent = index.get(fk.table, {}).get(row.get(fk_column)) if fk is not None else None
        return parent.get(name) if parent is not None else None


def _related(spec: EnvSpec, table: TableSpec, path: str) -> Related:
    tables = {t.name: t for t in spec.tables}
    fk_column, _, name = path.rpartition(".")
    owner: TableSpec | None = table
    if fk_column:
        fk = next((f for f in table.foreign_keys if f.columns == [fk_column]), None)
        owner = tables.get(fk.table) if fk is not None else None
    column = next((c for c in owner.columns if c.name == name), None) if owner is not None else None
    return Related(table, path, column)


def _index(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> dict[str, dict[Any, dict[str, Any]]]:
    out: dict[str, dict[Any, dict[str, Any]]] = {}
    for t in spec.tables:
        if len(t.primary_key) == 1:
            out[t.name] = {r.get(t.primary_key[0]): r for r in rows.get(t.name, [])}
    return out


def _words(value: Any) -> set[str]:
    return set(_WORD.findall(str(value).lower().replace("_", " ")))


def _named(text_words: set[str], values: list[str]) -> set[str]:
    """The enum values a text names by one of their words (a plural read as its singular)."""
    stems = text_words | {w[:-1] for w in text_words if w.endswith("s")}
    return {v for v in values if any(len(w) >= 3 and w not in _VAGUE and w in stems for w in _words(v))}


def _enums_near(spec: EnvSpec, table: TableSpec) -> list[Related]:
    """The enum columns of ``table``'s rows and of the rows its foreign keys point to, statuses left out."""
    tables = {t.name: t for t in spec.tables}
    out = []
    for owner, prefix in [(table, ""), *((tables.get(f.table), f"{f.columns[0]}.") for f in table.foreign_keys)]:
        if owner is None:
            continue
        statuses = {c.name for c in status_columns(owner)}
        for c in owner.columns:
            if c.enum and len(c.enum) >= 3 and c.name not in statuses:
                out.append(Related(table, prefix + c.name, c))
    return out


def label_findings(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]]) -> Iterator[tuple[str, bool]]:
    """(shape, contradicting) for every value read: ``pool`` against its column's pools, ``named``
    for a text naming one value of a related enum."""
    index = _index(spec, rows)
    for table in spec.tables:
        for col in table.columns:
            if col.pools is None:
                continue
            key = _related(spec, table, col.pools.by)
            for row in rows.get(table.name, []):
                value = row.get(col.name)
                pool = pool_for(key.value(row, index), col.pools.values)
                if value is not None and pool is not None:
                    yield "pool", not fits_pool(value, pool)
        texts = [c for c in table.columns if c.type == "text" and not c.enum and c.pools is None]
        enums = _enums_near(spec, table) if texts else []
        for related in enums:
            assert related.column is not None and related.column.enum is not None
            values = related.column.enum
            for col in texts:
                if col.name == related.path:
                    continue
                for row in rows.get(table.name, []):
                    text, held = row.get(col.name), related.value(row, index)
                    if not isinstance(text, str) or held is None:
                        continue
                    named = _named(_words(text), values)
                    if len(named) == 1:
                        yield "named", held not in named


@dataclass
class LabelCounts:
    """Labels read against the labels they go with, and those contradicting them (measure 72)."""

    keyed_labels_checked: int = 0
    labels_off_their_pool: int = 0
    named_labels_checked: int = 0
    labels_naming_another: int = 0


def labels_apart(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> LabelCounts:
    """Measure 72 over ``rows`` (table -> rows; the seed by default)."""
    out = LabelCounts()
    for shape, against in label_findings(spec, spec.seed if rows is None else rows):
        if shape == "pool":
            out.keyed_labels_checked += 1
            out.labels_off_their_pool += against
        else:
            out.named_labels_checked += 1
            out.labels_naming_another += against
    return out
