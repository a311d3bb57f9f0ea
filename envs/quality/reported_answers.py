"""Two more correct-answer forms, from answers a reviewer wrote on real tasks (docs/synthesis.md,
"Seed 59") that the grader failed:

* ``names-the-record`` — a question answered with the record it is about named in sentences: its
  id, the date the user named it by, the asked value and its status ("Your carrier invoice CI0003,
  dated November 17, 2025: its amount is $5,150.29. It's currently submitted.");
* ``total-unchanged`` — a refused payment, refund or charge answered as another form does, then the
  total the policy may ask to be told, with the request's participle after it ("The total paid on it
  is unchanged.").

Like :mod:`.natural_answers`, each is a complete correct answer, built without the grader.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine import Environment
from ..formats.task import Task
from .adversaries import flatten, participles
from .natural_answers import natural_answers

FORMS = ("names-the-record", "total-unchanged")
_ID = re.compile(r"[A-Z]{1,4}-?\d{3,}")
_ISO_DAY = re.compile(r"(\d{4})-(\d\d)-(\d\d)")
_MONEY = re.compile(r"amount|price|cost|fee|balance|total|deposit|charge|refund|payment|fare|owed|due")
#: Requests whose participle names a sum of money as well as an event ("the total paid").
_MONEY_VERBS = frozenset({"pay", "prepay", "refund", "charge", "credit", "redeem", "deposit", "tip", "transfer"})
_MONTHS = re.findall(r"\w+", "January February March April May June July August September October November December")


def reported_answers(env: Environment, task: Task, results: list[Any]) -> dict[str, str]:
    """The forms that apply to ``task`` (none, one or both), given what its gold calls returned."""
    out = {}
    if task.outputs and not task.refusals and (named := _names_the_record(task, results)):
        out["names-the-record"] = named
    if task.refusals and (total := _total_unchanged(env, task)):
        out["total-unchanged"] = total
    return out


def _same(value: Any, output: str) -> bool:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return abs(float(output) - float(value)) < 1e-9
        except ValueError:
            return False
    return str(value) == output


def _day(iso: str) -> str:
    m = _ISO_DAY.match(iso)
    return f"{_MONTHS[int(m[2]) - 1]} {int(m[3])}, {m[1]}" if m else iso


def _names_the_record(task: Task, results: list[Any]) -> str | None:
    """The one record holding the single output, named by its id, the user's date and its status."""
    if len(task.outputs) != 1:
        return None
    output = task.outputs[0]
    holding = {tuple(r) for result in results for r in flatten(result) if any(_same(v, output) for _, v in r)}
    if len(holding) != 1:
        return None
    record = list(next(iter(holding)))
    key = next((k for k, v in record if _same(v, output)), "")
    ids = [(k, str(v)) for k, v in record if k.endswith("_id") and _ID.fullmatch(str(v))]
    if not ids or any(str(v) in task.distractors for _, v in record if not _same(v, output)):
        return None
    noun = ids[0][0].removesuffix("_id").replace("_", " ")
    said = task.instruction
    dated = [str(v) for _, v in record if isinstance(v, str) and _ISO_DAY.fullmatch(v) and _day(v) in said]
    money = isinstance(record[[k for k, _ in record].index(key)][1], float) and _MONEY.search(key)
    value = f"${float(output):,.2f}" if money else output
    status = next((str(v) for k, v in record if re.search(r"status|state", k) and isinstance(v, str)), "")
    text = f"Your {noun} {ids[0][1]}" + (f", dated {_day(dated[0])}" if dated else "")
    text += f": its {key.replace('_', ' ')} is {value}."
    return text + (f" It's currently {status.replace('_', ' ')}." if status else "")


def _total_unchanged(env: Environment, task: Task) -> str | None:
    """The ``reason-after`` form, and for each refused payment, refund or charge its total unchanged."""
    said = []
    for refusal in task.refusals:
        verb = refusal.request.split()[0].lower()
        if verb in _MONEY_VERBS:
            said.append(f"The total {participles(verb)[0]} on it is unchanged.")
    if not said:
        return None
    base = natural_answers(env, task).get("reason-after")
    return f"{base} {' '.join(dict.fromkeys(said))}" if base else None
