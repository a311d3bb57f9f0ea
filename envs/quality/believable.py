"""Would a person believe this environment? Measures of its data and texts that generated data gets
wrong and a reviewer notices first (docs/synthesis.md, "Quality report"):

* **undated time rules**: rules about time ("more than 2 days away") in a policy that states no
  current time, so no agent can decide them;
* **birth dates under 16**: the people of a service are adults (or at least not newborns), except
  those on record as someone's child (``kinship``: a dependent child, a guardian's child);
* **rules phrased as columns**: a rule text that shows a column name ("per card account id", "the
  renews on must", "is available must be True", "merchant_responded");
* **instructions that copy a tool**: a user who speaks a tool's description word for word;
* **reasons outside their state**: a value of a column naming an event (``suspension_reason``,
  ``dispute_note``) on a row whose status names no such event (an active license with a suspension
  reason; ``state_words``);
* **policy words**: how long the policy is, beside tau2's (1,158 words for retail, 1,313 for airline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ..formats.spec import EnvSpec, TableSpec
from ..formats.task import Task
from ..grading.decidable import is_time_rule, stated_now
from .kin_ages import day
from .kinship import CHILD, GRANDCHILD, kin_rows
from .state_words import event_of

#: A column name showing through a rule's words.
_COLUMN_WORDS = re.compile(r"_|\bids?\b|\b(?:true|false)\b|\b(?:at|on) must\b|\bis \w+ must\b", re.IGNORECASE)
_BIRTH = re.compile(r"birth|\bdob\b|born")
_STATUS = "status"
#: Descriptions shorter than this many words are too generic to count as copied ("Cancel a booking").
MIN_COPIED_WORDS = 6


@dataclass
class BelievableCounts:
    """The measures of one environment."""

    time_rules: int = 0
    undated_time_rules: int = 0
    birth_dates_checked: int = 0
    birth_dates_under_16: int = 0
    rule_texts: int = 0
    rules_phrased_as_columns: int = 0
    instructions_copying_tools: int = 0
    policy_words: int = 0
    event_reasons_checked: int = 0
    event_reasons_outside_their_state: int = 0


def believable_counts(spec: EnvSpec, tasks: list[Task]) -> BelievableCounts:
    """Measure ``spec`` and its ``tasks``."""
    out = BelievableCounts(policy_words=len(spec.policy.split()))
    dated = stated_now(spec.policy) is not None
    for rule in spec.rules:
        out.rule_texts += 1
        out.rules_phrased_as_columns += bool(_COLUMN_WORDS.search(rule.text))
        if is_time_rule(rule.text):
            out.time_rules += 1
            out.undated_time_rules += not dated
    children = {(k.link.table.name, k.index) for k in kin_rows(spec) if k.kind in (CHILD, GRANDCHILD)}
    for table in spec.tables:
        births = [c.name for c in table.columns if _BIRTH.search(c.name) and c.type in ("date", "datetime", "text")]
        for i, row in enumerate(spec.seed.get(table.name, [])):
            if (table.name, i) in children:
                continue
            for column in births:
                born = day(row.get(column))
                if born is not None:
                    out.birth_dates_checked += 1
                    out.birth_dates_under_16 += _years(born, spec.clock) < 16
    for table in spec.tables:
        _count_event_reasons(out, table, spec.seed.get(table.name, []))
    descriptions = [_words(t.description.split(". ")[0]) for t in spec.tools]
    descriptions = [d for d in descriptions if len(d.split()) >= MIN_COPIED_WORDS]
    for task in tasks:
        said = _words(task.instruction)
        out.instructions_copying_tools += any(d in said for d in descriptions)
    return out


def _count_event_reasons(out: BelievableCounts, table: TableSpec, rows: list[dict[str, Any]]) -> None:
    """Filled values of columns naming an event that some status of the table names, and those on a
    row whose status names another event or none."""
    if not any(c.name == _STATUS for c in table.columns):
        return
    events = {event_of(str(row.get(_STATUS))) for row in rows} - {None}
    reasons = [c.name for c in table.columns if c.name != _STATUS and c.type == "text" and event_of(c.name) in events]
    for row in rows:
        for column in reasons:
            if row.get(column) is not None:
                out.event_reasons_checked += 1
                out.event_reasons_outside_their_state += event_of(str(row.get(_STATUS))) != event_of(column)


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def _years(born: date, clock: datetime) -> float:
    return (clock.date() - born).days / 365.25
