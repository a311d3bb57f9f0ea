"""The record an information question asks about, as the gold reads showed it.

A question with one asked value ("when was my PayPal payout requested?") is about the one record
that holds it: the forms of :mod:`.identified_answers` name that record by a second fact of it, and
the agents of :mod:`.asked_record_adversaries` read it out, or read the asked field of every record,
so that the grader's read-out rule is measured both ways.
"""

from __future__ import annotations

import re
from typing import Any

from ..formats.task import Task
from .adversaries import Pair, flatten

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTHS = re.findall(r"\w+", "January February March April May June July August September October November December")


def holds(value: Any, output: str) -> bool:
    """Whether a record's ``value`` is the asked ``output`` (a number by value, else as written)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return abs(float(output.replace(",", "").lstrip("$")) - float(value)) < 1e-9
        except ValueError:
            return False
    return str(value) == output


def asked_record(task: Task, results: list[Any]) -> tuple[list[Pair], str] | None:
    """The one record of ``results`` holding the task's single output in a field other than a key,
    and that field; None where the task asks for more than one value, refuses something, or the
    value stands in more than one record (a question whose answer no record alone holds)."""
    if len(task.outputs) != 1 or task.refusals:
        return None
    output = task.outputs[0]
    holding = {
        tuple(r): k
        for result in results
        for r in flatten(result)
        for k, v in r
        if not k.endswith("_id") and holds(v, output)
    }
    if len({r[0] for r in holding}) != 1:
        return None
    # a list shows a record in fewer fields than its details call: the fullest view is the record
    record = max(holding, key=len)
    return list(record), holding[record]


def noun(record: list[Pair]) -> str:
    """What the record is, by its own id's name ("payout_request_id" -> "payout request")."""
    first = record[0][0] if record else ""
    return first.removesuffix("_id").replace("_", " ") if first.endswith("_id") else "record"


def day(iso: str) -> str:
    """A day as people write it: "2025-12-07" -> "December 7, 2025"."""
    return f"{_MONTHS[int(iso[5:7]) - 1]} {int(iso[8:10])}, {iso[:4]}" if _ISO_DAY.match(iso) else iso


def is_day(value: Any) -> bool:
    return isinstance(value, str) and _ISO_DAY.match(value) is not None
