"""Aggregates of the domain format: declared and refused with the place named, and seeds settled so
every relation holds (a member's fine balance is their open fines, a layaway's balance its price
less what was paid)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pydantic import ValidationError

from envs.engine import Environment
from synthesis.domains.aggregates import relations, sentence
from synthesis.domains.domain import Domain
from synthesis.domains.ontology import ONTOLOGY_DIR, load_ontology
from synthesis.tools.aggregate_steps import INVARIANT_SUFFIX
from synthesis.tools.envgen import generate_env

from ..domains import library_dict


def domain_dict(sector: str, domain_id: str) -> dict[str, Any]:
    data = json.loads((ONTOLOGY_DIR / f"{sector}.json").read_text())
    return copy.deepcopy(next(d for d in data["domains"] if d["id"] == domain_id))


def entity(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in data["entities"] if e["name"] == name)


FINES = {"attribute": "fine_balance", "kind": "sum", "of": "fine.amount", "states": ["open"]}


def library_with_fines() -> dict[str, Any]:
    """Library loans whose members' fine balance is the sum of their open fines."""
    data = library_dict()
    entity(data, "member")["aggregates"] = [dict(FINES)]
    return data


def test_the_ontology_declares_relations_that_resolve():
    found = [r for d in load_ontology() for r in relations(d)]
    assert len(found) >= 15
    (paid, balance) = relations(Domain.model_validate(domain_dict("retail", "layaway_plans")))
    assert (paid.column, paid.aggregate.where, balance.aggregate.operands) == (
        "amount_paid",
        {"kind": ["installment", "payoff"]},
        ("total_price", "amount_paid"),
    )
    assert sentence(balance) == "The balance remaining of a layaway is the layaway's total price less its amount paid."
    library = Domain.model_validate(library_with_fines())
    (fines,) = relations(library)
    assert (fines.table, fines.column, fines.aggregate.states) == ("members", "fine_balance", ["open"])
    assert sentence(fines) == (
        "The fine balance of a member is the total amount of the member's fines that are open; adding or "
        "changing a fine updates it."
    )


@pytest.mark.parametrize(
    ("declaration", "problem"),
    [
        ({"attribute": "fine_total", "kind": "sum", "of": "fine.amount"}, "no such attribute"),
        ({"attribute": "email", "kind": "count", "of": "fine"}, "it is a email"),
        ({"attribute": "fine_balance", "kind": "sum", "of": "book.copies_available"}, "'book' has 0 references"),
        ({"attribute": "fine_balance", "kind": "sum", "of": "fine.issued_on"}, "'of' must be 'fine.<money"),
        ({"attribute": "fine_balance", "kind": "sum", "of": "fine.amount", "states": ["due"]}, "no state(s) ['due']"),
        ({"attribute": "fine_balance", "kind": "sum", "of": "fine.amount", "where": {"amount": ["1"]}}, "no enum"),
        ({"attribute": "fine_balance", "kind": "count", "of": "loan"}, "a count cannot be money"),
        ({"attribute": "fine_balance", "kind": "difference", "of": "fine_balance + 1"}, "'of' must be"),
        ({"attribute": "fine_balance", "kind": "difference", "of": "fine_balance - phone"}, "'fine_balance' is not"),
    ],
)
def test_a_bad_declaration_names_the_domain_entity_and_attribute(declaration, problem):
    data = library_dict()
    entity(data, "member")["aggregates"] = [declaration]
    with pytest.raises(ValidationError) as info:
        Domain.model_validate(data)
    message = str(info.value)
    assert f"domain 'library_loans', entity 'member', aggregate '{declaration['attribute']}'" in message
    assert problem in message


def test_a_value_the_user_sets_cannot_be_an_aggregate():
    data = library_with_fines()
    member = entity(data, "member")
    next(a for a in member["attributes"] if a["name"] == "fine_balance")["editable"] = True
    with pytest.raises(ValidationError, match="a user may set it"):
        Domain.model_validate(data)


def broken(spec: Any) -> dict[str, int]:
    episode = Environment(spec).episode()
    try:
        return {
            inv.name: len(episode.query(inv.violations))
            for inv in spec.invariants
            if inv.name.endswith(INVARIANT_SUFFIX)
        }
    finally:
        episode.close()


@pytest.mark.parametrize(
    ("sector", "domain_id"),
    [("retail", "layaway_plans"), ("hr", "employee_expense_claims"), ("education", "library_loans")],
)
def test_settled_seeds_hold_every_relation(sector, domain_id):
    data = library_with_fines() if domain_id == "library_loans" else domain_dict(sector, domain_id)
    domain = Domain.model_validate(data)
    spec = generate_env(domain, seed=3).spec
    counts = broken(spec)
    assert counts and set(counts.values()) == {0}, counts
    if domain_id == "layaway_plans":  # a balance never below zero: payments beyond the price were scaled down
        layaways = spec.seed["layaways"]
        assert all(r["balance_remaining"] >= 0 for r in layaways)
        assert any(r["amount_paid"] > 0 for r in layaways) and any(r["amount_paid"] == 0 for r in layaways)
        # within its range, the payments scaled; a layaway paid off has paid its price, whatever the range
        assert all(r["amount_paid"] <= 400 for r in layaways if r["status"] != "paid_off")
        assert all(r["amount_paid"] in (0, r["total_price"]) for r in layaways if r["status"] == "paid_off")
    if domain_id == "library_loans":
        # a fine is the 25.00 reporting a loss posts (measure 62), the balance its open fines, past its range
        assert all(r["amount"] == 25 for r in spec.seed["fines"])
        assert all(r["fine_balance"] >= 0 for r in spec.seed["members"])
        assert any(r["fine_balance"] > 0 for r in spec.seed["members"])
