"""Domains: what a synthesized environment is made from, and what follows from a domain alone.

Takes a :class:`~synthesis.domains.domain.Domain` (from the ontology JSON in ``ontology/``, or from
:mod:`synthesis.sources`); gives its semantics to every later stage: value sources as SQL
expressions (:mod:`.sqlgen`), status/date timing of lifecycles (:mod:`.timing`), per-record limits
(:mod:`.limits`) and the references and prices seed data must keep consistent (:mod:`.coherence`).
"""
