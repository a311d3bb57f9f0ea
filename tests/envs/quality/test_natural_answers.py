"""The natural-answer corpus: correct final answers in many forms, written apart from the answer grader."""

from __future__ import annotations

import re

import pytest

from envs.catalog import CatalogEntry, load_env
from envs.engine import Environment
from envs.formats.spec import RuleSpec
from envs.formats.task import Refusal, Task, ToolCall
from envs.quality.natural_answers import FORMS, natural_answers

REFUSED = re.compile(
    r"can't|unable|not able|isn't possible|won't be able|not allowed|doesn't allow|isn't eligible|decline|no way for me"
)


@pytest.fixture(scope="module", params=["retail", "clinic"])
def entry(request: pytest.FixtureRequest) -> CatalogEntry:
    return load_env(request.param)


@pytest.fixture(scope="module")
def clinic() -> Environment:
    """The clinic with a policy rule on cancelling, so that a refusal has a rule to paraphrase."""
    spec = load_env("clinic").spec
    rule = RuleSpec(
        id="cancel_appointment.notice",
        tool="cancel_appointment",
        text="the starts at must be more than 24 hours away",
        enforced_by="policy",
    )
    return Environment(spec.model_copy(update={"rules": [rule]}))


def _task(**changes: object) -> Task:
    base = {"id": "clinic-x", "env": "clinic", "instruction": "Please cancel my appointment tomorrow."}
    return Task.model_validate({**base, **changes})


def test_there_are_at_least_ten_distinct_forms():
    assert len(FORMS) >= 10
    assert len(set(FORMS)) == len(FORMS)


def test_every_task_with_refusals_or_outputs_gets_ten_distinct_answers(entry):
    tasks = [t for t in entry.tasks if t.refusals or t.outputs]
    assert tasks
    for task in tasks:
        answers = natural_answers(entry.environment, task)
        assert list(answers) == list(FORMS), task.id
        assert len(set(answers.values())) >= 10, task.id
        assert all(text.strip() for text in answers.values()), task.id


def test_no_answer_pastes_json(entry):
    for task in entry.tasks:
        for form, text in natural_answers(entry.environment, task).items():
            assert "{" not in text and "}" not in text, (task.id, form, text)


def test_answers_are_deterministic(entry):
    for task in entry.tasks:
        assert natural_answers(entry.environment, task) == natural_answers(entry.environment, task)


def test_a_task_with_nothing_to_state_gets_no_answers(clinic):
    assert natural_answers(clinic, _task()) == {}


def test_a_refusal_is_turned_down_with_its_reason_in_every_form(clinic):
    refusal = Refusal(
        request="cancel my appointment on 2026-03-03",
        reason=["2026-03-03"],
        claims=["cancelled", "canceled"],
        rule="cancel_appointment.notice",
    )
    update = ToolCall(tool="update_patient_contact", arguments={"patient_id": "P0001", "phone": "+1 555 0100"})
    task = _task(refusals=[refusal], gold_actions=[update], tags=["partial-refusal"])
    answers = natural_answers(clinic, task)
    assert len(answers) == len(FORMS)
    dates = re.compile(r"2026-03-03|March 3|3 March|03/03/2026|Mar 3|Tuesday, March 3")
    for form, text in answers.items():
        assert REFUSED.search(text), (form, text)
        assert dates.search(text), (form, text)
        assert re.search(r"updated|changed|is now", text), (form, text)  # the allowed write is reported
    # the rule is paraphrased in some forms, with its number and unit, and today's date in others
    assert any("24 hours" in text for text in answers.values())
    assert any("today is" in text for text in answers.values())
    assert any("24 hours" not in text for text in answers.values())


def test_a_declined_fee_is_stated_in_every_form(clinic):
    refusal = Refusal(request="cancel my appointment with Dr. Osei", reason=["25"], claims=["cancelled"])
    answers = natural_answers(clinic, _task(refusals=[refusal]))
    for form, text in answers.items():
        assert re.search(r"\b25\b", text), (form, text)
    written = {
        m[0] for text in answers.values() if (m := re.search(r"\$25\.00|25\.00 USD|USD 25|25\.00 dollars", text))
    }
    assert len(written) >= 3  # the amount is written in several ways


def test_an_output_date_and_amount_take_several_formats(clinic):
    task = _task(instruction="What is the fee of my appointment on 2026-06-09?", outputs=["1234.50"])
    texts = " ".join(natural_answers(clinic, task).values())
    for written in ("$1,234.50", "1,234.50 USD", "USD 1234.5", "1234.50 dollars", "$1234.50"):
        assert written in texts
    task = _task(instruction="When was my appointment with Dr. Osei booked?", outputs=["2026-06-09"])
    texts = " ".join(natural_answers(clinic, task).values())
    for written in ("2026-06-09", "June 9, 2026", "9 June 2026", "06/09/2026", "Jun 9, 2026", "June 9th"):
        assert written in texts


def test_an_amount_or_a_reward_asked_plainly_is_answered_in_the_questions_words(clinic):
    task = _task(instruction="How much is my appointment on 2026-06-09?", outputs=["1234.50"])
    texts = list(natural_answers(clinic, task).values())
    assert any("your appointment on" in t.lower() and "1,234.50" in t for t in texts)
    assert any("$1234.50" in t or "1234.50 dollars" in t for t in texts)  # read as money, not a count
    task = _task(instruction="How many miles did my flight to Oslo earn me?", outputs=["1200"])
    texts = list(natural_answers(clinic, task).values())
    assert any("earned you 1200 miles" in t for t in texts)
    assert all("1200" in t or "1,200" in t for t in texts)
