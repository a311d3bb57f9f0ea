"""Where domains come from: the built-in ontology, or topics mined from a text file and matched to
built-in domains (or written by an LLM). ``select`` implements ``envfarm synthesize --domains``.

A topic that no built-in domain fits (its similarity below the matcher's threshold) is never mapped
silently: offline it is skipped, or replaced by its nearest domain only with ``substitute``; with an
LLM backend it goes to the LLM domain writer. Every topic's decision, with its score and the three
nearest domains, is kept for the synthesis report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from envs.errors import EnvFarmError

from ..domains.domain import Domain
from ..domains.ontology import load_ontology
from .matching import DomainMatcher

Decision = Literal["built-in", "no fit: skipped", "no fit: nearest substituted", "no fit: written by the LLM"]


@dataclass(frozen=True)
class TopicDecision:
    """What became of one mined topic."""

    topic: str
    requests: int
    decision: Decision
    domain: str | None
    score: float
    nearest: list[tuple[str, float]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "requests": self.requests,
            "decision": self.decision,
            "domain": self.domain,
            "score": self.score,
            "nearest": [{"domain": d, "score": s} for d, s in self.nearest],
        }


@dataclass
class Selection:
    """The domains to synthesize and, for a file of requests, each topic's decision."""

    domains: list[Domain]
    topics: list[TopicDecision] = field(default_factory=list)


def select(
    selector: str,
    *,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    llm_api_key_env: str = "OPENAI_API_KEY",
    substitute: bool = False,
) -> Selection:
    """'all', a count N, 'sector:NAME', comma-separated domain ids, or a file of requests."""
    builtin = load_ontology()
    if selector == "all":
        return Selection(builtin)
    if selector.isdigit():
        return Selection(builtin[: int(selector)])
    if selector.startswith("sector:"):
        return Selection([d for d in builtin if d.sector == selector.removeprefix("sector:")])
    by_id = {d.id: d for d in builtin}
    ids = [p.strip() for p in selector.split(",") if p.strip()]
    if ids and all(i in by_id for i in ids):
        return Selection([by_id[i] for i in ids])
    path = Path(selector)
    if not path.is_file():
        raise EnvFarmError(
            f"--domains must be 'all', a number, 'sector:NAME', domain ids or a file; '{selector}' is none of these"
        )
    if llm_base_url is not None and not llm_model:
        raise EnvFarmError("--llm-model is required with --llm-base-url")
    from .mining import mine_topics

    topics = mine_topics(path.read_text(encoding="utf-8").splitlines())
    matcher = DomainMatcher(builtin)
    chosen: dict[str, Domain] = {}
    decisions: list[TopicDecision] = []
    unmatched = []
    for t in topics:
        m = matcher.match_all(t.examples, name=t.name)
        if m.domain is not None:
            decision: Decision = "built-in"
            chosen.setdefault(m.domain, by_id[m.domain])
        elif llm_base_url is not None:
            decision = "no fit: written by the LLM"
            unmatched.append(t)
        elif substitute and m.nearest:
            decision = "no fit: nearest substituted"
            chosen.setdefault(m.nearest[0][0], by_id[m.nearest[0][0]])
        else:
            decision = "no fit: skipped"
        domain = m.domain or (m.nearest[0][0] if decision == "no fit: nearest substituted" else None)
        decisions.append(TopicDecision(t.name, len(t.examples), decision, domain, m.score, m.nearest))
    domains = list(chosen.values())
    if unmatched:
        from .llm import domains_from_topics

        assert llm_model is not None and llm_base_url is not None
        domains += domains_from_topics(
            unmatched, base_url=llm_base_url, model=llm_model, api_key_env=llm_api_key_env, taken=set(chosen)
        )
    return Selection(domains, decisions)


def select_domains(selector: str, **options: Any) -> list[Domain]:
    """The domains :func:`select` chooses."""
    return select(selector, **options).domains
