"""A rule's terms: its words read as a subject, a kind and a value, so the same rule can be stated with
another value (a distractor) and each statement applied to a record's value.

Forms read (the ones generated policies write for rules a tool may leave to the policy):

* time with a span — "the entry time must be more than 24 hours away", "… no more than 60 days away",
  "… within the last 30 days" — decided by ``envs.grading.decidable.decide`` on the rule's own words;
* "… must have passed", stated with another value as "… must be no more than N days away";
* a field's values — "the plan must be one of standard, premium", "the move job must be completed";
* an excluded value — "not when the lot type is valet";
* an exact amount — "the fine balance must be 0", stated with another value as "… must be at most N".

Any other form (``must be in the future``, counts, balances) is not read: :func:`read_terms` returns
None and no knowledge-base task rests on such a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime

from envs.grading.decidable import decide
from envs.grading.mentions import parse_value

_SPAN = re.compile(
    r"^(?P<subject>.+?) must be (?P<cmp>more than|no more than) (?P<n>\d+) (?P<unit>hour|day|week)s? away$"
)
_LAST = re.compile(r"^(?P<subject>.+?) must be within the last (?P<n>\d+) (?P<unit>hour|day|week)s?$")
_PASSED = re.compile(r"^(?P<subject>.+?) must have passed$")
_ONE_OF = re.compile(r"^(?P<subject>.+?) must be one of (?P<values>[a-z0-9 ,]+)$")
_AMOUNT = re.compile(r"^(?P<subject>.+?) must be (?P<cmp>at most )?(?P<n>\d+(?:\.\d+)?)$")
_IS = re.compile(r"^(?P<subject>.+?) must be (?P<values>[a-z][a-z0-9 ]*)$")
_NOT_WHEN = re.compile(r"^not when (?P<subject>.+?) is (?P<values>[a-z0-9 ]+)$")
#: Words that start a comparison, not a value: "must be at least 1", "must be in the future".
_NOT_VALUES = ("at ", "in the ", "more ", "no ", "less ", "within ", "before ", "after ", "on or ")


def _plural(n: float, unit: str) -> str:
    return f"{n:g} {unit}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class Terms:
    """One statement of a rule: ``kind`` is ``after`` (more than N away), ``before`` (no more than N
    away), ``last`` (within the last N), ``passed``, ``one_of``, ``not_when`` or ``at_most``."""

    subject: str
    kind: str
    number: float = 0
    unit: str = "day"
    values: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The statement in the policy's words."""
        if self.kind == "after":
            return f"{self.subject} must be more than {_plural(self.number, self.unit)} away"
        if self.kind == "before":
            return f"{self.subject} must be no more than {_plural(self.number, self.unit)} away"
        if self.kind == "last":
            return f"{self.subject} must be within the last {_plural(self.number, self.unit)}"
        if self.kind == "passed":
            return f"{self.subject} must have passed"
        if self.kind == "one_of":
            if len(self.values) == 1:
                return f"{self.subject} must be {self.values[0]}"
            return f"{self.subject} must be one of {', '.join(self.values)}"
        if self.kind == "not_when":
            return f"not when {self.subject} is {self.values[0]}"
        if self.kind == "at_most":
            return f"{self.subject} must be at most {self.number:g}"
        if self.kind == "equals":
            return f"{self.subject} must be {self.number:g}"
        raise ValueError(self.kind)

    def with_number(self, number: float) -> Terms:
        return replace(self, number=number)

    def allows(self, now: datetime, values: list[str]) -> bool | None:
        """Whether this statement lets the action through on a record whose tested value is given by
        ``values`` (a refusal's reason: dates for time rules, a label or an amount otherwise); None
        when the values do not decide it."""
        if self.kind in ("after", "before", "last", "passed"):
            moments = [v for v in values if parse_value(v) is not None]
            verdicts = {decide(self.text, now, v) for v in moments}
            return verdicts.pop() if len(verdicts) == 1 else None
        labels = [_label(v) for v in values]
        if not labels:
            return None
        if self.kind == "one_of":
            return all(label in self.values for label in labels)
        if self.kind == "not_when":
            return all(label != self.values[0] for label in labels)
        numbers = [float(v) for v in values if _is_number(v)]
        if not numbers:
            return None
        if self.kind == "at_most":
            return all(n <= self.number for n in numbers)
        return all(n == self.number for n in numbers)  # equals


def _label(value: str) -> str:
    return " ".join(value.replace("_", " ").lower().split())


def _is_number(value: str) -> bool:
    return re.fullmatch(r"-?\d+(?:\.\d+)?", value.strip()) is not None


def read_terms(text: str) -> Terms | None:
    """The terms of a rule as the policy words it, or None when the form is not one read here.

    >>> read_terms("the entry time must be more than 24 hours away").text
    'the entry time must be more than 24 hours away'
    >>> read_terms("the plan must be one of standard, premium").values
    ('standard', 'premium')
    >>> read_terms("the hold expiry must be in the future") is None
    True
    """
    low = text.strip()
    if m := _SPAN.match(low):
        kind = "after" if m["cmp"] == "more than" else "before"
        return Terms(m["subject"], kind, float(m["n"]), m["unit"])
    if m := _LAST.match(low):
        return Terms(m["subject"], "last", float(m["n"]), m["unit"])
    if m := _PASSED.match(low):
        return Terms(m["subject"], "passed")
    if m := _NOT_WHEN.match(low):
        return Terms(m["subject"], "not_when", values=(m["values"],))
    if m := _AMOUNT.match(low):
        return Terms(m["subject"], "at_most" if m["cmp"] else "equals", float(m["n"]))
    if m := _ONE_OF.match(low):
        return Terms(m["subject"], "one_of", values=tuple(v.strip() for v in m["values"].split(",")))
    if (m := _IS.match(low)) and not m["values"].startswith(_NOT_VALUES) and not re.search(r"\d", m["values"]):
        return Terms(m["subject"], "one_of", values=(m["values"],))
    return None
