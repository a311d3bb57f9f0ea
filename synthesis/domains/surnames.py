"""Seed surnames that follow the family (the quality report's measure 40, :mod:`envs.quality.surnames`):
a guardian's children, a family account's students, an employee's child dependents have the
parent's surname; a spouse, parent or sibling has the person's three times in four.

:func:`settle_surnames` runs on the finished seed and changes only the relative's name (its surname
column, or its full name's last word), never the person's: the first name stays unless the new name
would be another person's of the same table or the person's own, and then is taken from another
person of the seed. An email of the row built from the old name follows it.
"""

from __future__ import annotations

import random
from typing import Any

from envs.formats.spec import EnvSpec, TableSpec
from envs.quality.kinship import CHILD, Kin, kin_rows, person_columns, surname_of
from envs.quality.surnames import USUALLY_SHARED, shares_surname, surnames

#: Share of spouses, parents and siblings who take the person's surname.
SHARED_BY_RELATIVES = 0.75


def settle_surnames(spec: EnvSpec) -> int:
    """Give children their parent's surname, and most close relatives the person's (in place).
    Returns the number of rows renamed (deterministic)."""
    rng = random.Random(f"surnames:{spec.id}")
    return sum(fit_surname(kin, spec, rng) for kin in kin_rows(spec))


def fit_surname(kin: Kin, spec: EnvSpec, rng: random.Random) -> bool:
    """Give ``kin`` the family's surname if it is a child, or three times in four a spouse, parent or
    sibling (in place): a seed row, or a record a user asks to add. Whether it was renamed."""
    if surnames(kin) is None or shares_surname(kin):
        return False
    if kin.kind == CHILD or (kin.kind in USUALLY_SHARED and rng.random() < SHARED_BY_RELATIVES):
        return _take_surname(kin, spec, rng)
    return False


def _take_surname(kin: Kin, spec: EnvSpec, rng: random.Random) -> bool:
    person, table = kin.link.person, kin.link.table
    family = surname_of(kin.anchor_row, kin.link.anchor_person)
    assert family is not None
    if person.surname is not None:
        kin.row[person.surname] = family
        return True
    assert person.full is not None
    old = kin.row[person.full]
    mine = surname_of(kin.row, person)
    assert mine is not None
    head, _, tail = old.rpartition(mine)
    taken = {r.get(person.full) for r in spec.seed.get(table.name, []) if r is not kin.row}
    taken.add(kin.anchor_row.get(kin.link.anchor_person.full or ""))
    new = head + family + tail
    if new in taken:
        firsts = _first_names(spec)
        rng.shuffle(firsts)
        new = next((f + " " + family + tail for f in firsts if f + " " + family + tail not in taken), None)
        if new is None:
            return False
    kin.row[person.full] = new
    _follow_in_email(kin.row, table, old, new)
    return True


def _first_names(spec: EnvSpec) -> list[str]:
    """The first names of every person the seed names in full (sorted: the draw is the seed's)."""
    found: set[str] = set()
    for table in spec.tables:
        person = person_columns(table)
        if person is not None and person.full is not None:
            found.update(n.split()[0] for r in spec.seed.get(table.name, []) if " " in (n := str(r.get(person.full))))
    return sorted(found)


def _follow_in_email(row: dict[str, Any], table: TableSpec, old: str, new: str) -> None:
    """An email whose local part was made of the old name (``jane.roe7@...``) is made of the new one."""
    local_old, local_new = (n.lower().replace(" ", ".").replace("'", "") for n in (old, new))
    for column in (c.name for c in table.columns if "email" in c.name.split("_")):
        value = row.get(column)
        if isinstance(value, str) and value.startswith(local_old):
            row[column] = local_new + value[len(local_old) :]
