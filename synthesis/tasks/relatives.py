"""A relative a user adds fits their family as the seed's relatives do (measures 39 and 40): a child
born twenty to forty years after the user and carrying their surname, a spouse of about their age
with a marriage certificate, not a "child" born before the parent.

:func:`fit_new_relative` adjusts the inputs of a create on a table of related people (``kinship``)
with the seed generator's own rules, drawing from a generator of its own (seeded by the inputs), so
the task generator's draws, and the tasks drawn after this one, stay as they were.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.kinship import CHILD, Kin, kin_links, kind_of

from ..domains.kin_ages import fit_kin_ages
from ..domains.surnames import fit_surname

#: (table, primary key value) -> the row, or None.
RowLookup = Callable[[str, Any], dict[str, Any] | None]


def fit_new_relative(
    spec: EnvSpec, table: str, args: dict[str, Any], given: dict[str, Any], row_of: RowLookup
) -> dict[str, Any]:
    """``given`` (the user's inputs of a new ``table`` row whose references are ``args``), with the
    birth date, document and surname made to fit the person the new row is related to."""
    link = next((k for k in kin_links(spec) if k.table.name == table), None)
    if link is None:
        return given
    row = {**args, **given}
    kind = kind_of(row.get(link.relation)) if link.relation else CHILD
    anchor: dict[str, Any] | None = row
    for fk in link.path:
        value = anchor.get(fk.columns[0]) if anchor is not None else None
        anchor = row_of(fk.table, value) if value is not None else None
    if kind is None or anchor is None:
        return given
    kin = Kin(link, -1, row, kind, anchor)
    rng = random.Random(f"new-relative:{spec.id}:{sorted(map(str, row.items()))}")
    fit_kin_ages(kin, spec, rng)
    fit_surname(kin, spec, rng)
    return {k: row[k] for k in given}
