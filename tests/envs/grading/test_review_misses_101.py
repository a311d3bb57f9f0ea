"""The seed-101 review's correct answers that scored 0: both sides of an amount rule said
("it costs 252.51 and your wallet balance is only 209.63"), "no payment is possible", and "hasn't
been submitted yet" of a draft whose table keeps a ``submitted_on`` day."""

from __future__ import annotations

import pytest

from envs.grading.answers import says_no
from envs.grading.everyday import spec_readings
from envs.grading.restating import weighed_against
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env

ORDER = {"lab_order_id": "LO4", "patient_id": "LP7", "price": 252.51, "fee": 12.5, "status": "scheduled"}
PATIENT = {"patient_id": "LP7", "wallet_balance": 209.63}


def test_the_field_an_amount_rule_weighs_the_reason_against_is_its_other_side():
    rule = "the patient's wallet balance must be at least the price"
    assert weighed_against(rule, [PATIENT, ORDER], ("lab_order_id", "LO4")) == {"252.51"}
    # another record's price, or a rule that weighs nothing, gives none
    assert weighed_against(rule, [PATIENT, {**ORDER, "lab_order_id": "LO5"}], ("lab_order_id", "LO4")) == set()
    assert weighed_against("the lab order must not be marked prepaid", [ORDER], ("lab_order_id", "LO4")) == set()
    assert weighed_against(
        "the refund must not exceed the amount paid", [{"pid": "P1", "amount_paid": 80.0}], ("pid", "P1")
    ) == {"80.0"}


@pytest.mark.parametrize(
    ("answer", "turned_down"),
    [
        ("The hydrant citation was dismissed so no payment is possible or needed.", True),
        ("No further payment was possible on it.", True),
        ("Done! No problem, no further action is needed.", False),
    ],
)
def test_no_action_being_possible_turns_a_request_down(answer: str, turned_down: bool):
    assert says_no(answer) is turned_down


def test_a_day_column_leaves_the_state_words_a_state():
    domain = next(d for d in load_ontology() if d.id == "study_abroad_applications")
    spec = generate_env(assign_enforcement(domain), seed=0).spec
    applications = next(t for t in spec.tables if t.name == "applications")
    assert any(c.name == "submitted_on" and c.type == "date" for c in applications.columns)
    rules = ["Accept an offered place. Allowed only when the application is offered."]
    assert "hasn't been submitted" in spec_readings(spec, "draft", rules)
