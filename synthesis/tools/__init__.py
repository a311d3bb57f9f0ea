"""Tools and guards: a domain turned into an environment spec.

Takes a domain and its seed rows; gives an :class:`~envs.formats.spec.EnvSpec` (:func:`.envgen.generate_env`):
tables with constraints, read tools (:mod:`.read`), write tools per transition with a ``require``
step per rule (:mod:`.write`, :mod:`.guards`), list-argument tools (:mod:`.bulk`), confirmations
(:mod:`.confirm`), hand-overs to staff (:mod:`.escalation`), invariants (:mod:`.coherence_rules`)
and the policy.
"""
