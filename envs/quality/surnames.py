"""Surnames of people on record against their family's: a guardian's four children with four
surnames, none the guardian's (measure 40, docs/synthesis.md). The related rows are
:mod:`.kinship`'s; the seed generator keeps the rules (``synthesis.domains.surnames``).

* A **child** (a stated ``child``, ``son`` ..., or a row of a table of children or students under a
  guardian's or a family's account) has their parent's surname.
* A **spouse, parent or sibling** usually has the person's surname too: the measure counts those who
  do not, and a minority of them is expected (a spouse who kept their name). Partners, grandparents
  and others are not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from .kinship import CHILD, PARENT, SIBLING, SPOUSE, Kin, kin_rows, surname_of

#: Kinds of relative who usually share the person's surname.
USUALLY_SHARED = frozenset({SPOUSE, PARENT, SIBLING})


def surnames(kin: Kin) -> tuple[str, str] | None:
    """(the relative's surname, the person's), both known, or None."""
    mine = surname_of(kin.row, kin.link.person)
    theirs = surname_of(kin.anchor_row, kin.link.anchor_person)
    return (mine, theirs) if mine and theirs else None


def shares_surname(kin: Kin) -> bool:
    names = surnames(kin)
    return names is not None and names[0].lower() == names[1].lower()


@dataclass
class SurnameCounts:
    """Children and other close relatives whose surname and their family's are known, and those whose
    surname is another."""

    children_named: int = 0
    children_with_other_surname: int = 0
    relatives_named: int = 0
    relatives_with_other_surname: int = 0


def surnames_apart(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> SurnameCounts:
    """Measure 40 over ``rows`` (table -> rows; the seed by default)."""
    out = SurnameCounts()
    for kin in kin_rows(spec, rows):
        if surnames(kin) is None:
            continue
        apart = not shares_surname(kin)
        if kin.kind == CHILD:
            out.children_named += 1
            out.children_with_other_surname += apart
        elif kin.kind in USUALLY_SHARED:
            out.relatives_named += 1
            out.relatives_with_other_surname += apart
    return out
