"""Requests mended after the seed-83 review's open kinds (docs/synthesis.md, "Seed 83"): no refusal of
an action whose record's status says it was done (measure 85), no field's label or catch-all value
read out as the user's words (measure 86), no record picked by a limit the business sets, and a
price by the period ranked in a person's words."""

from __future__ import annotations

import pytest

from envs.formats.task import Refusal, Task, ToolCall
from envs.quality.already import Move, done_states, refusals_of_done_actions
from envs.quality.everyday_ranks import names_a_record, unmistakable_rank
from envs.quality.record_names import names_by_unknown_value
from envs.quality.requests import request_counts
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.details import detail
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@pytest.fixture(scope="module")
def permits():
    d = assign_enforcement(next(x for x in load_ontology() if x.id == "building_permit_applications"))
    served = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, served.spec, served.meta, count=30, seed=0, twin=twin.spec)
    return d, served.spec, tasks


def test_the_states_that_say_an_action_was_done_are_its_target_and_what_only_it_leads_to():
    submit = Move("p", "status", frozenset({"draft"}), "submitted")
    approve = Move("p", "status", frozenset({"submitted"}), "approved")
    issue = Move("p", "status", frozenset({"approved"}), "issued")
    lapse = Move("p", "status", frozenset({"issued"}), "expired")
    withdraw = Move("p", "status", frozenset({"submitted", "approved"}), "withdrawn")
    moves = [submit, approve, issue, lapse, withdraw]
    assert done_states(issue, moves) == {"issued", "expired"}
    assert done_states(approve, moves) == {"approved", "issued", "expired"}
    assert "withdrawn" not in done_states(approve, moves)  # reached before approval too
    # a record that starts active need not have been unlocked: only the target says so
    unlock = Move("c", "status", frozenset({"locked"}), "active")
    lock = Move("c", "status", frozenset({"active"}), "locked")
    close = Move("c", "status", frozenset({"active"}), "closed")
    assert done_states(unlock, [unlock, lock, close], initial={"active"}) == {"active"}


def test_no_refusal_asks_for_what_the_record_already_is(permits):
    _, spec, tasks = permits
    counts = refusals_of_done_actions(spec, tasks)
    assert counts.status_refusals_checked > 0
    assert counts.refusals_of_done_action == 0


def test_the_measure_counts_an_issue_refused_as_issued(permits):
    _, spec, _ = permits
    refused = Refusal(
        request="issue my permit",
        reason=["issued"],
        call=ToolCall(tool="issue_permit_application", arguments={"permit_application_id": "PA0001"}),
    )
    other = refused.model_copy(update={"reason": ["submitted"]})
    task = Task(id="x-001", env=spec.id, instruction="Issue my permit.", refusals=[refused, other])
    counts = refusals_of_done_actions(spec, [task])
    assert (counts.status_refusals_checked, counts.refusals_of_done_action) == (2, 1)


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("relationship", "other", "They're not a relative of mine."),
        ("relationship", "sibling", "They're my sibling."),
        ("share_percent", 10, "They should get 10% of it."),
        ("household_size", 1, "It's just me at home."),
        ("household_size", 4, "There are 4 of us at home."),
        ("kw_released", 5, "I'd like 5 kW released."),
        ("additional_kw", 3, "I'd like 3 more kW."),
        ("units_expected", 2, "We're expecting 2 units."),
        ("package_count", 1, "There's 1 package."),
        ("package_count", 3, "There are 3 packages."),
        ("dose_number", 2, "It's dose number 2."),
        ("vehicle_type", "van", "It's a van."),
        ("device_type", "smart_thermostat", "It's a smart thermostat."),
        ("project_type", "roof", "It's a roof project."),  # a kind of project still says what it is
    ],
)
def test_a_detail_is_said_as_a_person_says_it(name, value, said):
    assert detail(name, value) == said
    assert str(value).replace("_", " ") in said.replace("just me", "1").replace("%", "") or value == "other"


def test_measure_86_counts_labels_voiced():
    def task(text: str) -> Task:
        return Task(id="x-001", env="x", instruction=text)

    voiced = ["They're my other.", "For the share percent, it's 10.", "It's a van vehicle."]
    said = ["They're not a relative of mine.", "They should get 10% of it.", "It's a van.", "It's a roof project."]
    assert request_counts([task(t) for t in voiced]).label_voiced_tasks == 3
    assert request_counts([task(t) for t in said]).label_voiced_tasks == 0


def test_no_record_is_picked_by_a_limit_the_business_sets():
    for column in ("hold_until", "pickup_by", "paid_through", "hold_expires", "next_billing_date"):
        assert not names_a_record(column, "date", own=True), column
    assert names_a_record("valid_until", "date", own=True)  # its own expiry: "the pass that expires first"
    assert names_a_record("delivery_date", "date", own=True)
    assert names_by_unknown_value("Please collect my ready pickup order with the earliest hold-until date.")
    assert not names_by_unknown_value("Please cancel my booked order with the latest delivery date.")


def test_a_price_by_the_period_beside_another_price_is_said_per_period():
    columns = [("monthly_rent", False), ("application_fee", False)]
    rent = unmistakable_rank("monthly_rent", False, True, columns)
    assert rent is not None and rent.name("studio apartment") == "the studio apartment that costs the most per month"
    assert unmistakable_rank("application_fee", False, True, columns) is None  # "most expensive" says neither
    alone = unmistakable_rank("daily_price", False, False, [("daily_price", False)])
    assert alone is not None and alone.name("wheelchair") == "the cheapest wheelchair"


def test_no_record_is_edited_then_called_off_in_one_task():
    """lost_baggage_claims-010 (seed 89): the bag's description changed, then "withdraw the same
    baggage claim": the edit was for nothing."""
    from synthesis.domains.enforcement import DEFAULT_POLICY_SHARE, assign_enforcement
    from synthesis.domains.ontology import load_ontology
    from synthesis.tasks.taskgen import generate_tasks
    from synthesis.tools.envgen import generate_env

    d = assign_enforcement(next(x for x in load_ontology() if x.id == "lost_baggage_claims"), DEFAULT_POLICY_SHARE)
    gen, twin = generate_env(d, seed=0), generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=33, seed=0, twin=twin.spec)
    for task in tasks:
        edited: set[str] = set()
        for call in task.gold_actions:
            key = call.arguments.get("baggage_claim_id")
            if call.tool.startswith("update_baggage_claim_"):
                edited.add(key)
            assert not (call.tool == "withdraw_baggage_claim" and key in edited), task.id


def test_an_offers_deadline_is_extended_to_decide():
    """candidate_recruiting_pipeline-015 (seed 89): "extend the deadline for my job offer. It turns out
    I want it for longer than I first planned" (a rental's reason)."""
    from synthesis.tasks.motives import transition_motive

    said = {transition_motive("extend", f"U{i}|my job offer for the analyst role") for i in range(30)}
    assert "It turns out I want it for longer than I first planned." not in said
    assert "I need a bit more time to decide." in said
    rental = {transition_motive("extend", f"U{i}|my wheelchair rental") for i in range(30)}
    assert "I need a bit more time to decide." not in rental
