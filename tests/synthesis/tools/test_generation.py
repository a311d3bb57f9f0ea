"""Domain format, seed data and the domain -> spec generator."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from envs import Environment, check_env
from envs.errors import SpecError, StateError
from synthesis.domains.domain import Domain
from synthesis.domains.ontology import load_ontology
from synthesis.domains.sqlgen import DomainError
from synthesis.seeds.seedgen import entity_order, generate_seed
from synthesis.tools.envgen import generate_env

from ..domains import library, library_dict


def test_domain_rejects_unknown_references_and_states():
    data = library_dict()
    data["entities"][2]["references"][1]["entity"] = "magazine"
    with pytest.raises(ValidationError, match="unknown entity 'magazine'"):
        Domain.model_validate(data)
    data = library_dict()
    data["entities"][2]["lifecycle"]["transitions"][0]["to"] = "vanished"
    with pytest.raises(ValidationError, match="unknown state"):
        Domain.model_validate(data)
    data = library_dict()
    data["entities"][0]["attributes"][0]["kind"] = "enum"
    with pytest.raises(ValidationError, match="needs 'values'"):
        Domain.model_validate(data)


def test_entity_order_puts_parents_first_and_detects_cycles():
    order = [e.name for e in entity_order(library())]
    assert order.index("member") < order.index("loan") < order.index("fine")
    assert order.index("book") < order.index("loan")
    data = library_dict()
    data["entities"][0]["references"] = [{"entity": "fine"}]
    with pytest.raises(DomainError, match="cycle"):
        entity_order(Domain.model_validate(data))


def test_seed_is_referentially_consistent_and_deterministic():
    from datetime import datetime

    d = library()
    a = generate_seed(d, seed=3, clock=datetime(2026, 3, 2, 9))
    b = generate_seed(d, seed=3, clock=datetime(2026, 3, 2, 9))
    c = generate_seed(d, seed=4, clock=datetime(2026, 3, 2, 9))
    assert a == b and a != c
    members = {m["member_id"] for m in a["members"]}
    assert all(loan["member_id"] in members for loan in a["loans"])
    assert len({m["email"] for m in a["members"]}) == len(a["members"])  # unique lookups stay unique
    # a public list whose rows are named (books by title) holds each name once: no more rows than names
    titles = {b["title"] for b in a["books"]} if "title" in a["books"][0] else set()
    assert all(20 <= len(rows) <= 200 for table, rows in a.items() if table != "books")
    assert 10 <= len(a["books"]) <= 200 and (not titles or len(titles) == len(a["books"]))
    assert {loan["status"] for loan in a["loans"]} == {"active", "returned", "lost"}


def test_generated_env_has_the_expected_tools_and_passes_check_env():
    g = generate_env(library(), seed=1)
    names = {t.name for t in g.spec.tools}
    assert {
        "get_member_details",
        "find_member_by_email",
        "find_member_by_name_and_date_of_birth",
        "list_loans_for_member",
        "search_loans",
        "return_loan",
        "renew_loan",
        "report_lost_loan",
        "create_loan",
        "pay_fine",
        "update_member_email",
    } <= names
    assert len(names) >= 20 and sum(t.kind == "write" for t in g.spec.tools) >= 6
    assert {m.tool for m in g.meta} == names
    assert "find_member_by_email" in g.spec.policy and "renew_loan" in g.spec.policy
    assert check_env(g.spec).ok


def test_generated_guards_refuse_with_messages_naming_values():
    g = generate_env(library(), seed=1)
    ep = Environment(g.spec).episode()
    loans = g.spec.seed["loans"]
    returned = next(r for r in loans if r["status"] == "returned")
    with pytest.raises(StateError, match=rf"Loan {returned['loan_id']} is returned; return loan needs it to be active"):
        ep.call_tool("return_loan", {"loan_id": returned["loan_id"], "member_id": returned["member_id"]})
    active = next(r for r in loans if r["status"] == "active")
    other = next(m["member_id"] for m in g.spec.seed["members"] if m["member_id"] != active["member_id"])
    with pytest.raises(StateError, match=rf"does not belong to member {other}"):
        ep.call_tool("return_loan", {"loan_id": active["loan_id"], "member_id": other})
    before = ep.serialize()
    book = next(b for b in g.spec.seed["books"] if b["book_id"] == active["book_id"])
    ep.call_tool("return_loan", {"loan_id": active["loan_id"], "member_id": active["member_id"]})
    assert ep.serialize() != before
    after = ep.rows_by_key("books", [(book["book_id"],)])[(book["book_id"],)]
    assert after is not None and after["copies_available"] == book["copies_available"] + 1


def test_create_tool_inserts_with_a_generated_id_and_applies_effects():
    g = generate_env(library(), seed=1)
    ep = Environment(g.spec).episode()
    member = next(m for m in g.spec.seed["members"] if m["status"] == "active")
    book = next(b for b in g.spec.seed["books"] if b["copies_available"] > 0)
    loan = ep.call_tool("create_loan", {"member_id": member["member_id"], "book_id": book["book_id"]}).content
    assert loan["loan_id"] == "L1001" and loan["status"] == "active" and loan["due_date"] == "2026-03-23"
    empty = next((b for b in g.spec.seed["books"] if b["copies_available"] == 0), None)
    if empty is not None:
        with pytest.raises(StateError, match=f"Book {empty['book_id']} has no copies available"):
            ep.call_tool("create_loan", {"member_id": member["member_id"], "book_id": empty["book_id"]})


def test_generator_reports_domain_mistakes_by_name():
    data = library_dict()
    data["entities"][2]["lifecycle"]["transitions"][0]["effects"] = [
        {"kind": "add", "target": "via:publisher.stock", "amount": 1}
    ]
    with pytest.raises(DomainError, match=r"entity 'loan' has no reference 'publisher'"):
        generate_env(Domain.model_validate(data), seed=1)
    data = library_dict()
    data["entities"][2]["lifecycle"]["transitions"][0]["guards"].append({"kind": "min", "amount": 1})
    with pytest.raises(DomainError, match="needs 'field'"):
        generate_env(Domain.model_validate(data), seed=1)


def test_value_sources_work_in_creates_and_transitions():
    from ..domains import transition

    data = library_dict()
    loan = next(e for e in data["entities"] if e["name"] == "loan")
    # in a create, field:x reads the new row (x is not an input); in a transition, self is the record id
    loan["create"]["effects"].append({"kind": "set", "target": "field:loaned_on", "value": "field:due_date"})
    transition(data, "loan", "renew")["effects"].append({"kind": "set", "target": "via:member.phone", "value": "self"})
    g = generate_env(Domain.model_validate(data), seed=1)
    ep = Environment(g.spec).episode()
    member = next(m for m in g.spec.seed["members"] if m["status"] == "active")
    book = next(b for b in g.spec.seed["books"] if b["copies_available"] > 0)
    new = ep.call_tool("create_loan", {"member_id": member["member_id"], "book_id": book["book_id"]}).content
    assert new["loaned_on"] == new["due_date"] == "2026-03-23"
    ep.call_tool("renew_loan", {"loan_id": new["loan_id"], "member_id": member["member_id"]})
    phone = ep.rows_by_key("members", [(member["member_id"],)])[(member["member_id"],)]["phone"]
    assert phone == new["loan_id"]


def test_past_guard_with_hours_means_no_more_than_that_far_ahead():
    from ..domains import transition

    data = library_dict()
    transition(data, "loan", "return")["guards"].append({"kind": "past", "field": "field:due_date", "hours": 24})
    g = generate_env(Domain.model_validate(data), seed=1)
    tool = g.spec.tool("return_loan")
    assert tool is not None and "no more than 24 hours away" in tool.description
    assert any("datetime(:now, '+24 hours')" in s.sql for s in tool.steps)


def test_an_ontology_directory_without_domain_files_is_an_error_not_an_empty_catalog(tmp_path):
    with pytest.raises(SpecError) as info:
        load_ontology(tmp_path)
    assert "no domain files" in str(info.value) and str(tmp_path) in str(info.value)
