"""Built-in domains and their generated environments, loaded once per test session."""

from __future__ import annotations

from datetime import datetime
from functools import cache

from envs.formats.spec import EnvSpec
from synthesis.domains.domain import Domain
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env


@cache
def domain(domain_id: str) -> Domain:
    return next(d for d in load_ontology() if d.id == domain_id)


@cache
def generated_spec(domain_id: str, clock: datetime | None = None) -> EnvSpec:
    """The environment ``generate_env`` makes of a built-in domain (seed 0; its default clock unless given)."""
    d = domain(domain_id)
    return generate_env(d, seed=0).spec if clock is None else generate_env(d, seed=0, clock=clock).spec
