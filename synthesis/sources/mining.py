"""Topic mining: group a plain list of task descriptions or domain names into candidate domains.

The method is deliberately simple and fully deterministic:

1. Each line is cleaned (list bullets and numbering dropped), lowercased, split into words, and each
   word is lemmatized "lite" (``pharmacies`` -> ``pharmacy``, ``appointments`` -> ``appointment``).
   English stopwords and generic request words ("please", "help", "my") are removed, which leaves a
   set of content tokens per line. Lines with the same token set are duplicates and merge at once.
2. A similarity graph (:mod:`networkx`) has one node per distinct token set and an edge wherever the
   Jaccard similarity reaches ``threshold`` — or where one set, of at least two tokens, is contained
   in the other (a domain name such as "clinic appointments" inside a longer task description).
3. Each connected component is a :class:`Topic`: named by its most central line, with its most
   frequent tokens as keywords and a sector guessed from a keyword table covering 15 sectors.

Topics come out largest first, then by name; the examples of a topic keep input order. The same
lines always give the same topics; reordering them changes only the order of examples.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import networkx as nx

__all__ = ["DEFAULT_THRESHOLD", "SECTOR_KEYWORDS", "Topic", "guess_sector", "jaccard", "mine_topics", "tokens"]

DEFAULT_THRESHOLD = 0.4
"""The Jaccard similarity at which two lines are taken to describe the same domain."""

_FUNCTION_WORD_TEXT = """
    a about above after again all also am an and any are as at be been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her
    here hers him his how i if in into is it its itself just me more most my myself no nor not now of off
    on once only or other our ours out over own same she should so some such than that the their theirs
    them then there these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours
    able want wants need needs needed like would please help thank thanks hi hello get got make let
    someone something via using use new next last today tomorrow yesterday week day month year etc
    one two three four five six seven eight nine ten
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORD_TEXT.split())
"""English function words and the generic words of any request (please, need, today, one...)."""
_REQUEST_VERB_TEXT = """
    cancel change reschedule track update check find view show list add remove request modify edit look
    see know tell give send set move arrange manage handle process submit
"""
REQUEST_VERBS = frozenset(_REQUEST_VERB_TEXT.split())
"""The verbs of everyday requests, whatever the service."""
STOPWORDS = FUNCTION_WORDS | REQUEST_VERBS
"""What topic mining drops: function words and request verbs (cancel, change, track...) say nothing
about the domain. Verbs that are also domain nouns (book, return, order, pay) are kept."""

SYNONYMS = {
    "booking": "reservation",
    "reserve": "reservation",
    "shipping": "shipment",
    "ship": "shipment",
    "appt": "appointment",
    "rent": "rental",
    "enroll": "enrollment",
    "enrolment": "enrollment",
    "subscribe": "subscription",
    "deliver": "delivery",
    "pay": "payment",
}
"""A few words mapped to one canonical lemma, so "freight shipping" and "track a shipment" meet."""


_SECTOR_WORDS = {
    "retail": "shop store order cart product item return refund exchange gift card ecommerce "
    "online retail purchase catalog inventory stock merchandise customer coupon discount grocery",
    "travel": "flight airline airport trip travel itinerary passenger boarding baggage luggage seat "
    "visa tour cruise train rail ticket destination",
    "healthcare": "clinic hospital doctor patient appointment prescription pharmacy medication nurse "
    "dentist dental medical health lab therapy vaccine referral",
    "finance": "bank account loan mortgage credit debit transfer payment card investment portfolio "
    "stock trade brokerage tax invoice budget wallet fraud deposit withdrawal interest",
    "education": "school student course class enrollment teacher grade exam library book university "
    "college tuition lesson homework semester campus scholarship tutor",
    "logistics": "shipment shipping freight parcel package delivery courier warehouse carrier tracking "
    "container cargo truck pallet dispatch fleet route customs",
    "hr": "employee payroll leave vacation hiring recruitment candidate interview onboarding benefit "
    "timesheet salary performance review job applicant staff hr personnel",
    "real_estate": "property rent rental lease tenant landlord apartment house listing mortgage "
    "viewing estate realtor building unit maintenance",
    "hospitality": "hotel room guest restaurant table menu checkin checkout stay resort lodging "
    "concierge housekeeping dining catering spa",
    "telecom": "phone mobile plan data roaming sim broadband internet subscription carrier network "
    "telecom line device contract upgrade minute",
    "government": "permit license passport citizen tax benefit registration municipal council court "
    "vote election dmv application government public agency parking",
    "media": "streaming subscription movie music podcast channel playlist video news article magazine "
    "publication episode content media advertising",
    "energy": "electricity gas utility meter energy solar power outage tariff bill grid reading "
    "consumption charging water",
    "automotive": "car vehicle repair garage mechanic dealership test drive service oil tire lease rental automotive",
    "insurance": "insurance policy claim premium coverage deductible underwriting adjuster quote beneficiary",
}

