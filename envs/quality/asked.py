"""Questions no customer asks (measure 57; docs/synthesis.md, "Quality report"), read from an
information task's reference answer ("The total weekly rate of your cancelled print subscriptions is
22.25.", "The source of your job application for … is job board."):

* ``totals_over_ended``: a total of a charge over records that ended unfulfilled (cancelled,
  withdrawn, expired …): they bill nothing, so their rate or amount adds up to nothing anyone pays;
* ``own_choice_questions``: the value of a field the user set themselves when they made the record
  (a create tool's parameter, "the source of my job application"): a bookkeeping column only the
  one asking could have filled in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..formats.spec import EnvSpec
from ..formats.task import Task
from .text import column_words

#: States of a record that ended without what it was for: its charges apply no more.
ENDED_STATES = frozenset(
    {"cancelled", "canceled", "withdrawn", "expired", "terminated", "void", "voided", "rejected", "denied",
     "declined", "lapsed", "closed", "ended", "abandoned", "forfeited", "inactive", "stopped", "discontinued",
     "revoked", "archived", "lost", "no_show", "defaulted", "written_off"}
)  # fmt: skip
_TOTAL = re.compile(r"^The total (.+?) of your (.+?) is ")
_VALUE = re.compile(r"^The (.+?) of your (.+?) is ")
_KEY_PARAM = re.compile(r"_ids?$")


def ended_state(state: str) -> bool:
    """Whether ``state`` (a status value, "cancelled" or "no_show") ends a record unfulfilled."""
    return state.replace(" ", "_").lower() in ENDED_STATES


@dataclass
class AskedCounts:
    total_questions: int = 0
    totals_over_ended: int = 0
    value_questions: int = 0
    own_choice_questions: int = 0


def asked_counts(spec: EnvSpec, tasks: list[Task]) -> AskedCounts:
    """Measure the information questions of ``tasks`` against the create tools of ``spec``."""
    out = AskedCounts()
    chosen = {  # (the words of what a create tool makes, a field it takes)
        (column_words(t.name.removeprefix("create_")), column_words(p))
        for t in spec.tools
        if t.kind == "write" and t.name.startswith("create_")
        for p in t.parameters.get("properties", {})
        if not _KEY_PARAM.search(p)
    }
    for task in tasks:
        if task.expects_change or task.refusals or not task.answer:
            continue
        if m := _TOTAL.match(task.answer):
            out.total_questions += 1
            which = m.group(2).split()
            out.totals_over_ended += any(ended_state(" ".join(which[:n])) for n in (1, 2, 3))  # "no show reservations"
        elif m := _VALUE.match(task.answer):
            out.value_questions += 1
            field, record = m.group(1), m.group(2)
            made_here = [f for made, f in chosen if re.search(rf"\b{re.escape(made)}\b", record)]
            out.own_choice_questions += field in made_here
    return out
