"""No one held an account, a permit or a policy as a child: gas_service_start_stop-018 (seed 101)
had an 18-year-old with 22 months of on-time bills, and residential permits went to a 16-year-old."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.seeds.seedgen import YOUNGEST
from synthesis.tools.envgen import generate_env

DOMAINS = ("gas_service_start_stop", "residential_parking_permits", "eyewear_prescription_orders")


def _earliest(spec, table, key, user) -> date:
    """The earliest day the user's own rows (and their months of history) go back to."""
    clock = spec.clock.date()
    first = clock
    for column, value in user.items():
        if column.endswith("_months") and isinstance(value, int) and not isinstance(value, bool):
            first = min(first, clock - timedelta(days=30 * value))
    for t in spec.tables:
        if t.name == table or key not in {c.name for c in t.columns}:
            continue
        days = [c.name for c in t.columns if c.type in ("date", "datetime") and "birth" not in c.name]
        for row in spec.seed.get(t.name, []):
            if row.get(key) == user[key]:
                first = min([first, *(date.fromisoformat(str(row[d])[:10]) for d in days if row.get(d))])
    return first


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_every_holder_was_an_adult_when_their_history_began(domain_id):
    domain = next(d for d in load_ontology() if d.id == domain_id)
    spec = generate_env(assign_enforcement(domain), seed=0).spec
    people = [t for t in spec.tables if {"email", "date_of_birth"} <= {c.name for c in t.columns}]
    assert people
    checked = 0
    for t in people:
        key = t.primary_key[0]
        for user in spec.seed[t.name]:
            born = date.fromisoformat(user["date_of_birth"])
            assert (spec.clock.date() - born).days >= YOUNGEST * 365 - 1, user
            assert (_earliest(spec, t.name, key, user) - born).days / 365.25 >= 18, user
            checked += 1
    assert checked >= 10
