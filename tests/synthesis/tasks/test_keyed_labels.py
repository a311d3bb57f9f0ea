"""A new or changed value a task gives fits the label it is keyed by, as the seed's do: a session's
topic its tutor teaches, a consultation's reason its clinician sees (``synthesis.domains.labels``)."""

from __future__ import annotations

import pytest

from envs import check_env
from envs.quality.labels import fits_pool, pool_for
from synthesis.domains.labels import keyed
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

from ..seeds.generated import domain


@pytest.mark.parametrize(
    ("name", "entity"), [("tutoring_center_sessions", "tutoring_session"), ("telehealth_consultations", "consultation")]
)
def test_gold_writes_give_values_in_their_keys_pool(name, entity):
    d = domain(name)
    gen = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=30, seed=0, twin=twin.spec)
    (k,) = keyed(d, d.entity(entity))
    assert k.ref is not None
    parents = {r[f"{k.ref.entity}_id"]: r for r in gen.spec.seed[d.entity(k.ref.entity).table]}
    given = [
        (a.arguments[k.ref.column], a.arguments[k.attr.name])
        for t in tasks
        for a in t.gold_actions
        if a.tool == f"create_{entity}" and k.attr.name in a.arguments
    ]
    assert len(given) >= 3
    for parent, value in given:
        pool = pool_for(parents[parent][k.key], k.pools)
        assert pool is not None and fits_pool(value, pool), (parent, value)
    assert check_env(gen.spec, tasks).ok


def test_a_reason_a_transition_records_fits_the_record_it_is_given_for():
    d = domain("phone_bill_disputes")
    gen = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=30, seed=0, twin=twin.spec)
    (k,) = keyed(d, d.entity("bill_charge"))
    charges = {r["bill_charge_id"]: r for r in gen.spec.seed["bill_charges"]}
    given = [
        (a.arguments["bill_charge_id"], a.arguments["reason"])
        for t in tasks
        for a in t.gold_actions
        if a.tool == "dispute_bill_charge"
    ]
    assert len(given) >= 3
    for charge, reason in given:
        pool = pool_for(charges[charge][k.key], k.pools)
        assert pool is not None and fits_pool(reason, pool), (charge, reason)
    assert check_env(gen.spec, tasks).ok
