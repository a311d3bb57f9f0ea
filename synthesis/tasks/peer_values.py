"""Wrong answers to a question about one record: the values of the user's other records of its kind.

"How much is my spot for Around the Table?" is answered by that spot's price. An answer that gives
the price of another of the user's spots has not told the records apart, and one that gives the
prices added up (all of them, or those in one state, as an agent that sums every amount read by
status does) has not picked the record at all; each is a distractor the grade fails an answer for.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from envs.grading.outputs import output_present

from ..domains.domain import Entity

Row = dict[str, Any]


def _amount(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def peer_values(
    e: Entity,
    rows: list[Row],
    row: Row,
    col: str,
    answer: str,
    is_label: bool,
    owner_of: Callable[[Entity, Row], Any],
    results: list[Any],
) -> list[str]:
    """The same column's values of the user's other records of ``e`` that the gold calls' ``results``
    show, and, of a number, its sums over the user's records in each state and over them all (where
    more than one record is added and the sum is no single record's value)."""
    owner = owner_of(e, row)
    shown = json.dumps(results, default=str)
    shown += " " + shown.replace("_", " ")
    mine = [r for r in rows if r.get(col) is not None and owner_of(e, r) == owner]
    out = set()
    for other in mine:
        if other is row:
            continue
        value = other[col]
        text = str(value.replace("_", " ") if isinstance(value, str) and is_label else value)
        if output_present(text, answer) or output_present(answer, text) or not output_present(text, shown):
            continue
        out.add(text)
    amounts = [a for r in mine if (a := _amount(r[col])) is not None]
    if len(amounts) < len(mine) or _amount(row.get(col)) is None:
        return sorted(out)
    groups = [mine]
    if e.lifecycle is not None:
        state = e.lifecycle.field
        groups += [[r for r in mine if r.get(state) == s] for s in {r.get(state) for r in mine}]
    for group in groups:
        if len(group) < 2:
            continue
        total = round(sum(float(r[col]) for r in group), 2)
        if all(abs(total - a) >= 0.005 for a in amounts) and not output_present(f"{total:.2f}", answer):
            out.add(f"{total:.2f}")
    return sorted(out)
