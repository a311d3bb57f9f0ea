"""A record said to be any of several statuses of its column is a hedge, not a reason: the
``column-statuses`` adversary ("I'm sorry, I can't close your claim: it is active or closed.") on
generated environments whose columns hold few statuses (the reason and the request's participle
among them, so no two rivals are left), while a rule's statuses said as the rule, then the record's
own, still pass (docs/formats.md, "Answers", check 4)."""

from __future__ import annotations

import pytest

from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.hedges import hedged_statuses
from envs.grading.restating import reason_labels
from envs.quality.adversaries import participles
from envs.quality.classes import ENFORCED_REFUSAL, task_class
from envs.quality.natural_answers import natural_answers
from envs.quality.outside_adversaries import outside_answer, play_outside
from envs.quality.reported_answers import reported_answers

from .scoring_helpers import generated_domain, score_after_gold

#: Domains with refusals whose status column holds two or three values. Closing an already closed claim
#: is no request a customer makes (measure 85), which took the first two domains' such refusals away.
DOMAINS = ("unemployment_weekly_claims", "concert_ticket_orders", "credit_card_disputes", "dealership_test_drives")


def _generated() -> tuple[tuple[Environment, tuple[Task, ...]], ...]:
    return tuple(generated_domain(name) for name in DOMAINS)


def _status_refusals() -> list[tuple[Environment, Task]]:
    """The enforced refusals whose reason is a status of a column of two or three values."""
    found = []
    for env, tasks in _generated():
        for task in tasks:
            if task_class(env, task) != ENFORCED_REFUSAL or len(task.refusals) != 1:
                continue
            if 2 <= len(reason_labels(env.spec, task.refusals[0].reason)) <= 3:
                found.append((env, task))
    return found


def _own(env: Environment, task: Task) -> tuple[str, list[str]]:
    """The refusal's reason as said, and the other values of its column."""
    reason = task.refusals[0].reason[0]
    others = sorted(reason_labels(env.spec, [reason]) - {reason})
    return reason.replace("_", " "), [v.replace("_", " ") for v in others]


def test_column_statuses_passes_no_refusal_of_a_few_status_column():
    tasks = _status_refusals()
    assert len(tasks) >= 4
    for name in ("column-statuses", "refuse-all-column-statuses"):
        passed = [(t.id, outside_answer(name, env, t)[1]) for env, t in tasks if play_outside(name, env, t) == 1.0]
        assert not passed, (name, passed)


@pytest.mark.parametrize(
    "lead",
    [
        "it is {others} or {reason}",  # the adversary's own order, the reason last
        "it's either {reason} or {others}",
        "its status is {reason}, {others}",
        "status: {others}/{reason}",
        "it is currently {others} and {reason}",
    ],
)
def test_a_record_said_to_be_two_statuses_of_its_column_fails(lead):
    for env, task in _status_refusals():
        reason, others = _own(env, task)
        request = task.refusals[0].request.replace("my ", "your ", 1)
        hedge = lead.format(reason=reason, others=" or ".join(others))
        assert task.answer and score_after_gold(env, task, task.answer) == 1.0
        answer = f"I'm sorry, I can't {request}: {hedge}."
        assert score_after_gold(env, task, answer) == 0.0, answer


def test_the_rules_statuses_then_the_records_own_pass():
    seen = 0
    for env, task in _status_refusals():
        reason, others = _own(env, task)
        refusal = task.refusals[0]
        verb = refusal.request.split()[0]
        request = refusal.request.replace("my ", "your ", 1)
        tool = env.spec.tool(refusal.call.tool) if refusal.call else None
        if tool is None or not all(o in tool.description.replace("_", " ") for o in others[:1]):
            continue
        # the allowed status said as the rule, then the record's: "only active ones can be closed"
        for answer in (
            f"I'm sorry, I can't {request}. Only {others[0]} ones can be {participles(verb)[0]}; yours is {reason}.",
            f"I can't {request}: that is only possible while it is {others[0]}, and it is {reason}.",
        ):
            assert score_after_gold(env, task, answer) == 1.0, answer
        seen += 1
    assert seen >= 2


def test_the_allowed_statuses_form_and_the_natural_forms_still_pass():
    forms = 0
    for env, tasks in _generated():
        for task in tasks:
            if not task.refusals:
                continue
            episode = env.episode(task)
            results = [r.content for r in episode.replay(task.gold_actions)]
            episode.close()
            answers = {**natural_answers(env, task), **reported_answers(env, task, results)}
            for form, text in answers.items():
                forms += form == "allowed-statuses"
                assert score_after_gold(env, task, text) == 1.0, (task.id, form, text)
    assert forms >= 4


def test_hedged_statuses_reads_the_list_not_the_rule():
    own = ["listed", "sold", "withdrawn"]
    assert hedged_statuses("Sorry, I can't withdraw it: it is listed, sold or withdrawn.", own, own) == own
    assert hedged_statuses("I can't: it's sold and withdrawn.", own, own) == ["sold", "withdrawn"]
    # a rule's clause, a kind of record, a denial and one status said are no hedge
    for answer in (
        "Only listed or sold listings can be withdrawn; yours is withdrawn.",
        "A listing that is listed or sold can be withdrawn; yours is withdrawn.",
        "It is withdrawn, not listed or sold.",
        "It is sold, so it can't be withdrawn.",
        "It is sold, and listed listings can be withdrawn.",
    ):
        assert hedged_statuses(answer, own, own) == [], answer
