"""People on record who stand in a relationship to another person on record: a dependent whose
``relationship`` is child or spouse to the employee, a beneficiary who is the depositor's parent,
the children or students of a guardian's or a family's account (measures 39 and 40,
docs/synthesis.md).

Tables are read by their columns and foreign keys alone, so the rules run on any catalog and the
seed generator keeps them with the same code (``synthesis.domains.kin_ages``,
``synthesis.domains.surnames``):

* a **stated** relationship is a text column named ``relationship`` or ``relation`` (also
  ``relationship_to_holder``, ``beneficiary_relationship``) on a table of people, whose value says
  the kind (:func:`kind_of`: ``child``, ``son``, ``domestic_partner`` ...);
* an **implied** one: every row of a table of children or students (:data:`CHILD_TABLE_WORDS`)
  under a guardian, parent, family or household (:data:`GUARDIAN_WORDS`) is that person's child;
* the person the relationship is *to* (the **anchor**) is the nearest row, following foreign keys
  (at most :data:`MAX_HOPS`, first keys first), of a table of people: the employee of a dependent,
  the depositor of a certificate's beneficiary.

A table of people has a name column (:func:`person_columns`): ``first_name`` / ``last_name``,
``full_name``, or ``<someone>_name`` where the someone is a person (``child_name``,
``beneficiary_name``; not ``plan_name``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, TableSpec
from .text import word_set

CHILD, PARENT, SPOUSE, PARTNER, SIBLING, GRANDPARENT, GRANDCHILD = (
    "child",
    "parent",
    "spouse",
    "partner",
    "sibling",
    "grandparent",
    "grandchild",
)

#: The word of a relationship value -> its kind ("domestic_partner" is a partner).
_KINDS = {
    **dict.fromkeys(word_set("child children son daughter stepchild stepson stepdaughter kid"), CHILD),
    **dict.fromkeys(word_set("parent mother father stepparent stepmother stepfather"), PARENT),
    **dict.fromkeys(word_set("spouse husband wife"), SPOUSE),
    **dict.fromkeys(word_set("partner fiance fiancee"), PARTNER),
    **dict.fromkeys(word_set("sibling brother sister"), SIBLING),
    **dict.fromkeys(word_set("grandparent grandmother grandfather"), GRANDPARENT),
    **dict.fromkeys(word_set("grandchild grandson granddaughter"), GRANDCHILD),
}
#: Tables whose every row is someone's child by what it is.
CHILD_TABLE_WORDS = word_set("child kid student minor")
#: Tables of the people such children belong to.
GUARDIAN_WORDS = word_set("guardian parent family household")
#: Words of a ``<someone>_name`` column whose someone is a person.
PEOPLE_WORDS = word_set(
    "full legal person child kid student minor beneficiary dependent member guardian parent spouse partner "
    "passenger patient customer employee holder owner recipient insured traveler guest applicant contact user "
    "depositor renter tenant borrower client"
)
_BIRTH_WORDS = word_set("birth birthdate birthday dob born")
_SURNAME_COLUMNS = ("last_name", "surname", "family_name")
_FIRST_COLUMNS = ("first_name", "given_name")
MAX_HOPS = 3


def _singular(word: str) -> str:
    if word == "children":
        return "child"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def words(name: str) -> set[str]:
    """The words of a table or column name, each singular."""
    return {_singular(w) for w in name.lower().replace("-", "_").split("_") if w}


def kind_of(value: Any) -> str | None:
    """The kind of relationship a value states (``CHILD`` for "Son", ``PARTNER`` for
    "domestic_partner"), or None (a neighbor, a nanny, "other")."""
    if not isinstance(value, str):
        return None
    found = [_KINDS[w] for w in value.lower().replace("-", "_").replace(" ", "_").split("_") if w in _KINDS]
    return found[0] if found else None


@dataclass(frozen=True)
class PersonColumns:
    """Where a table of people keeps a person's name (a full name, or a surname apart) and birth date."""

    full: str | None
    surname: str | None
    first: str | None
    birth: str | None


def person_columns(table: TableSpec) -> PersonColumns | None:
    """The name and birth columns of ``table``, or None if it names no person."""
    text = [c.name for c in table.columns if c.type == "text"]
    surname = next((c for c in _SURNAME_COLUMNS if c in text), None)
    first = next((c for c in _FIRST_COLUMNS if c in text), None)
    full = None
    if surname is None:
        person_table = bool(words(table.name) & PEOPLE_WORDS)
        full = next(
            (
                c
                for c in text
                if (c.endswith("_name") and words(c[: -len("_name")]) & PEOPLE_WORDS) or (c == "name" and person_table)
            ),
            None,
        )
        if full is None:
            return None
    birth = next(
        (c.name for c in table.columns if c.type in ("date", "datetime", "text") and words(c.name) & _BIRTH_WORDS),
        None,
    )
    return PersonColumns(full=full, surname=surname, first=first, birth=birth)


