"""A fact about another record, said as such beside the answer: no distractor given for the asked one.

"Your policy TIP-955569001 is cancelled, with $8,356.34 of coverage remaining. Your other policy,
TIP-514144209, is still active." The second sentence gives the other policy's status, a distractor
of the asked one, but it says whose status it is: nothing in it leaves the asked policy's status
unsaid. A sentence is such an aside when it comes after one that states an asked value, names one
record the answer was not asked about ("your other policy", "another booking", or that record's own
id or name) and none that it was, states no asked value and at most one distractor. A read-out of
every record fails all the same: its records' sentences give each record's every asked field (two
distractors or more), name several records at once, or come before the asked value
(docs/formats.md, "Answers").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_OTHER = re.compile(r"\b(?:your|the|my|their|his|her) other\b|\banother\b", re.I)
#: A record's own identifier: a code of letters and digits ("TIP-514144209", "TP0044").
_CODE = re.compile(r"^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9][A-Za-z0-9_-]{2,}$")
_NAMED_BY = ("name", "title")


def _records(data: Any) -> Iterable[Mapping[str, Any]]:
    if isinstance(data, Mapping):
        yield data
        for v in data.values():
            yield from _records(v)
    elif isinstance(data, list):
        for v in data:
            yield from _records(v)


def _names(record: Mapping[str, Any]) -> set[str]:
    """What ``record`` may be called by: its codes and its name or title."""
    return {
        str(v).lower()
        for k, v in record.items()
        if isinstance(v, str) and (_CODE.match(v) or (k.endswith(_NAMED_BY) and len(v.split()) <= 6))
    }


def _said(name: str, sentence: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sentence) is not None


def without_asides(
    answer: str,
    reads: Iterable[Any],
    outputs: Iterable[str],
    distractors: Iterable[str],
    states: Callable[[str, str], bool],
) -> str:
    """``answer`` less its sentences about another record said as such (the module's docstring).

    ``reads`` are the gold reads' results, ``states(text, value)`` whether ``text`` states ``value``.
    """
    outputs, distractors = list(outputs), list(distractors)
    records = list({id(r): r for r in _records(list(reads))}.values())
    asked = [r for r in records if any(str(v) in outputs for v in r.values())]
    names = [_names(r) for r in records]
    counts: dict[str, int] = {}
    for held in names:
        for n in held:
            counts[n] = counts.get(n, 0) + 1
    # a name two records share (their owner's id) names neither of them
    own = [{n for n in held if counts[n] == 1} for held in names]
    asked_names = {n for r, held in zip(records, own, strict=True) if any(r is a for a in asked) for n in held}
    kept, answered = [], False
    for sentence in _SENTENCE.split(answer):
        low = sentence.lower()
        named = [i for i, held in enumerate(own) if any(_said(n, low) for n in held)]
        other = not any(_said(n, low) for n in asked_names) and (
            (len(named) == 1 and not any(records[named[0]] is a for a in asked)) or (not named and _OTHER.search(low))
        )
        aside = (
            answered
            and other
            and not any(states(sentence, o) for o in outputs)
            and sum(states(sentence, d) for d in distractors) <= 1
        )
        answered = answered or any(states(sentence, o) for o in outputs)
        if not aside:
            kept.append(sentence)
    return " ".join(kept)
