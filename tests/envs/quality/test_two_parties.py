"""One row naming one party in two roles (measure 87): a money request whose requester is its payer;
and the seed rule that keeps it (``synthesis.domains.two_parties``)."""

from __future__ import annotations

import copy

import pytest

from envs.formats.spec import EnvSpec
from envs.quality.two_parties import one_party_twice, party_columns
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.two_parties import settle_two_parties
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def payments() -> EnvSpec:
    domains = {d.id: d for d in load_ontology()}
    return generate_env(assign_enforcement(domains["p2p_payment_requests"]), seed=0).spec


def test_two_references_to_the_user_table_are_two_parties(payments):
    found = {(p.table, p.columns) for p in party_columns(payments)}
    assert found == {("p2p_payments", ("sender_id", "recipient_id")), ("money_requests", ("requester_id", "payer_id"))}


def _copy(spec: EnvSpec) -> EnvSpec:
    return spec.model_copy(update={"seed": copy.deepcopy(spec.seed)})


def test_every_row_with_both_roles_is_read_and_the_rule_leaves_two_people_on_each(payments):
    spec = _copy(payments)
    counts = one_party_twice(spec)
    assert counts.party_rows_checked == len(spec.seed["p2p_payments"]) + len(spec.seed["money_requests"])
    repeated = counts.one_party_twice
    assert settle_two_parties(spec) == repeated
    assert one_party_twice(spec).one_party_twice == 0


def test_a_request_to_oneself_is_counted_and_its_payer_redrawn(payments):
    spec = _copy(payments)
    request = next(r for r in spec.seed["money_requests"] if r["payer_id"] != r["requester_id"])
    payment = next(p for p in spec.seed["p2p_payments"] if p["recipient_id"] != p["sender_id"])
    already = one_party_twice(spec).one_party_twice
    request["payer_id"] = request["requester_id"]
    payment["recipient_id"] = payment["sender_id"]
    requester, sender = request["requester_id"], payment["sender_id"]
    assert one_party_twice(spec).one_party_twice == already + 2
    assert settle_two_parties(spec) == already + 2
    assert request["requester_id"] == requester and request["payer_id"] != requester
    assert payment["sender_id"] == sender and payment["recipient_id"] != sender
    users = {u["wallet_user_id"] for u in spec.seed["wallet_users"]}
    assert {request["payer_id"], payment["recipient_id"]} <= users
    assert one_party_twice(spec).one_party_twice == 0


def test_a_row_missing_one_role_is_not_checked(payments):
    spec = _copy(payments)
    spec.seed["money_requests"][0]["payer_id"] = None
    assert one_party_twice(spec).party_rows_checked == one_party_twice(payments).party_rows_checked - 1
