"""envfarm synthesis layer: a domain in, a verified catalog of environments and tasks out.

The stages, in the order a domain goes through them (each a subpackage; docs/synthesis.md has the map):

* :mod:`synthesis.domains` -- the domain format, the built-in ontology and what follows from a domain
  alone (SQL value expressions, status/date timing, per-record limits, coherent references);
* :mod:`synthesis.sources` -- where domains come from: the ontology, topics mined from a list of
  requests, an LLM that writes a domain for a topic;
* :mod:`synthesis.seeds` -- the seed world: coherent rows made with Faker;
* :mod:`synthesis.tools` -- the environment spec: tables, read and write tools with their guards,
  confirmations, hand-overs, the policy;
* :mod:`synthesis.gate` -- the admission gate: every tool tested against an independent oracle;
* :mod:`synthesis.tasks` -- the tool dependency graph expanded into verified tasks with checklists;
* :mod:`synthesis.dual` -- dual-control domains (the customer holds a device): declarative
  descriptions of a service, a device and their faults, built into environments and fault-combination tasks;
* :mod:`synthesis.knowledge` -- knowledge-base variants of synthesized environments: the rules moved
  into a help center of articles with close-but-wrong distractors, tasks naming the deciding article;
* :mod:`synthesis.catalog` -- the pipeline that runs the stages per domain and writes a catalog, and
  the cached default catalog;
* :mod:`synthesis.tau2` -- tau2-bench's retail and airline, imported from tau2's data;
* :mod:`synthesis.bench` -- ``envfarm bench synthesis`` and the tau2 engine bench.

Stages import only earlier ones (``sources`` uses the tool generator to check what an LLM wrote);
``tests/test_layers.py`` holds them to that order.
"""
