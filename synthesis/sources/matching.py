"""Which built-in domain a user's request needs, or that none fits.

Each domain is described by what people say when they need it (its ``requests``), its other names
(``synonyms``), its name, description, records and the actions its customers take. Text becomes
terms the way a search engine reads it: lower case, function words dropped, Snowball stems (so
"cancelled" meets "cancel"), a few synonyms folded, plus each pair of neighbouring terms ("credit
card"). All of a domain's texts together make one TF-IDF profile, the inverse document frequency
counted over domains: a word every domain uses weighs little, a word one domain owns weighs much. One
profile per domain, rather than the nearest single example, keeps one example that mentions another
service's words ("extend my parking, my flight was cancelled") from claiming requests for that
service.

A request's similarity to a domain is the cosine between its terms and the profile. A word of the
request that no domain uses counts as much as the rarest known word and matches nothing: "report a
pothole to the city" is about potholes, which no domain knows, not about the city, which several do.

A request fits the best domain when its *confidence* reaches the threshold: the best similarity plus
its lead over the second best (a request that two domains explain equally well is not clearly
either's), less :data:`FOREIGN_WEIGHT` times the share of the request's words that other domains use
and the best one never does. A near miss is about another service's records ("a mistake on my credit
report" beside card disputes, "my health insurer denied my MRI claim" beside unemployment claims):
similarity counts what the request shares with the domain, this counts what it asks of another.
Plus :data:`NEAR_MISS_WEIGHT` times its *near-miss lead*: how much nearer the request is to the best
domain's own texts than to the near misses the domains list (``not_covered``: what people in a
service's setting ask that it does not do, such as a driver's licence at a business-licence office).
A near miss in the domain's own words ("pre-approve me for a home loan" beside home purchase offers)
has no foreign word, but is nearer a written near miss than the domain's requests; a casual message
that fits is far from them all, and keeps a confidence its low similarity alone would not reach.
Below the threshold, a request fits no domain: it is reported with the three nearest domains and their
similarities, never silently substituted. The threshold and the near-miss weight are calibrated
together on the dev part of the labelled sets (``synthesis/bench/*_requests.jsonl``; ``envfarm bench mining``).

Words alone miss paraphrase: "my landlord still hasn't returned my deposit" shares no word with a
security deposit *settlement*'s examples, "a fitting for four new tyres" spells tire otherwise. So where
the sentence model is installed (:mod:`.sentences`), each domain's similarity is
:data:`LEXICAL_WEIGHT` of the words' and the rest the meaning's: the mean of the request's two highest
cosines with the domain's example requests and its description, in the model's space. Two, not one:
a single example near a stray request would claim it. Without the model, matching is by words, with
the threshold calibrated for words (:data:`LEXICAL_THRESHOLD`), and says so (``DomainMatcher.method``);
the near-miss lead is then read from the words of single examples (:data:`LEXICAL_NEAR_MISS_WEIGHT`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Literal

import numpy as np
import snowballstemmer  # type: ignore[import-untyped]
from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS  # type: ignore[import-untyped]

from envs.embeddings.sentences import SentenceEncoder, cached_encode, sentence_encoder

from ..domains.domain import Domain
from .mining import FUNCTION_WORDS, SYNONYMS, lemma

#: Below this confidence a request fits no built-in domain (calibrated: see the module docstring).
DEFAULT_THRESHOLD = 0.325
#: The same, matching by words alone (the sentence model not installed).
LEXICAL_THRESHOLD = 0.085
#: What the near-miss lead (:meth:`DomainMatcher.near_miss_lead`) adds to the confidence (calibrated with it).
NEAR_MISS_WEIGHT = 1.75
#: The same, matching by words alone.
LEXICAL_NEAR_MISS_WEIGHT = 0.5
#: The words' share of a domain's similarity when the sentence model is there; the meaning's is the rest.
LEXICAL_WEIGHT = 0.7
#: A domain's meaning similarity is the mean of this many of its examples' highest cosines.
NEAREST_EXAMPLES = 2
#: What the request's foreign share (:meth:`DomainMatcher.foreign_share`) takes off its confidence.
FOREIGN_WEIGHT = 0.1
#: The requests of one topic a match reads.
MAX_TOPIC_LINES = 20
_WORD = re.compile(r"[a-z][a-z']+")
#: Words of a request that say nothing of the service, beyond topic mining's function words. Unlike
#: mining, matching keeps request verbs: "appeal", "rebook" and "dispute" tell services apart.
_FILLER_TEXT = """
    since still ago already really much many every even though yet lot way usual usually almost again
    maybe sure right instead anyone anything everything nothing else ever never always sometimes
