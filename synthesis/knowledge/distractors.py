"""Close-but-wrong statements of a rule: the same rule with another value, as another plan's or segment's
terms (looser: it lets through what the rule refuses) or an archived edition (stricter where the form
has a stricter side).

The looser value is chosen to flip as many of the rule's refusals as it can: an agent that applies it
acts where the rule says no. :func:`looser` returns None when no value of the form flips any of them
(a date already past for "more than N hours away"); those refusals make no knowledge-base task.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from .terms import Terms

# fmt: off
#: Round values a help center would state, per unit.
NICE: dict[str, tuple[float, ...]] = {
    "hour": (1, 2, 3, 4, 6, 8, 12, 24, 36, 48, 72, 96, 120, 168, 240, 336, 720),
    "day": (1, 2, 3, 5, 7, 10, 14, 21, 30, 45, 60, 90, 120, 180, 270, 365, 540, 730),
    "week": (1, 2, 3, 4, 6, 8, 12, 26, 52),
    "amount": (1, 5, 10, 20, 25, 50, 100, 150, 200, 250, 500, 1000, 2000, 5000, 10000, 50000),
}
# fmt: on
#: The customers another plan's terms are written for (picked by the rule's position).
SEGMENTS = ("Business accounts", "Premier members", "Partner locations", "Corporate clients", "the Plus plan")
ARCHIVED = "archived edition"


def _flips(terms: Terms, now: datetime, refusals: Sequence[list[str]]) -> int:
    return sum(terms.allows(now, reason) is True for reason in refusals)


def _best(options: list[Terms], now: datetime, refusals: Sequence[list[str]]) -> Terms | None:
    """The option that flips the most refusals; the first (closest to the rule) among equals."""
    scored = [(_flips(t, now, refusals), -i, t) for i, t in enumerate(options)]
    best = max(scored, default=None, key=lambda s: (s[0], s[1]))
    return best[2] if best is not None and best[0] > 0 else None


def looser(
    terms: Terms,
    now: datetime,
    refusals: Sequence[list[str]],
    others: Sequence[str] = (),
    avoid: frozenset[str] = frozenset(),
) -> Terms | None:
    """The rule with a value that lets through as many of ``refusals`` (each a refusal's reason values)
    as one value can; ``others`` are the field's other values, for an excluded value's distractor;
    no statement in ``avoid`` (the environment's own rules: a distractor never states another rule)."""
    nice = NICE.get(terms.unit, NICE["day"])
    if terms.kind == "after":  # more than N away: a shorter notice
        options = [terms.with_number(n) for n in sorted((n for n in nice if n < terms.number), reverse=True)]
    elif terms.kind in ("before", "last"):  # no more than N away / within the last N: a longer window
        options = [terms.with_number(n) for n in nice if n > terms.number]
    elif terms.kind == "passed":  # up to N days ahead
        options = [Terms(terms.subject, "before", n, "day") for n in NICE["day"]]
    elif terms.kind == "one_of":
        labels = sorted({" ".join(v.replace("_", " ").lower().split()) for r in refusals for v in r[:1]})
        extra = tuple(v for v in labels if v not in terms.values)
        options = [Terms(terms.subject, "one_of", values=extra + terms.values)] if extra else []
    elif terms.kind == "not_when":
        options = [Terms(terms.subject, "not_when", values=(o,)) for o in others if o != terms.values[0]]
    elif terms.kind in ("equals", "at_most"):
        options = [Terms(terms.subject, "at_most", n) for n in NICE["amount"] if n > terms.number]
    else:
        options = []
    return _best([t for t in options if t.text not in avoid], now, refusals)


def _refusals(terms: Terms, now: datetime, allowed: Sequence[list[str]]) -> int:
    return sum(terms.allows(now, values) is False for values in allowed)


def stricter(
    terms: Terms, now: datetime, allowed: Sequence[list[str]] = (), avoid: frozenset[str] = frozenset()
) -> Terms | None:
    """The rule with a value that refuses more (an archived edition's), where the form has one: the
    value that refuses as many of ``allowed`` (the values of records a gold write acted on under the
    rule) as one value can, else the next round value; no statement in ``avoid``."""
    nice = NICE.get(terms.unit, NICE["day"])
    if terms.kind == "after":  # a longer notice, at most four times the rule's (not 30 days for 1 day)
        options = [terms.with_number(n) for n in nice if terms.number < n <= max(4 * terms.number, nice[0])]
    elif terms.kind in ("before", "last"):  # a shorter window, at least a quarter of the rule's
        options = [terms.with_number(n) for n in sorted(nice, reverse=True) if terms.number / 4 <= n < terms.number]
    elif terms.kind == "one_of" and len(terms.values) > 1:
        options = [
            Terms(terms.subject, "one_of", values=tuple(v for v in terms.values if v != x)) for x in terms.values
        ]
        options.sort(key=lambda t: -_refusals(t, now, allowed))
    elif terms.kind == "not_when":
        labels = sorted({" ".join(v.replace("_", " ").lower().split()) for a in allowed for v in a[:1]})
        options = [Terms(terms.subject, "not_when", values=(v,)) for v in labels if v != terms.values[0]]
    elif terms.kind == "at_most":
        options = [terms.with_number(n) for n in sorted((n for n in NICE["amount"] if n < terms.number), reverse=True)]
    else:
        options = []
    options = [t for t in options if t.text not in avoid]
    scored = [(_refusals(t, now, allowed), -i, t) for i, t in enumerate(options)]
    best = max(scored, default=None, key=lambda s: (s[0], s[1]))
    if best is not None and best[0] > 0:
        return best[2]
    return options[0] if options and terms.kind != "not_when" else None
