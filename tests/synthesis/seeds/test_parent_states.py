"""Children under parents that could have had them: a score review only for a scored registration,
a guest review only of a completed stay, in the seed and after dates move statuses."""

from __future__ import annotations

import pytest

from synthesis.domains.coherence import ENDED
from synthesis.domains.ontology import load_ontology
from synthesis.domains.parent_states import (
    _children,
    keeps_children,
    moved_by_others,
    parent_states,
    stranded_children,
)
from synthesis.domains.sqlgen import pk

from .generated import domain, generated_spec

# the domains whose seeds had the most children under parents in a state before their creation
DOMAINS = (
    "standardized_exam_registration",
    "tire_shop_installations",
    "eyewear_prescription_orders",
    "unemployment_weekly_claims",
    "home_health_visits",
    "lab_test_orders",
    "vacation_rental_bookings",
    "bike_shop_repairs",
    "electronics_returns",
)


def test_the_states_a_child_needs_follow_its_creates_guard_and_what_comes_after():
    exams = domain("standardized_exam_registration")
    review = next(e for e in exams.entities if e.name == "score_review")
    rule = parent_states(exams, review)["registration_id"]
    assert rule.field == "status" and set(rule.states.values()) == {frozenset({"scored"})}
    stays = domain("vacation_rental_bookings")
    guest_review = next(e for e in stays.entities if e.name == "guest_review")
    assert set(parent_states(stays, guest_review)["stay_booking_id"].states.values()) == {frozenset({"completed"})}


def test_a_row_an_action_inserts_sits_under_a_parent_that_took_that_action():
    returns = domain("electronics_returns")
    refund = next(e for e in returns.entities if e.name == "return_refund")
    request = next(e for e in returns.entities if e.name == "return_request")
    assert request.lifecycle is not None
    issuing = next(t for t in request.lifecycle.transitions if t.name == "issue_refund")
    rule = parent_states(returns, refund)["return_request_id"]
    assert issuing.to in rule.states[None] and "requested" not in rule.states[None]
    seed = generated_spec("electronics_returns").seed  # read directly: every refund is of a refunded request
    status = {r["return_request_id"]: r["status"] for r in seed["return_requests"]}
    assert seed["return_refunds"]
    assert {status[r["return_request_id"]] for r in seed["return_refunds"]} <= rule.states[None]
    assert "requested" not in {status[r["return_request_id"]] for r in seed["return_refunds"]}


def test_a_transitions_guard_on_the_parent_binds_the_state_it_leads_to():
    bikes = domain("bike_shop_repairs")
    part = next(e for e in bikes.entities if e.name == "part_line")
    rule = parent_states(bikes, part)["repair_ticket_id"]
    tickets = next(e for e in bikes.entities if e.name == "repair_ticket").lifecycle
    assert tickets is not None
    assert rule.states["approved"] < frozenset(tickets.states)  # approved while awaiting approval or in repair
    assert "awaiting_approval" in rule.states["approved"] and "in_repair" in rule.states["approved"]
    assert rule.states["approved"] <= rule.states["proposed"]


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_no_seed_child_sits_under_a_parent_it_could_not_have_been_made_under(domain_id):
    checked, stranded = stranded_children(domain(domain_id), generated_spec(domain_id).seed)
    assert checked > 0
    assert stranded == 0


def test_every_score_review_is_of_a_scored_registration():
    seed = generated_spec("standardized_exam_registration").seed  # read directly, not through parent_states
    status = {r["registration_id"]: r["status"] for r in seed["registrations"]}
    assert seed["score_reviews"]
    assert {status[r["registration_id"]] for r in seed["score_reviews"]} == {"scored"}


def test_a_parent_with_children_does_not_move_back_before_them():
    d = domain("standardized_exam_registration")
    seed = generated_spec("standardized_exam_registration").seed
    keeps = keeps_children(d, seed)
    reviewed = {r["registration_id"] for r in seed["score_reviews"]}
    with_review = next(r for r in seed["registrations"] if r["registration_id"] in reviewed)
    without = next(r for r in seed["registrations"] if r["registration_id"] not in reviewed)
    assert not keeps("registrations", with_review, "registered")
    assert keeps("registrations", with_review, "scored")
    assert keeps("registrations", without, "registered")


def test_over_every_domain_the_only_children_left_stranded_are_closed_under_an_ended_parent():
    """A parent that ended for good closes its children (a rejected offer's deposit is refunded) even
    where the domain's own refund needs another end (a withdrawn offer): the one conflict left."""
    checked = stranded = 0
    for d in load_ontology():
        seed = generated_spec(d.id).seed
        c, s = stranded_children(d, seed)
        checked, stranded = checked + c, stranded + s
        for parent in (e for e in d.entities if e.lifecycle and s):
            assert parent.lifecycle is not None
            status = {r[pk(parent)]: r[parent.lifecycle.field] for r in seed[parent.table]}
            for child, column, own, rule in _children(d, seed, parent):
                if child.get(column) in status and not rule.allows(
                    child.get(own) if own else None, status[child[column]]
                ):
                    assert status[child[column]].split("_")[-1] in ENDED, (d.id, parent.name, status[child[column]])
    assert checked > 3000
    assert stranded <= 0.01 * checked


def test_a_childs_acceptance_moves_its_parent_on_and_keeps_the_siblings_made_before():
    loads = domain("carrier_load_tendering")
    offers = next(e for e in loads.entities if e.name == "load_offer")
    # an offer is made on a posted load, which staff may withdraw or a sibling's acceptance cover: every
    # state of the load can hold one, so no state of an offer ties its load down
    assert "load_id" not in parent_states(loads, offers)
    load = {"load_id": "LD1", "status": "posted"}
    seed = {"loads": [load], "load_offers": [{"load_offer_id": "LO1", "load_id": "LD1", "status": "declined"}]}
    assert keeps_children(loads, seed)("loads", load, "covered")


def test_a_move_from_anywhere_frees_no_state():
    # a set on the parent by an action that does not check the parent's state adds no way between states
    tickets = domain("broadband_outage_tickets")
    outage = next(e for e in tickets.entities if e.name == "outage_ticket")
    assert outage.lifecycle is not None
    moved = moved_by_others(tickets, outage)
    assert moved is not None
    extra = [(t.from_states, t.to) for t in moved.transitions if t not in outage.lifecycle.transitions]
    # only scheduling a visit, which needs the ticket open, moves it (to technician_assigned); cancelling
    # one sets it open from wherever it is and adds nothing
    assert extra == [(["open"], "technician_assigned")]
