"""Sources of domains: the built-in ontology, topics mined from a list of requests (:mod:`.mining`),
or a domain an LLM writes for a topic (:mod:`.llm`, which also rewrites task texts).

Takes what ``envfarm synthesize --domains`` names (a count, names, or a text file); gives a list of
:class:`~synthesis.domains.domain.Domain` (:func:`.selection.select_domains`).
"""
