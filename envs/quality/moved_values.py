"""Values a gold write moves to where no customer would want them (measure 81, docs/synthesis.md):

* **amounts changed out of all measure**: a write that sets a number column (money, a quantity, a
  count) that held a positive amount to a value one of its arguments gives (the column's own, or a
  ``corrected_value``), under a fifth or over five times the old. A person
  corrects a declared value of 47,420.11 by some percent, never to 39.42.
* **dates moved on into the past**: a write that moves a date or a time of the record later by itself
  (not to a value its arguments give: an extension, a postponement, a renewal) and leaves it before
  the clock. A rental that ended in January, extended by 30 days, still ended a month ago.

Read from the rows a write changed, before and after, with the write's arguments; the task generator
keeps both out (``synthesis/tasks/landing.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..formats.spec import TableSpec

#: How far an amount may move before no one would ask for it: under a fifth, over five times.
FAR = 5.0
_AMOUNT_TYPES = frozenset({"real", "integer"})
_DATE_TYPES = frozenset({"date", "datetime"})


@dataclass
class MovedValues:
    """What the writes of one task did to amounts and dates."""

    amounts_checked: int = 0
    amounts_far: list[str] = field(default_factory=list)
    dates_checked: int = 0
    dates_past: list[str] = field(default_factory=list)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _keys(table: TableSpec) -> set[str]:
    return set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}


def read_write(
    found: MovedValues,
    table: TableSpec,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    arguments: Mapping[str, Any],
    clock: datetime,
) -> None:
    """Add to ``found`` what one write did to one row of ``table`` (``before`` None: a new row, not read)."""
    if before is None or after is None:
        return
    keys = _keys(table)
    given = {n for v in arguments.values() if (n := _number(v)) is not None}  # a corrected_value sets declared_value
    for column in table.columns:
        name = column.name
        if name in keys or before.get(name) == after.get(name):
            continue
        if column.type in _AMOUNT_TYPES and name not in keys:
            old, new = _number(before.get(name)), _number(after.get(name))
            if old is None or new is None or old <= 0 or new not in given:
                continue  # an amount the write worked out itself (a balance paid down) is not the user's
            found.amounts_checked += 1
            if new < old / FAR or new > old * FAR:
                found.amounts_far.append(f"{table.name}.{name} {before.get(name)} -> {after.get(name)}")
        elif column.type in _DATE_TYPES and name not in arguments:
            old_day, new_day = before.get(name), after.get(name)
            if not isinstance(old_day, str) or not isinstance(new_day, str) or new_day <= old_day:
                continue  # only a date the write moves on by itself
            found.dates_checked += 1
            now = clock.strftime("%Y-%m-%d" if len(new_day) == 10 else "%Y-%m-%d %H:%M:%S")
            if new_day.replace("T", " ") < now:
                found.dates_past.append(f"{table.name}.{name} {old_day} -> {new_day}")
