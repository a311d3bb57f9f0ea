"""``envfarm bench mining``: how well requests are matched to built-in domains, and how well a request
that no domain fits is reported as such.

Labelled sets beside this module (``MINING_REQUESTS.md`` says how each was written) hold requests
that fit one built-in domain and requests that fit none, split into *dev* and *test*:
``mining_requests.jsonl``; ``paraphrase_requests.jsonl``, written apart from it in everyday words,
other spellings and near misses; ``heldout_requests.jsonl`` (alternate lines dev and test) and
``blind_requests.jsonl`` (all test), each written blind in casual words. The threshold and the near-miss
weight are calibrated on the dev parts together (the pair that decides the most requests right), and
the figures are reported per set and split:

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

HERE = Path(__file__).resolve().parent
LABELLED = HERE / "mining_requests.jsonl"
#: Every labelled set, by name.
LABELLED_SETS = {
    "requests": LABELLED,
    "paraphrases": HERE / "paraphrase_requests.jsonl",
    "heldout": HERE / "heldout_requests.jsonl",
    "blind": HERE / "blind_requests.jsonl",
    "third_blind": HERE / "third_blind_requests.jsonl",
    "fourth_blind": HERE / "fourth_blind_requests.jsonl",
}
#: Thresholds tried when calibrating.
GRID = [round(0.05 + 0.005 * i, 3) for i in range(131)]
#: Near-miss weights tried when calibrating (each with every threshold).
WEIGHTS = [round(0.25 * i, 2) for i in range(9)]


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
    """The threshold that decides the most of ``items`` right (a fitting request matched to its domain,
    another reported as fitting none); ties go to the lower threshold, which turns fewer requests away."""

    def right(t: float) -> int:
        return sum(
            (top if score >= t else None) == item.domain for item, (top, score) in zip(items, matches, strict=True)
        )

    return max(GRID, key=lambda t: (right(t), -t))


def bench_mining(sets: dict[str, Path] | None = None, *, meaning: bool = True) -> dict[str, Any]:
    """Calibrate on every set's dev part, report each set's test, dev and all; test misses listed.
    Without ``meaning``, by words alone (as where the sentence model is not installed)."""
    labelled = {name: load_labelled(path) for name, path in (sets or LABELLED_SETS).items()}
    items = [i for part in labelled.values() for i in part]
    matcher = DomainMatcher(load_ontology(), **({} if meaning else {"encoder": None}))
    readings = matcher.read_many([i.request for i in items])
    dev = [k for k, i in enumerate(items) if i.split == "dev"]

    def tried(weight: float) -> tuple[int, float, float, list[Match]]:
        found = [matcher.decide([r], near_miss_weight=weight) for r in readings]
        tops = [(m.nearest[0][0] if m.nearest else None, m.score) for m in found]
        t = calibrate([items[k] for k in dev], [tops[k] for k in dev])
        right = sum((tops[k][0] if tops[k][1] >= t else None) == items[k].domain for k in dev)
        return right, -weight, -t, found

    # the pair deciding the most dev requests right; ties go to the smaller weight, then the lower threshold
    _, neg_weight, neg_threshold, found = max((tried(w) for w in WEIGHTS), key=lambda r: r[:3])
    weight, threshold = -neg_weight, -neg_threshold
    tops = [(m.nearest[0][0] if m.nearest else None, m.score) for m in found]

    def on(keys: list[int]) -> dict[str, Any]:
        return rates([items[k] for k in keys], [tops[k] for k in keys], threshold)

    result: dict[str, Any] = {
        "benchmark": "mining",
        "method": matcher.method,
        "labelled_requests": len(items),
        "threshold": threshold,
        "near_miss_weight": weight,
        "default_threshold_in_code": matcher.threshold,
        "near_miss_weight_in_code": matcher.near_miss_weight,
        "sets": {},
        "test_misses": [],
    }
    start = 0
    for name, part in labelled.items():
        keys = list(range(start, start + len(part)))
        start += len(part)
        test = [k for k in keys if items[k].split == "test"]
        result["sets"][name] = {
            "test": on(test),
            "dev": on([k for k in keys if items[k].split == "dev"]),
            "all": on(keys),
        }
        for k in test:
            predicted = tops[k][0] if tops[k][1] >= threshold else None
            if predicted != items[k].domain:
                result["test_misses"].append(
                    {
                        "set": name,
                        "request": items[k].request,
                        "label": items[k].domain,
                        "got": predicted,
                        "nearest": found[k].nearest,
                    }
                )
    result["all"] = on(list(range(len(items))))
    return result


def _percent(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.1%}"


def summary_lines(result: dict[str, Any]) -> list[str]:
    """What ``envfarm bench mining`` prints: each set's test and dev part, then the threshold. A part
    with no requests (the second blind set has no dev part) is left out, and a rate with nothing to count
    is "n/a" rather than a crash."""
    lines = [f"matching by {result['method']}"]
    for name, parts in result["sets"].items():
        for part in ("test", "dev"):
            r = parts[part]
            if not r["fit_requests"] and not r["no_fit_requests"]:
                continue
            lines.append(
                f"{name} {part}: {r['fit_requests']} fit requests, accuracy {_percent(r['fit_accuracy'])}; "
                f"{r['no_fit_requests']} no-fit, recall {_percent(r['no_fit_recall'])}, "
                f"precision {_percent(r['no_fit_precision'])}"
            )
    lines.append(f"threshold {result['threshold']}, near-miss weight {result['near_miss_weight']} (calibrated on dev)")
    return lines
