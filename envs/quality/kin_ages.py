"""Birth dates and documents against a stated relationship: "children" born before the employee
they are dependents of, a spouse who is a minor, a child verified by a partnership affidavit
(measure 39, docs/synthesis.md). The related rows are :mod:`.kinship`'s; the seed generator keeps
the rules with the same bounds (``synthesis.domains.kin_ages``).

* **Birth dates.** A child is born :data:`BIRTH_GAPS` years after their parent (16 to 50), a parent
  as long before, a grandparent at least 32 years before; a spouse or partner is an adult, and they
  and a sibling are born within 20 years of the person. Where the policy says children are covered
  only under an age ("children under 26"), a child is younger than that on the clock's day.
* **Documents.** A column naming a document, proof or verification (``verification_document``)
  holds one that fits the relationship, where its value names one kind: a birth certificate or an
  adoption decree for a child, a marriage certificate for a spouse, a partnership affidavit for a
  domestic partner (:func:`document_fits`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from .kinship import CHILD, GRANDCHILD, GRANDPARENT, PARENT, PARTNER, SIBLING, SPOUSE, Kin, kin_rows, words
from .text import word_set

#: Years a relative of each kind is born after the person (negative: before), the least and the most.
BIRTH_GAPS = {
    CHILD: (16.0, 50.0),
    PARENT: (-50.0, -16.0),
    GRANDCHILD: (32.0, 90.0),
    GRANDPARENT: (-90.0, -32.0),
    SPOUSE: (-20.0, 20.0),
    PARTNER: (-20.0, 20.0),
    SIBLING: (-20.0, 20.0),
}
#: Kinds of relative who are adults.
ADULTS = frozenset({SPOUSE, PARTNER, PARENT, GRANDPARENT})
ADULT_AGE = 18.0
#: A document's word -> the kinds of relationship it proves.
_PROVES = {
    **dict.fromkeys(word_set("birth adoption guardianship custody"), frozenset({CHILD, PARENT, SIBLING})),
    "marriage": frozenset({SPOUSE}),
    **dict.fromkeys(word_set("partnership affidavit"), frozenset({PARTNER})),
}
_DOCUMENT_WORDS = word_set("document proof evidence verification")
_AGE_LIMIT = re.compile(r"\b(?:under|younger than|below) (?:the )?(?:age (?:of )?)?(\d{2})\b", re.IGNORECASE)
_COVERED_CHILDREN = re.compile(
    r"\b(?:child|children|son|daughter)\b.*\b(?:cover|covered|coverage|dependents?|eligible)\b|"
    r"\b(?:cover|covered|coverage|dependents?|eligible)\b.*\b(?:child|children|son|daughter)\b",
    re.IGNORECASE,
)
_YEAR = 365.25


def document_column(table: TableSpec) -> str | None:
    """The column naming the document a relationship was proven with, if any."""
    return next(
        (c.name for c in table.columns if c.type == "text" and words(c.name) & _DOCUMENT_WORDS and c.name != "id"),
        None,
    )


def proves(value: Any) -> frozenset[str] | None:
    """The kinds of relationship a document proves, or None if its name says none (a passport)."""
    if not isinstance(value, str):
        return None
    kinds = [_PROVES[w] for w in value.lower().replace(" ", "_").split("_") if w in _PROVES]
    return frozenset().union(*kinds) if kinds else None


def document_fits(kind: str, value: Any) -> bool:
    """Whether a document (a value of a document column) may prove a relationship of ``kind``."""
    kinds = proves(value)
    return kinds is None or kind in kinds


def child_age_limit(policy: str) -> int | None:
    """The age children are covered under, where a sentence of the policy about covering children or
    dependents states one ("Dependent children are covered under age 26")."""
    for sentence in re.split(r"(?<=[.!?])\s+|\n", policy):
        if _COVERED_CHILDREN.search(sentence) and (found := _AGE_LIMIT.search(sentence)):
            return int(found.group(1))
    return None


def day(value: Any) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def years_between(earlier: date, later: date) -> float:
    return (later - earlier).days / _YEAR


def birth_fits(kind: str, born: date, anchor_born: date, clock: datetime, limit: int | None) -> bool:
    """Whether a relative of ``kind`` born on ``born`` fits a person born on ``anchor_born``."""
    lo, hi = BIRTH_GAPS.get(kind, (-200.0, 200.0))
    if not lo <= years_between(anchor_born, born) <= hi:
        return False
    age = years_between(born, clock.date())
    if kind in ADULTS and age < ADULT_AGE:
        return False
    return not (kind == CHILD and limit is not None and age >= limit)


def kin_contradictions(kin: Kin, clock: datetime, limit: int | None) -> tuple[bool, bool, bool]:
    """(whether the row can be checked, its birth date contradicts, its document contradicts)."""
    person, anchor = kin.link.person, kin.link.anchor_person
    born = day(kin.row.get(person.birth)) if person.birth else None
    anchor_born = day(kin.anchor_row.get(anchor.birth)) if anchor.birth else None
    document = document_column(kin.link.table)
    value = kin.row.get(document) if document else None
    dated = born is not None and anchor_born is not None
    documented = proves(value) is not None
    birth_off = dated and not birth_fits(kin.kind, born, anchor_born, clock, limit)  # type: ignore[arg-type]
    return dated or documented, birth_off, documented and not document_fits(kin.kind, value)


@dataclass
class KinAgeCounts:
    """Related people whose birth date or document can be held against their relationship, and those
    whose birth date or document contradicts it."""

    kin_rows_checked: int = 0
    kin_rows_contradicting: int = 0


def kin_age_contradictions(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> KinAgeCounts:
    """Measure 39 over ``rows`` (table -> rows; the seed by default)."""
    out = KinAgeCounts()
    limit = child_age_limit(spec.policy)
    for kin in kin_rows(spec, rows):
        checked, birth_off, document_off = kin_contradictions(kin, spec.clock, limit)
        out.kin_rows_checked += checked
        out.kin_rows_contradicting += birth_off or document_off
    return out
