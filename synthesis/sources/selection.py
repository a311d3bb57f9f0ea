"""Where domains come from: the built-in ontology, or topics mined from a text file (optionally
written by an LLM). ``select_domains`` implements ``envfarm synthesize --domains``."""

from __future__ import annotations

from pathlib import Path

from envs.errors import EnvFarmError

from ..domains.domain import Domain
from ..domains.ontology import load_ontology


def _tokens(text: str) -> set[str]:
    return {w.rstrip("s") for w in text.lower().replace("_", " ").replace("-", " ").split() if len(w) > 2}


def nearest_builtin(topic: str, domains: list[Domain]) -> Domain:
    """The built-in domain whose id, name and description share most words with ``topic``."""
    words = _tokens(topic)
    return max(domains, key=lambda d: (len(words & _tokens(f"{d.id} {d.name} {d.description}")), d.id))


def select_domains(
    selector: str,
    *,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    llm_api_key_env: str = "OPENAI_API_KEY",
) -> list[Domain]:
    """'all', a count N, 'sector:NAME', comma-separated domain ids, or a file of task descriptions."""
    builtin = load_ontology()
    if selector == "all":
        return builtin
    if selector.isdigit():
        return builtin[: int(selector)]
    if selector.startswith("sector:"):
        return [d for d in builtin if d.sector == selector.removeprefix("sector:")]
    by_id = {d.id: d for d in builtin}
    ids = [p.strip() for p in selector.split(",") if p.strip()]
    if ids and all(i in by_id for i in ids):
        return [by_id[i] for i in ids]
    path = Path(selector)
    if not path.is_file():
        raise EnvFarmError(
            f"--domains must be 'all', a number, 'sector:NAME', domain ids or a file; '{selector}' is none of these"
        )
    from .mining import mine_topics

    topics = mine_topics(path.read_text(encoding="utf-8").splitlines())
    if llm_base_url is None:
        chosen: dict[str, Domain] = {}
        for t in topics:
            d = nearest_builtin(f"{t.name} {' '.join(t.examples)}", builtin)
            chosen.setdefault(d.id, d)
        return list(chosen.values())
    if not llm_model:
        raise EnvFarmError("--llm-model is required with --llm-base-url")
    from .llm import domains_from_topics

    return domains_from_topics(topics, base_url=llm_base_url, model=llm_model, api_key_env=llm_api_key_env)
