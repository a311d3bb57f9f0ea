"""Which built-in domain a user's request needs, or that none fits.

Each domain is described by what people say when they need it (its ``requests``), its other names
(``synonyms``), its name, description, records and actions. Text becomes terms the way topic mining
reads it (lower case, stopwords and request verbs dropped, "lite" lemmas, a few synonyms folded),
plus word pairs, and each term is weighted by TF-IDF over the domains: a word every domain uses
weighs little, a word one domain owns weighs much. A request's similarity to a domain is the best
cosine similarity between the request and any one text of the domain (one of its example requests,
or its name, synonyms and description together), so a request need only resemble one way people ask
for the service.

A request whose best similarity is below ``threshold`` fits no domain: it is reported with the three
nearest domains and their scores, never silently substituted. The default threshold is calibrated on
the dev half of the labelled set (``synthesis/bench/mining_requests.jsonl``; ``envfarm bench mining``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from ..domains.domain import Domain
from .mining import STOPWORDS, SYNONYMS, lemma

#: Below this similarity a request fits no built-in domain (calibrated: see the module docstring).
DEFAULT_THRESHOLD = 0.2
#: The requests of one topic a match reads.
MAX_TOPIC_LINES = 20
_WORD = re.compile(r"[a-z][a-z']+")


def terms(text: str) -> list[str]:
    """The content words of ``text`` as lemmas, then each pair of neighbouring ones ("credit card").

    >>> terms("My suitcases didn't arrive at the baggage carousel")
    ['suitcase', 'arrive', 'baggage', 'carousel', 'suitcase arrive', 'arrive baggage', 'baggage carousel']
    """
    words = []
    for w in _WORD.findall(text.lower().replace("_", " ").replace("\u2019", "'")):
        if w.endswith("n't"):  # didn't, can't: the negation says nothing of the service
            continue
        w = w.split("'")[0]  # the dog's grooming: dog
        if len(w) < 3 or w in STOPWORDS:
            continue
        w = lemma(w)
        words.append(SYNONYMS.get(w, w))
    return words + [f"{a} {b}" for a, b in pairwise(words)]


def domain_texts(domain: Domain) -> list[str]:
    """The texts a domain is known by: one per example request, and one of its name, synonyms,
    description, records and actions together."""
    names = [domain.name, domain.id.replace("_", " "), *domain.synonyms, domain.description]
    for e in domain.entities:
        names.append(e.human)
        if e.lifecycle is not None:
            names += [t.name.replace("_", " ") for t in e.lifecycle.transitions if t.actor == "customer"]
    return [*domain.requests, " ".join(names)]


Vector = dict[str, float]


def _cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


@dataclass(frozen=True)
class Match:
    """What a request (or topic) was matched to: the domain, or None when none fits, and the three
    nearest domains with their similarity (0 to 1)."""

    text: str
    domain: str | None
    score: float
    nearest: list[tuple[str, float]] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.domain is not None


class DomainMatcher:
    """TF-IDF over the built-in domains' texts; ``match`` answers one request."""

    def __init__(self, domains: Sequence[Domain], *, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self.domains = list(domains)
        texts = [(d.id, terms(t)) for d in self.domains for t in domain_texts(d)]
        # a term's document frequency counts domains, not texts: a word all of one domain's
        # requests use is that domain's word, not a common one
        df: Counter[str] = Counter()
        for d in self.domains:
            df.update({t for text in domain_texts(d) for t in terms(text)})
        n = len(self.domains)
        self.idf = {t: math.log((1 + n) / (1 + c)) + 1.0 for t, c in df.items()}
        self._vectors = [(domain_id, self.vector(ts)) for domain_id, ts in texts]

    def vector(self, words: Iterable[str]) -> Vector:
        """A unit TF-IDF vector (unknown words dropped: no domain knows them)."""
        counts = Counter(w for w in words if w in self.idf)
        raw = {t: (1 + math.log(c)) * self.idf[t] for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in raw.values()))
        return {t: v / norm for t, v in raw.items()} if norm else {}

    def scores(self, text: str) -> dict[str, float]:
        """Each domain's similarity to ``text``: its best text's cosine similarity."""
        q = self.vector(terms(text))
        best: dict[str, float] = {d.id: 0.0 for d in self.domains}
        if not q:
            return best
        for domain_id, v in self._vectors:
            s = _cosine(q, v)
            if s > best[domain_id]:
                best[domain_id] = s
        return best

    def match(self, text: str) -> Match:
        """The domain ``text`` needs, or none (below the threshold), with the three nearest."""
        ranked = sorted(self.scores(text).items(), key=lambda kv: (-kv[1], kv[0]))
        nearest = [(d, round(s, 3)) for d, s in ranked[:3]]
        top, score = ranked[0] if ranked else (None, 0.0)
        return Match(text, top if score >= self.threshold else None, round(score, 3), nearest)

    def match_all(self, texts: Sequence[str], *, name: str | None = None) -> Match:
        """A topic made of several requests: each domain's mean similarity over them (the first
        :data:`MAX_TOPIC_LINES`), so one stray line does not decide."""
        lines = list(texts)[:MAX_TOPIC_LINES]
        if not lines:
            return Match(name or "", None, 0.0, [])
        total: Counter[str] = Counter()
        for line in lines:
            total.update(self.scores(line))
        ranked = sorted(((d, s / len(lines)) for d, s in total.items()), key=lambda kv: (-kv[1], kv[0]))
        nearest = [(d, round(s, 3)) for d, s in ranked[:3]]
        top, score = ranked[0]
        return Match(name or lines[0], top if score >= self.threshold else None, round(score, 3), nearest)
