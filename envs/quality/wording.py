"""Words of a request that read garbled or like a form (measure 56; docs/synthesis.md, "Quality
report"), read from the instruction and, for a person named by their role, the seed:

* ``column_verb_tasks``: a date column named after a verb said as a noun ("my subscription with the
  renews on June 2", for ``renews_on``); a person says "that renews on June 2";
* ``repeated_kind_tasks``: a kind whose value repeats its noun ("It's a lost loss.", for ``loss_type``);
* ``switch_garbled_tasks``: a yes-or-no detail made of a column's words ("I'd like donate papers on.",
  "I'd like has allergies on.", "I'd like invoice uploaded off.");
* ``form_request_tasks``: a form's "request to" said by the user ("I'd also like to request to move
  an active number.");
* ``role_as_beneficiary_tasks``: a record named "for" a person whose column says they serve it, not
  receive it ("my prescription for Stephanie Baker", where she is the prescriber).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..formats.spec import EnvSpec
from ..formats.task import Task
from .naming import person_role

_COLUMN_VERB = re.compile(r"\bwith the [a-z]+(?<![su]s)(?<=[a-z]{3})s on\b")
_KIND = re.compile(r"\bIt's an? ([a-z]+) ([a-z]+)\.")
#: First words of a yes-or-no column that are verbs ("donate_papers").
_VERBS = (
    "donate|send|include|allow|receive|share|notify|skip|keep|leave|add|use|require|request|email|text|call|print|"
    "deliver|waive|hold|ship|gift"
)
_SWITCH = re.compile(rf"\bI'd like (?:(?:has|is|{_VERBS}) [a-z ]+|[a-z ]+ [a-z]+ed) o(?:n|ff)\.")
_FORM_REQUEST = re.compile(r"\b(?:to|please|could you) (?:request|ask|apply) to\b", re.IGNORECASE)
#: Columns of a person's name that are the record's own ("full_name", "guest_name").
_OWN = re.compile(r"(?:^|_)name$")


@dataclass
class WordingCounts:
    column_verb_tasks: int = 0
    repeated_kind_tasks: int = 0
    switch_garbled_tasks: int = 0
    form_request_tasks: int = 0
    role_as_beneficiary_tasks: int = 0


def repeats_kind(text: str) -> bool:
    """Whether ``text`` says a kind whose value repeats its noun ("It's a lost loss.")."""
    return any(m.group(1)[:3] == m.group(2)[:3] for m in _KIND.finditer(text))


def serving_people(spec: EnvSpec, rows: Mapping[str, list[dict[str, Any]]] | None = None) -> set[str]:
    """Seed values of text columns that name a person by the role they serve in (a prescriber, a
    technician, an author): "for" one of them names them as the one served."""
    seed = rows if rows is not None else spec.seed
    out: set[str] = set()
    for table in spec.tables:
        for column in table.columns:
            if column.type != "text" or _OWN.search(column.name) or person_role(column.name) == "for":
                continue
            out |= {v for r in seed.get(table.name, []) if isinstance(v := r.get(column.name), str) and " " in v}
    return out


def wording_counts(spec: EnvSpec, tasks: list[Task]) -> WordingCounts:
    """Measure the instructions of ``tasks`` (``spec``: whose seed names the people by role)."""
    out = WordingCounts()
    people = serving_people(spec)
    for task in tasks:
        text = task.instruction
        out.column_verb_tasks += _COLUMN_VERB.search(text) is not None
        out.repeated_kind_tasks += repeats_kind(text)
        out.switch_garbled_tasks += _SWITCH.search(text) is not None
        out.form_request_tasks += _FORM_REQUEST.search(text) is not None
        out.role_as_beneficiary_tasks += any(f"for {p}" in text for p in people)
    return out
