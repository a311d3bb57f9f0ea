"""What a model is shown of a tool, and what its calls are checked against.

Takes a spec's tools; gives the advertised input schema and its per-client dialects, the output
schema read from each tool's SELECT (``select_types`` over ``sql_tree``), per-vendor lint, and argument
validation with errors that name the field. Imports only ``formats`` and ``errors``; ``envfarm mcp``
loads ``sentences``, ``tool_schemas`` and ``dialects`` before it answers ``initialize``.
"""
