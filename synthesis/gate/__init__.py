"""The admission gate (ScaleEnv-style procedural testing).

Takes a generated spec; gives, per tool, admitted or rejected with the reason (:func:`.probe.probe_env`),
by calling every tool on generated cases and comparing with the domain's semantics evaluated in
Python (:mod:`.oracle`), independent of the generated SQL.
"""
