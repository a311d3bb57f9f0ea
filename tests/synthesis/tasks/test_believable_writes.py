"""Writes a person would ask for: none sets a field to the value it holds (an escalation to the
priority the ticket has), and a new title fits the record's date (no Back to School Promo in March)."""

from __future__ import annotations

from typing import Any

import pytest

from envs import Environment
from envs.quality.chains import WriteVerdict
from synthesis.domains.ontology import load_ontology
from synthesis.domains.seasons import fits
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


def test_a_new_title_fits_the_date_of_the_record_it_names() -> None:
    """Campaigns renamed with the domain's titles: "Back to School Promo" only for one that starts in
    July to September, "Black Friday Push" in November; before, any title on any date."""
    domain, g, env = _generated("podcast_ad_campaigns")
    campaign = domain.entity("ad_campaign")
    renamed: list[tuple[str, str]] = []
    for seed in range(40):
        gen = TaskGenerator(domain, g.spec, g.meta, env, seed=seed)
        rename = gen.meta["update_ad_campaign_campaign_name"]
        owners = sorted({str(gen.oracle.owner_of(campaign, r)) for r in gen.oracle.rows[campaign.name].values()})
        chain = Chain.start(env, owners[seed % len(owners)])
        try:
            checks = Checklist(domain, env.spec.clock, gen.oracle.holds)
            if gen.identify_user(chain) and gen.add_update(chain, rename, checks):
                goal = chain.goals[-1]
                assert chain.episode is not None
                row = chain.episode.rows_by_key(campaign.table, [(goal.key,)])[(goal.key,)]
                assert row is not None
                renamed.append((goal.extra["campaign_name"], row["start_date"]))
        finally:
            chain.close()
    assert len(renamed) >= 20
    assert [(title, date) for title, date in renamed if not fits(title, date)] == []


def test_a_new_record_is_titled_for_the_day_it_is_dated() -> None:
    """An expense report made today, dated today (its submission date is the clock's when the user
    gives none), is titled for this quarter, not "Q2 sales conference" in March."""
    domain, g, env = _generated("employee_expense_claims")
    report = domain.entity("expense_report")
    made: list[tuple[str, str]] = []
    for seed in range(40):
        gen = TaskGenerator(domain, g.spec, g.meta, env, seed=seed)
        create = gen.meta["create_expense_report"]
        users = sorted(gen.oracle.rows[gen.user.name])
        chain = Chain.start(env, users[seed % len(users)])
        try:
            checks = Checklist(domain, env.spec.clock, gen.oracle.holds)
            if gen.identify_user(chain) and gen.add_create(chain, create, checks):
                assert chain.episode is not None
                key = chain.goals[-1].key
                row = chain.episode.rows_by_key(report.table, [(key,)])[(key,)]
                assert row is not None
                made.append((row["report_title"], row["submitted_on"]))
        finally:
            chain.close()
    assert len(made) >= 20
    assert [(title, date) for title, date in made if not fits(title, date)] == []