def relation_column(table: TableSpec) -> str | None:
    """The column stating how a row's person is related to another (``relationship``), if any."""
    for c in table.columns:
        w = c.name.lower().split("_")
        if c.type == "text" and ("relationship" in w or "relation" in w) and "manager" not in w:
            return c.name
    return None


@dataclass(frozen=True)
class KinLink:
    """A table of people related to the people of another (the anchor), and how its rows lead there."""

    table: TableSpec
    person: PersonColumns
    relation: str | None  # the column stating the relationship; None: every row is the anchor's child
    path: tuple[ForeignKey, ...]  # from ``table`` to ``anchor``
    anchor: TableSpec
    anchor_person: PersonColumns


def _anchor(spec: EnvSpec, table: TableSpec) -> tuple[tuple[ForeignKey, ...], TableSpec, PersonColumns] | None:
    """The nearest table of people ``table`` leads to by foreign keys (breadth first, keys in order)."""
    tables = {t.name: t for t in spec.tables}
    frontier: list[tuple[TableSpec, tuple[ForeignKey, ...]]] = [(table, ())]
    seen = {table.name}
    for _ in range(MAX_HOPS):
        following: list[tuple[TableSpec, tuple[ForeignKey, ...]]] = []
        for here, path in frontier:
            for fk in here.foreign_keys:
                there = tables.get(fk.table)
                if there is None or there.name in seen or len(fk.columns) != 1:
                    continue
                seen.add(there.name)
                if (person := person_columns(there)) is not None:
                    return (*path, fk), there, person
                following.append((there, (*path, fk)))
        frontier = following
    return None


def kin_links(spec: EnvSpec) -> list[KinLink]:
    """Every table of people related to another's, with the way to the other (see the module docstring)."""
    out: list[KinLink] = []
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        person = person_columns(table)
        if person is None:
            continue
        relation = relation_column(table)
        if relation is not None:
            found = _anchor(spec, table)
            if found is not None:
                out.append(KinLink(table, person, relation, *found))
            continue
        names = words(table.name) | (words(person.full[: -len("_name")]) if person.full else set())
        if not names & CHILD_TABLE_WORDS:
            continue
        for fk in table.foreign_keys:
            parent = tables.get(fk.table)
            if parent is None or len(fk.columns) != 1 or not words(parent.name) & GUARDIAN_WORDS:
                continue
            if (anchor_person := person_columns(parent)) is not None:
                out.append(KinLink(table, person, None, (fk,), parent, anchor_person))
                break
    return out


@dataclass
class Kin:
    """One row of a person related to an anchor row: the kind of relationship, both rows."""

    link: KinLink
    index: int
    row: dict[str, Any]
    kind: str
    anchor_row: dict[str, Any]


def kin_rows(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> Iterator[Kin]:
    """The related rows of ``rows`` (table -> rows; the seed by default) whose anchor row exists."""
    rows = spec.seed if rows is None else rows
    by_key: dict[tuple[str, str], dict[Any, dict[str, Any]]] = {}

    def lookup(fk: ForeignKey, value: Any) -> dict[str, Any] | None:
        key = (fk.table, fk.references[0])
        if key not in by_key:
            by_key[key] = {r.get(fk.references[0]): r for r in rows.get(fk.table, [])}
        return by_key[key].get(value)

    for link in kin_links(spec):
        for i, row in enumerate(rows.get(link.table.name, [])):
            kind = kind_of(row.get(link.relation)) if link.relation else CHILD
            if kind is None:
                continue
            here: dict[str, Any] | None = row
            for fk in link.path:
                here = lookup(fk, here.get(fk.columns[0])) if here is not None else None
            if here is not None:
                yield Kin(link, i, row, kind, here)


def surname_of(row: Mapping[str, Any], person: PersonColumns) -> str | None:
    """The surname of the person of ``row``: its surname column, or its full name's last word
    (a suffix such as "Jr." passed over)."""
    if person.surname is not None:
        value = row.get(person.surname)
        return value.strip() if isinstance(value, str) and value.strip() else None
    value = row.get(person.full) if person.full else None
    if not isinstance(value, str):
        return None
    parts = [p for p in value.split() if p.rstrip(".").lower() not in _SUFFIXES]
    return parts[-1] if len(parts) >= 2 else None


_SUFFIXES = word_set("jr sr ii iii iv v md phd dds dvm esq")
