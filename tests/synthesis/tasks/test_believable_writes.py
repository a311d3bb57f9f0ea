"""Writes a person would ask for: none sets a field to the value it holds (an escalation to the
priority the ticket has)."""

from __future__ import annotations

from typing import Any

import pytest

from envs import Environment
from envs.quality.chains import WriteVerdict
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.chain import Chain, ChainBroken
from synthesis.tasks.checklist import Checklist
from synthesis.tasks.taskgen import TaskGenerator
from synthesis.tools.envgen import generate_env


def _generated(domain_id: str) -> tuple[Any, Any, Environment]:
    domain = next(d for d in load_ontology() if d.id == domain_id)
    g = generate_env(domain, seed=0)
    return domain, g, Environment(g.spec)


def test_an_escalation_to_the_priority_a_ticket_has_is_kept_out() -> None:
    domain, g, env = _generated("rental_maintenance_tickets")
    gen = TaskGenerator(domain, g.spec, g.meta, env, seed=0)
    escalate = gen.meta["escalate_maintenance_ticket"]
    ticket = domain.entity("maintenance_ticket")
    options = [row for row, _ in gen.candidates(escalate)]
    already = next(r for r in options if r["priority"] == "emergency")
    other = next(r for r in options if r["priority"] != "emergency")
    checks = Checklist(domain, env.spec.clock, gen.oracle.holds)
    for row, kept in ((already, False), (other, True)):
        args = {"maintenance_ticket_id": row["maintenance_ticket_id"], "tenant_id": row["tenant_id"]}
        chain = Chain.start(env, str(gen.oracle.owner_of(ticket, row)))
        try:
            tried = chain.trial(env, escalate.tool, args)
            assert isinstance(tried, WriteVerdict) and bool(tried.unchanged) is not kept
            assert gen.identify_user(chain)
            assert gen.add_transition(chain, escalate, row, {}, checks) is kept
            if not kept:
                with pytest.raises(ChainBroken, match="priority is already 'emergency'"):
                    chain.call(escalate.tool, **args)
        finally:
            chain.close()
