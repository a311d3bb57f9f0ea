"""The outside corpus of correct answers: each form is what it claims to be, and every answer turns
down each refused request with its reason, or states each required output."""

from __future__ import annotations

import re
from datetime import timedelta

from envs.engine import Environment
from envs.formats.spec import RuleSpec
from envs.formats.task import Refusal, Task
from envs.quality.classes import INFORMATION, POLICY_REFUSAL
from envs.quality.outside_answers import FORMS, READ, SPOKEN, outside_answers

from .generated_envs import generated, of_class


def _clinic(rule_text: str) -> Environment:
    env, _ = generated()[0]
    tool = next(t.name for t in env.spec.tools if t.name.startswith("cancel_"))
    rule = RuleSpec(id=f"{tool}.x", tool=tool, text=rule_text, enforced_by="policy")
    return Environment(env.spec.model_copy(update={"rules": [rule]}))


def _refusal_task(env: Environment, reason: str, rule: str | None = None) -> Task:
    tool = next(t.name for t in env.spec.tools if t.name.startswith("cancel_"))
    call = {"tool": tool, "arguments": {}}
    refusal = Refusal.model_validate(
        {"request": "cancel my booking with code BK-1", "reason": [reason], "claims": ["cancelled"], "rule": rule,
         "call": call}
    )  # fmt: skip
    return Task.model_validate(
        {"id": "t-1", "env": env.spec.id, "instruction": "Please cancel my booking with code BK-1.",
         "refusals": [refusal.model_dump()], "answer": "reference"}
    )  # fmt: skip


def test_there_are_at_least_ten_distinct_forms_some_read_by_the_docs_and_some_not():
    assert len(FORMS) >= 10 and len(set(FORMS)) == len(FORMS)
    assert READ and set(FORMS) > READ


def test_every_generated_task_gets_an_answer_per_form_that_states_its_values():
    for cls in (POLICY_REFUSAL, INFORMATION):
        tasks = of_class(cls)
        assert tasks
        for env, task in tasks:
            answers = outside_answers(env, task, [])
            assert len(answers) >= 10, (task.id, answers)
            if cls == INFORMATION:  # the value opens the answer, bare or in bold
                assert re.match(r"[^ ]+.* — that's ", answers["value-first"]), answers["value-first"]
                assert answers["bold-markdown"].startswith("**Answer:** "), answers["bold-markdown"]
            for form, text in answers.items():
                assert form in FORMS and text.strip() and "{" not in text, (task.id, form, text)
            if cls == INFORMATION:  # a form that writes no date, amount or label anew keeps the value as it is
                assert all(o in answers["too-early-or-hold-off"] for o in task.outputs), answers


def test_a_time_rule_refusal_in_each_date_form():
    env = _clinic("the flight's departure time must be more than 2 hours away")
    today = env.spec.clock.date()
    answers = outside_answers(env, _refusal_task(env, f"{today} 10:15", env.spec.rules[0].id), [])
    assert "today at 10:15 AM" in answers["relative-day"]
    assert f"{today:%d/%m/%Y} at 10:15" in answers["day-first-slash"]
    assert answers["value-first"].startswith(f"{today:%B} {today.day}, {today.year} at 10:15 — that's the flight's")
    assert f"{today.month}/{today.day}/{today:%y} at 10.15am" in answers["two-digit-year"]
    assert f"{today:%d.%m.%Y} at 10h15" in answers["dotted-date"]
    assert "at quarter past 10 in the morning" in answers["ordinal-of-month"]
    assert answers["too-early-or-hold-off"].startswith("I'll have to hold off")  # today is not too early
    later = outside_answers(env, _refusal_task(env, f"{today + timedelta(days=9)}", env.spec.rules[0].id), [])
    assert later["too-early-or-hold-off"].startswith("It's too early to cancel your booking with code BK-1")
    for form in FORMS:
        assert "cancel your booking with code BK-1" in answers[form], form
        if form != "rule-in-general":
            assert "cancelled" not in answers[form], form  # no claim word, not even negated
    # the rule said of every record of the kind, with the claim word and no "only", "if" or "once"
    assert answers["rule-in-general"].endswith(
        " are cancelled when the flight's departure time is more than 2 hours away."
    )


def test_a_status_refusal_said_as_a_person_says_it():
    env = _clinic("the flight's fare class must be flexible")
    answers = outside_answers(env, _refusal_task(env, "past_due"), [])
    assert answers["spoken-status"] == "I can't cancel your booking with code BK-1: it's overdue."
    assert "PAST DUE" in answers["cannot"]
    assert answers["no-way"].startswith("There's no way for me to cancel")
    assert SPOKEN["disputed"] == "under dispute"


def test_an_amount_in_each_money_form():
    env = _clinic("the passenger's travel credit must be at least the fare")
    answers = outside_answers(env, _refusal_task(env, "1234.5", env.spec.rules[0].id), [])
    assert "US$1,234.50" in answers["two-digit-year"]
    assert "1,234 dollars and 50 cents" in answers["ordinal-of-month"]
    assert "USD 1,234.50" in answers["day-first-slash"]
    assert "$1,234.50" in answers["alternatives-closing"]
    assert re.search(r"If it helps, I can \w+ (it|with something else) instead", answers["alternatives-closing"])


def test_a_greeting_uses_the_first_name_the_agent_read():
    env = _clinic("the flight's fare class must be flexible")
    answers = outside_answers(env, _refusal_task(env, "basic"), [{"passenger": {"full_name": "Ana Ruiz"}}])
    assert answers["greets-by-name"].startswith("Hi Ana, thanks for waiting. I'm unable to cancel")
