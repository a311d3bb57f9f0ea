"""A question of a record's status or kind asked together with a value only reading it gives.

Asked alone, "what is the status of my return?" is won by a guess at one chance in the column's
values, better where the request leans one way (``envs.quality.guesses``: 34 % of such questions on
a 40-environment sample, with no call made). So the question also asks for one of the record's
amounts, days or counts, one the user has not said: "What is the status of my booking for flight AW6233,
and its total fare?". One person's question about one record; the answer must hold both.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime
from typing import Any

from envs.grading.outputs import as_number, output_present

from ..domains.domain import Entity
from .phrasing import column_noun, record_question

#: The kinds of value a reader learns only from the record, most telling first (a count only above 9).
_READ_KINDS = ("money", "date", "datetime", "quantity")


def _said(value: Any, text: str) -> bool:
    """Whether ``text`` already holds ``value``: as written, or a day as a person says it
    ("February 11" for 2026-02-11)."""
    shown = str(value)
    if output_present(shown, text):
        return True
    try:
        day: date = datetime.fromisoformat(shown.replace(" ", "T"))
    except ValueError:
        return False
    return re.search(rf"\b{day:%B} {day.day}\b", text) is not None


def read_value(entity: Entity, row: dict[str, Any], label: str, said: str, seed: str) -> str | None:
    """A column of ``row`` to ask beside its ``label`` column: an amount or a day the user has not
    said (``said``: everything the user tells), that is not a small whole number stated by accident
    in any answer; drawn with its own generator (``seed``) so the tasks drawn after it stay as they
    were. ``None`` when the record has none."""
    chosen = set(entity.create.inputs) if entity.create is not None else set()  # the user's own choice
    by_kind: dict[str, list[str]] = {k: [] for k in _READ_KINDS}
    for attr in entity.attributes:
        value = row.get(attr.name)
        if attr.name == label or attr.name in chosen or attr.kind not in by_kind or value is None:
            continue
        number = as_number(str(value))
        if _said(value, said) or (number is not None and number == int(number) and abs(number) < 10):
            continue
        by_kind[attr.kind].append(attr.name)
    rng = random.Random(seed)
    found = next((names for names in by_kind.values() if names), [])
    return rng.choice(found) if found else None


def ask_pair(question: str, column: str) -> str:
    """The label ``question`` ("What is the status of my booking for flight AW6233?") with ``column``
    asked of the same record: "…, and when was it booked?" for a when-column named after its event,
    else "…, and its total fare?"."""
    when = record_question("it", column)
    head, stop = question[:-1], question[-1] if question[-1] in "?." else ""
    if when is not None:
        return f"{question if stop else question + '.'} {when}"
    noun = column_noun(column)
    if noun.split()[-1] in ("until", "by"):  # "its valid until date", not "its valid until"
        noun += " date"
    return f"{head if stop else question}, and its {noun}{stop or '?'}"


def pair_label(
    entity: Entity, row: dict[str, Any], label: str, question: str, told: list[str], seed: str
) -> tuple[str, str] | None:
    """``question`` of ``row``'s ``label`` with a value only reading gives asked beside it, and that
    value's column; ``None`` when the record has none the user has not ``told``."""
    column = read_value(entity, row, label, " ".join([*told, question]), seed)
    return (ask_pair(question, column), column) if column is not None else None
