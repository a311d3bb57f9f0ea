"""``envfarm bench mining``: how well requests are matched to built-in domains, and how well a request
that no domain fits is reported as such.

The labelled set (``mining_requests.jsonl`` beside this module; ``MINING_REQUESTS.md`` says how it was
written) holds requests that fit one built-in domain and requests that fit none, split into *dev* and
*test*. The threshold is calibrated on dev (the one that makes the worse of the two rates best), and
the figures are reported on test, on dev and on all:

* **fit accuracy**: of the requests that fit a domain, the share matched to that domain;
* **no-fit recall**: of the requests that fit none, the share reported as fitting none;
* **no-fit precision**: of the requests reported as fitting none, the share that truly fit none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domains.ontology import load_ontology
from ..sources.matching import DomainMatcher, Match

LABELLED = Path(__file__).resolve().parent / "mining_requests.jsonl"
#: Thresholds tried when calibrating.
GRID = [round(0.05 + 0.01 * i, 2) for i in range(46)]


@dataclass(frozen=True)
class Labelled:
    request: str
    domain: str | None
    split: str


def load_labelled(path: Path = LABELLED) -> list[Labelled]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Labelled(r["request"], r["domain"], r["split"]) for r in rows]


def rates(items: list[Labelled], matches: list[tuple[str | None, float]], threshold: float) -> dict[str, Any]:
    """The three figures for ``items`` given each one's (top domain, score)."""
    fit_total = fit_right = none_total = none_said = said_none = said_none_right = 0
    for item, (top, score) in zip(items, matches, strict=True):
        predicted = top if score >= threshold else None
        if item.domain is None:
            none_total += 1
            none_said += predicted is None
        else:
            fit_total += 1
            fit_right += predicted == item.domain
        if predicted is None:
            said_none += 1
            said_none_right += item.domain is None
    return {
        "fit_requests": fit_total,
        "no_fit_requests": none_total,
        "fit_accuracy": round(fit_right / fit_total, 4) if fit_total else None,
        "no_fit_recall": round(none_said / none_total, 4) if none_total else None,
        "no_fit_precision": round(said_none_right / said_none, 4) if said_none else None,
    }


def calibrate(items: list[Labelled], matches: list[tuple[str | None, float]]) -> float:
    """The threshold whose worse rate (fit accuracy, no-fit recall) is best on ``items``; ties go to
    the lower threshold, which substitutes less."""

    def worse(t: float) -> float:
        r = rates(items, matches, t)
        return min(r["fit_accuracy"] or 0.0, r["no_fit_recall"] or 0.0)

    return max(GRID, key=lambda t: (worse(t), -t))


def bench_mining(path: Path = LABELLED) -> dict[str, Any]:
    """Calibrate on dev, report test, dev and all; the misses of test are listed."""
    items = load_labelled(path)
    matcher = DomainMatcher(load_ontology())
    found: list[Match] = [matcher.match(i.request) for i in items]
    tops = [(m.nearest[0][0] if m.nearest else None, m.score) for m in found]
    dev = [k for k, i in enumerate(items) if i.split == "dev"]
    test = [k for k, i in enumerate(items) if i.split == "test"]
    threshold = calibrate([items[k] for k in dev], [tops[k] for k in dev])

    def on(keys: list[int]) -> dict[str, Any]:
        return rates([items[k] for k in keys], [tops[k] for k in keys], threshold)

    misses = []
    for k in test:
        predicted = tops[k][0] if tops[k][1] >= threshold else None
        if predicted != items[k].domain:
            misses.append(
                {"request": items[k].request, "label": items[k].domain, "got": predicted, "nearest": found[k].nearest}
            )
    return {
        "benchmark": "mining",
        "labelled_requests": len(items),
        "threshold": threshold,
        "default_threshold_in_code": matcher.threshold,
        "test": on(test),
        "dev": on(dev),
        "all": on(list(range(len(items)))),
        "test_misses": misses,
    }
