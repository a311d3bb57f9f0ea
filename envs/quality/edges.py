"""Refusals whose deciding value sits on the edge of their time rule (measure 58, docs/synthesis.md).

A rule about time is stated twice: by the tool ("Cancel a reservation at least an hour ahead") and by
the policy's rule line ("must be more than 1 hour away"). The two agree everywhere but on the edge,
where one is strict and the other is not, so a reservation exactly an hour off is allowed by one and
refused by the other, and no reader can decide it. A refusal's reason value (a date and time) is on
the edge when moving it by a minute either way changes what the rule's own words decide
(:func:`envs.grading.decidable.decide`): the verdict flips there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..formats.spec import EnvSpec
from ..formats.task import Task
from ..grading.decidable import decide, is_time_rule

_MINUTE = timedelta(minutes=1)


def on_the_edge(rule: str, clock: datetime, value: str) -> bool:
    """Whether ``value`` (an ISO date and time) sits where ``rule``'s verdict changes at ``clock``.

    >>> now = datetime(2026, 3, 2, 9)
    >>> rule = "the reserved for must be more than 1 hour away"
    >>> on_the_edge(rule, now, "2026-03-02 10:00"), on_the_edge(rule, now, "2026-03-02 10:30")
    (True, False)
    """
    if len(value) <= 10:  # a bare day: ``decide`` already leaves a day the edge falls on undecided
        return False
    try:
        moment = datetime.fromisoformat(value[:16])
    except ValueError:
        return False
    verdicts = {decide(rule, clock, f"{moment + step:%Y-%m-%d %H:%M}") for step in (-_MINUTE, timedelta(0), _MINUTE)}
    return None not in verdicts and len(verdicts) > 1


@dataclass
class EdgeCounts:
    """Refusals on a time rule, and those whose reason value sits on the rule's edge."""

    time_refusals_checked: int = 0
    refusals_on_rule_edge: int = 0


def refusals_on_edge(spec: EnvSpec, tasks: Iterable[Task]) -> EdgeCounts:
    """Measure 58 over ``tasks``."""
    out = EdgeCounts()
    for task in tasks:
        for refusal in task.refusals:
            stated = spec.rule(refusal.rule) if refusal.rule else None
            if stated is None or not is_time_rule(stated.text):
                continue
            out.time_refusals_checked += 1
            out.refusals_on_rule_edge += any(on_the_edge(stated.text, spec.clock, v) for v in refusal.reason)
    return out