"""
_FILLER = FUNCTION_WORDS | frozenset(_FILLER_TEXT.split())
_STEMMER = snowballstemmer.stemmer("english")
#: British spellings to American ones ("tyres" to "tires"; 1,730 words): the domains are written in one.
AMERICAN: dict[str, str] = BRITISH_ENGLISH_SPELLINGS


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = lemma(AMERICAN.get(word, word))
    return str(_STEMMER.stemWord(SYNONYMS.get(word, word)))


def terms(text: str) -> list[str]:
    """The content words of ``text`` as stems, then each pair of neighbouring ones ("credit card").

    >>> terms("My suitcases didn't arrive at the baggage carousel")
    ['suitcas', 'arriv', 'baggag', 'carousel', 'suitcas arriv', 'arriv baggag', 'baggag carousel']
    """
    words = []
    for w in _WORD.findall(text.lower().replace("_", " ").replace("\u2019", "'")):
        if w.endswith("n't"):  # didn't, can't: the negation says nothing of the service
            continue
        w = w.split("'")[0]  # the dog's grooming: dog
        if len(w) < 3 or w in _FILLER:
            continue
        words.append(_stem(w))
    return words + [f"{a} {b}" for a, b in pairwise(words)]


def domain_texts(domain: Domain) -> list[str]:
    """The texts a domain is known by: its example requests, and its name, synonyms, description,
    records and customers' actions."""
    names = [domain.name, domain.id.replace("_", " "), *domain.synonyms, domain.description]
    for e in domain.entities:
        names.append(e.human)
        if e.lifecycle is not None:
            names += [t.name.replace("_", " ") for t in e.lifecycle.transitions if t.actor == "customer"]
    return [*domain.requests, " ".join(names)]


def meaning_texts(domain: Domain) -> list[str]:
    """The texts a domain's meaning is read from: what people ask for it, and what it is."""
    return [*domain.requests, f"{domain.name}: {domain.description}"]


Vector = dict[str, float]


def _cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(w * b.get(t, 0.0) for t, w in a.items())


@dataclass(frozen=True)
class Match:
    """What a request (or topic) was matched to: the domain, or None when none fits; the confidence
    that decided it (best similarity plus its lead over the second, less the weighted foreign share, plus
    the weighted near-miss lead); and the three nearest domains with their similarity (0 to 1)."""

    text: str
    domain: str | None
    score: float
    nearest: list[tuple[str, float]] = field(default_factory=list)

    @property
    def fits(self) -> bool:
        return self.domain is not None


@dataclass(frozen=True)
class Reading:
    """What the matcher reads of one request before deciding: each domain's similarity, each domain's
    closeness by meaning to its own texts (empty matching by words), and its closeness to the nearest
    near misses (``not_covered``) of all domains."""

    text: str
    scores: dict[str, float]
    examples: dict[str, float]
    near_miss: float


def _top_mean(values: Iterable[float]) -> float:
    """The mean of the :data:`NEAREST_EXAMPLES` highest of ``values`` (0 without any)."""
    top = sorted(values)[-NEAREST_EXAMPLES:]
    return sum(top) / len(top) if top else 0.0


