"""Requests in the generator's words rather than a person's (measure 94; docs/synthesis.md, "Quality
report"), read from the instruction and, for statuses, the spec:

* ``status_ranked_tasks``: a record picked by a rank with its status said before the noun ("my open
  freight quote that expires last", "the up for swap shift with the fewest hours", "my earliest
  booked room"); a person says which of their records they mean ("the quote that expires last");
* ``kind_asked_tasks``: a record's kind asked as a form's field ("What is the payment type of my
  event payment …?"); a person asks "What kind of payment was it?";
* ``staff_worded_tasks``: a step of the business's own work asked for by a customer ("start the
  review for my application"); a customer asks to have it reviewed;
* ``dictated_reason_tasks``: a reason handed to the agent as a quotation to type in ('Please put
  "not received" as the reason.'); a person says why ("It never arrived.").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from ..catalog import load_env_dir
from ..formats.spec import EnvSpec
from ..formats.task import Task

#: What a rank says after its noun, or before it ("my earliest booked room").
_AFTER = (
    r"(?:that (?:expires|is due|renews|ends|is expected) (?:first|last)|that costs the (?:least|most)|"
    r"with the (?:fewest|most|highest|lowest|largest|smallest|earliest|latest|oldest|newest) )"
)
_BEFORE = r"(?:earliest|latest|oldest|most recent|cheapest|most expensive|smallest|largest)"
_KIND_WORDS = r"(?:type|kind|category|method|class)"
_KIND_ASKED = re.compile(
    rf"\b(?:what (?:is|was)|tell me|need to know) the (?:[a-z]+ ){{0,2}}{_KIND_WORDS} of (?:my|the)\b", re.I
)
_STAFF_WORK = re.compile(
    r"\b(?:start|begin|conduct|perform|carry out|open) the (?:review|assessment|investigation|audit|evaluation)\b",
    re.I,
)
_DICTATED_REASON = re.compile(
    r'\bas the (?:[a-z]+ )?reason\b(?:[:.]| for)|\bthe (?:[a-z]+ )?reason(?: is|, please put|:) "', re.I
)


@dataclass
class GeneratorWordCounts:
    status_ranked_tasks: int = 0
    kind_asked_tasks: int = 0
    staff_worded_tasks: int = 0
    dictated_reason_tasks: int = 0


def statuses(spec: EnvSpec) -> list[str]:
    """Every value of a status column of ``spec``, in words ("up for swap"), longest first."""
    found = {
        str(v).replace("_", " ")
        for table in spec.tables
        for c in table.columns
        if c.enum and (c.name in ("status", "state") or c.name.endswith(("_status", "_state")))
        for v in c.enum
    }
    return sorted(found, key=lambda s: (-len(s), s))


def status_ranked(text: str, states: list[str]) -> bool:
    """Whether ``text`` picks a record by a rank with one of ``states`` before its noun."""
    if not states:
        return False
    said = "|".join(re.escape(s) for s in states)
    after = rf"\b(?:my|the) (?:{said}) (?:[\w-]+ ){{1,3}}{_AFTER}"
    before = rf"(?<!with )\b(?:my|the) {_BEFORE} (?:{said}) [\w-]+"  # not "with the earliest ready date"
    return re.search(after, text, re.I) is not None or re.search(before, text, re.I) is not None


def asks_kind(text: str) -> bool:
    """Whether ``text`` asks a record's kind as a field ("the payment type of my payment")."""
    return _KIND_ASKED.search(text) is not None


def staff_worded(text: str) -> bool:
    """Whether ``text`` asks for the business's own step ("start the review for my application")."""
    return _STAFF_WORK.search(text) is not None


def dictates_reason(text: str) -> bool:
    """Whether ``text`` hands over a reason as a quotation to enter ('Please put "x" as the reason.')."""
    return _DICTATED_REASON.search(text) is not None


def generator_word_counts(spec: EnvSpec, tasks: list[Task]) -> GeneratorWordCounts:
    """Measure the instructions of ``tasks`` of ``spec``."""
    states = statuses(spec)
    out = GeneratorWordCounts()
    for task in tasks:
        text = task.instruction
        out.status_ranked_tasks += status_ranked(text, states)
        out.kind_asked_tasks += asks_kind(text)
        out.staff_worded_tasks += staff_worded(text)
        out.dictated_reason_tasks += dictates_reason(text)
    return out


def scan(root: Path) -> dict[str, int]:
    """The counts over every environment directory under ``root`` (a built catalog), summed."""
    if not root.is_dir():
        raise FileNotFoundError(f"no catalog directory at {root}")
    total = GeneratorWordCounts()
    for path in sorted(p.parent for p in root.glob("*/spec.json")):
        entry = load_env_dir(path)
        for name, value in asdict(generator_word_counts(entry.spec, entry.tasks)).items():
            setattr(total, name, getattr(total, name) + value)
    return asdict(total)