_BULLET = re.compile(r"^\s*(?:[-*•>]+|\(?\d+[.)]|[a-z][.)])\s+", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Topic:
    """A candidate domain mined from lines of text.

    Attributes:
        name: the most central line of the cluster, as written (the shortest one on a tie; of lines
            with the same content words, the shortest in sentence case).
        sector: the sector guessed from the keyword table, or ``general`` when nothing matched.
        examples: the distinct lines of the cluster, in input order.
        keywords: the cluster's most frequent content tokens, most frequent first.
    """

    name: str
    sector: str
    examples: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str:
        """A snake_case identifier made of the top keywords, e.g. ``clinic_appointment``."""
        return "_".join(self.keywords[:3]) or "topic"


def lemma(word: str) -> str:
    """Lemmatize one lowercase word "lite": strip a plural ending.

    >>> [lemma(w) for w in ["pharmacies", "appointments", "boxes", "address", "status", "bus"]]
    ['pharmacy', 'appointment', 'box', 'address', 'status', 'bus']
    """
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def tokens(line: str) -> frozenset[str]:
    """The content tokens of a line: lowercased, lemmatized, without stopwords or bare numbers.

    >>> sorted(tokens("Please cancel my 2 flight bookings!"))
    ['flight', 'reservation']
    """
    words = _WORD.findall(line.lower().replace("_", " "))
    lemmas = (lemma(w) for w in words if w not in STOPWORDS and not w.isdigit() and len(w) > 1)
    return frozenset(SYNONYMS.get(w, w) for w in lemmas)


SECTOR_KEYWORDS: dict[str, frozenset[str]] = {sector: tokens(words) for sector, words in _SECTOR_WORDS.items()}
"""Words that point to a sector, normalized like the lines (lemmatized, synonyms mapped). Ties between
sectors break alphabetically."""


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0.0 for two empty sets).

    >>> jaccard(frozenset({"hotel", "booking"}), frozenset({"hotel", "reservation", "booking"}))
    0.6666666666666666
    """
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _similar(a: frozenset[str], b: frozenset[str], threshold: float) -> bool:
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    return jaccard(a, b) >= threshold or (len(small) >= 2 and small <= big)


def guess_sector(words: Iterable[str]) -> str:
    """The sector whose keywords the (lemmatized) words hit most often; ``general`` if none.

    Repeated words count once per occurrence, so the words of a whole cluster can be passed.

    >>> guess_sector(["clinic", "appointment", "dentist"])
    'healthcare'
    >>> guess_sector(["quantum", "chromodynamics"])
    'general'
    """
    counts = Counter(words)
    scores = {s: sum(counts[w] for w in kws) for s, kws in SECTOR_KEYWORDS.items()}
    best = max(scores.values(), default=0)
    if best == 0:
        return "general"
    return min(s for s, v in scores.items() if v == best)


def clean_lines(lines: Iterable[str]) -> list[str]:
    """Strip each line and its list bullet, collapse spaces; drop blank lines and ``#`` comments.

    >>> clean_lines(["# header", "", "  - Clinic appointments ", "2) Hotel rooms"])
    ['Clinic appointments', 'Hotel rooms']
    """
    out = []
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = " ".join(_BULLET.sub("", line).split())
        if line:
            out.append(line)
    return out


def _spelling(line: str) -> tuple[int, bool, int, str]:
    """Which of several lines with the same content words names them: the fewest words, then one
    written in sentence case ("Clinic appointments" before "clinic appointment" or "CLINIC ..."),
    then the shortest."""
    return (len(line.split()), not (line[:1].isupper() and not line.isupper()), len(line), line)


def _central(lines: list[str], sets: dict[str, frozenset[str]]) -> str:
    """The line most similar in total to the others; on a tie the shortest, then the first alphabetically."""

    def key(line: str) -> tuple[float, int, str]:
        total = sum(jaccard(sets[line], sets[other]) for other in lines if other != line)
        return (-round(total, 9), len(line), line.lower())

    return min(lines, key=key)


def mine_topics(lines: Iterable[str], *, threshold: float = DEFAULT_THRESHOLD) -> list[Topic]:
    """Group task descriptions or domain names into candidate domains.

    Args:
        lines: lines of text, e.g. ``path.read_text().splitlines()``; blank lines and lines starting
            with ``#`` are ignored, as are lines with no content words.
        threshold: the Jaccard similarity (0..1] at which two lines join the same topic.

    Returns:
        One :class:`Topic` per cluster, the largest first, then by name.

    Raises:
        ValueError: ``threshold`` is outside (0, 1].

    >>> [t.name for t in mine_topics(["Clinic appointments", "clinic appointment", "Hotel rooms"])]
    ['Clinic appointments', 'Hotel rooms']
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], not {threshold}")
    # distinct lines (case-insensitive; the best spelling of duplicates), in input order, with their tokens
    spelled: dict[str, str] = {}
    for line in clean_lines(lines):
        if tokens(line):
            best = spelled.get(line.lower(), line)
            spelled[line.lower()] = min(best, line, key=_spelling)
    sets = {line: tokens(line) for line in spelled.values()}
    by_set: dict[frozenset[str], list[str]] = {}
    for line, toks in sets.items():
        by_set.setdefault(toks, []).append(line)

    graph: nx.Graph[frozenset[str]] = nx.Graph()
    nodes = sorted(by_set, key=lambda s: sorted(s))
    graph.add_nodes_from(nodes)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            if _similar(a, b, threshold):
                graph.add_edge(a, b)

    order = {line: i for i, line in enumerate(sets)}
    topics = []
    for component in nx.connected_components(graph):
        members = sorted((line for s in component for line in by_set[s]), key=order.__getitem__)
        counts = Counter(w for line in members for w in sets[line])
        keywords = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:6]
        topics.append(
            Topic(
                name=_central(sorted(min(by_set[s], key=_spelling) for s in component), sets),
                sector=guess_sector(counts.elements()),
                examples=members,
                keywords=keywords,
            )
        )
    topics.sort(key=lambda t: (-len(t.examples), t.name.lower(), t.name))
    return topics