class DomainMatcher:
    """One TF-IDF profile per built-in domain, and its examples in the sentence model's space when the
    model is installed; ``match`` answers one request, ``match_all`` a topic."""

    def __init__(
        self,
        domains: Sequence[Domain],
        *,
        threshold: float | None = None,
        near_miss_weight: float | None = None,
        encoder: SentenceEncoder | Literal["auto"] | None = "auto",
    ) -> None:
        self.encoder = sentence_encoder() if encoder == "auto" else encoder
        self.threshold = (
            threshold if threshold is not None else (DEFAULT_THRESHOLD if self.encoder else LEXICAL_THRESHOLD)
        )
        if near_miss_weight is None:
            near_miss_weight = NEAR_MISS_WEIGHT if self.encoder else LEXICAL_NEAR_MISS_WEIGHT
        self.near_miss_weight = near_miss_weight
        self.domains = list(domains)
        words = {d.id: [t for text in domain_texts(d) for t in terms(text)] for d in self.domains}
        df: Counter[str] = Counter()
        for ws in words.values():
            df.update(set(ws))
        n = len(self.domains)
        self.idf = {t: math.log((1 + n) / (1 + c)) + 1.0 for t, c in df.items()}
        #: the weight of a word no domain uses: that of a word in none of them
        self.unknown_idf = math.log(1 + n) + 1.0
        self._profiles = {domain_id: self.vector(ws) for domain_id, ws in words.items()}
        near_misses = [text for d in self.domains for text in d.not_covered]
        #: by words, each example request and each near miss on its own (a profile would blur them)
        self._example_vectors = {d.id: [self.vector(terms(r)) for r in d.requests] for d in self.domains}
        self._near_miss_vectors = [self.vector(terms(text)) for text in near_misses]
        #: each domain's rows of the example matrix (its texts are contiguous)
        self._rows: dict[str, slice] = {}
        self._examples = np.zeros((0, 0), dtype=np.float32)
        self._near_misses = np.zeros((0, 0), dtype=np.float32)
        if self.encoder is not None:
            texts: list[str] = []
            for d in self.domains:
                mine = meaning_texts(d)
                self._rows[d.id] = slice(len(texts), len(texts) + len(mine))
                texts += mine
            self._examples = cached_encode(self.encoder, texts)
            if near_misses:
                self._near_misses = cached_encode(self.encoder, near_misses)

    @property
    def method(self) -> str:
        """How requests are matched: "words and meaning", or "words" without the sentence model."""
        return "words and meaning" if self.encoder is not None else "words"

    def vector(self, words: Iterable[str], *, unknown: bool = False) -> Vector:
        """A unit TF-IDF vector. With ``unknown``, a single word no domain uses keeps the weight of the
        rarest word (it matches nothing, so it lowers every similarity); otherwise it is dropped."""
        raw: dict[str, float] = {}
        for t, c in Counter(words).items():
            idf = self.idf.get(t)
            if idf is None and unknown and " " not in t:
                idf = self.unknown_idf
            if idf is not None:
                raw[t] = (1 + math.log(c)) * idf
        norm = math.sqrt(sum(v * v for v in raw.values()))
        return {t: v / norm for t, v in raw.items()} if norm else {}

    def scores(self, text: str) -> dict[str, float]:
        """Each domain's similarity to ``text``."""
        return self.scores_many([text])[0]

    def scores_many(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Each domain's similarity to each of ``texts`` (the sentence model reads them in one pass)."""
        return [r.scores for r in self.read_many(texts)]

    def read_many(self, texts: Sequence[str]) -> list[Reading]:
        """What the matcher reads of each of ``texts`` (the sentence model reads them in one pass)."""
        lexical, queries = [], []
        for text in texts:
            q = self.vector(terms(text), unknown=True)
            queries.append(q)
            lexical.append({d: _cosine(q, profile) if q else 0.0 for d, profile in self._profiles.items()})
        if self.encoder is None or not texts:
            return [
                Reading(text, words, {}, _top_mean(_cosine(q, v) for v in self._near_miss_vectors))
                for text, words, q in zip(texts, lexical, queries, strict=True)
            ]
        vectors = self.encoder.encode(texts)
        cosines = vectors @ self._examples.T
        near = vectors @ self._near_misses.T if self._near_misses.size else np.zeros((len(texts), 0))
        out = []
        for text, row, near_row, words in zip(texts, cosines, near, lexical, strict=True):
            meaning = {d: _top_mean(row[rows].tolist()) for d, rows in self._rows.items()}
            scores = {d: LEXICAL_WEIGHT * w + (1 - LEXICAL_WEIGHT) * meaning[d] for d, w in words.items()}
            out.append(Reading(text, scores, meaning, _top_mean(near_row.tolist())))
        return out

    def foreign_share(self, text: str, domain_id: str) -> float:
        """The share of ``text``'s word weight (its unit TF-IDF vector, squared) on words some built-in
        domain uses and ``domain_id`` does not: 0 when the domain knows every known word of the request,
        near 1 when the request speaks only of other services' things. Words no domain uses are not
        counted: they say nothing of which service is asked."""
        request = self.vector([t for t in terms(text) if " " not in t], unknown=True)
        profile = self._profiles[domain_id]
        return sum(w * w for t, w in request.items() if t in self.idf and t not in profile)

    def near_miss_lead(self, text: str, domain_id: str) -> float:
        """How much nearer ``text`` is to ``domain_id``'s own texts than to the near misses of all
        domains (the mean of the two nearest of each): below 0 when it reads like something a service
        does not do. By meaning where the sentence model is installed, else by words."""
        return self._lead(self.read_many([text])[0], domain_id)

    def _lead(self, reading: Reading, domain_id: str) -> float:
        if not self._near_miss_vectors:  # domains that list no near misses: nothing to be nearer to
            return 0.0
        if reading.examples:
            own = reading.examples[domain_id]
        else:
            q = self.vector(terms(reading.text), unknown=True)
            own = _top_mean(_cosine(q, v) for v in self._example_vectors[domain_id])
        return own - reading.near_miss

    def decide(
        self, lines: Sequence[Reading], *, name: str | None = None, near_miss_weight: float | None = None
    ) -> Match:
        """The match of a request (one reading) or a topic (its lines' readings): each domain's mean
        similarity over them, and the mean of their foreign shares and near-miss leads. ``near_miss_weight``
        overrides the matcher's (calibration tries several on one reading)."""
        text = name or (lines[0].text if lines else "")
        scores: Counter[str] = Counter()
        for line in lines:
            scores.update(line.scores)
        ranked = sorted(((d, s / len(lines)) for d, s in scores.items()), key=lambda kv: (-kv[1], kv[0]))
        if not ranked:
            return Match(text, None, 0.0, [])
        nearest = [(d, round(s, 3)) for d, s in ranked[:3]]
        top, best = ranked[0]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
        foreign = sum(self.foreign_share(line.text, top) for line in lines) / len(lines)
        lead = sum(self._lead(line, top) for line in lines) / len(lines)
        weight = self.near_miss_weight if near_miss_weight is None else near_miss_weight
        confidence = best + (best - second) - FOREIGN_WEIGHT * foreign + weight * lead
        return Match(text, top if confidence >= self.threshold else None, round(confidence, 3), nearest)

    def match(self, text: str) -> Match:
        """The domain ``text`` needs, or none (confidence below the threshold), with the three nearest."""
        return self.decide(self.read_many([text]))

    def match_many(self, texts: Sequence[str]) -> list[Match]:
        """:meth:`match` for each of ``texts``, the sentence model reading them in one pass."""
        return [self.decide([r]) for r in self.read_many(texts)]

    def match_all(self, texts: Sequence[str], *, name: str | None = None) -> Match:
        """A topic made of several requests (the first :data:`MAX_TOPIC_LINES`), decided on them all
        (:meth:`decide`), so one stray line does not decide."""
        lines = list(texts)[:MAX_TOPIC_LINES]
        if not lines:
            return Match(name or "", None, 0.0, [])
        return self.decide(self.read_many(lines), name=name)
