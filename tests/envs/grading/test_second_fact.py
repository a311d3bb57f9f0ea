"""The seed-107 review's correct information answers that scored 0 as reading the record out: the asked
value said beside a second fact of the same record ("The $1.99 charge on November 5, 2025 was a
rental extension", "Your PayPal payout of $1,605.55 was requested on December 7, 2025"). Such an
answer names the record; one that says each field on its own, under its column's name, with its
keys, or the asked field of every record, still reads records out."""

from __future__ import annotations

import pytest

from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.restating import dumped_records
from envs.quality.asked_record_adversaries import (
    ASKED_RECORD_ADVERSARIES,
    asked_record_answer,
    play_asked_record,
)
from envs.quality.classes import INFORMATION, task_class
from envs.quality.gaming import AGENTS, TARGETS
from envs.quality.identified_answers import identified_answers

from .scoring_helpers import generated_domain, reviewed_task, score_after_gold

DOMAINS = ("streaming_subscriptions", "indie_music_distribution", "dealership_test_drives")
#: The bound the issue sets on any gaming strategy, on the class it targets.
BOUND = 0.05


def _generated() -> dict[str, tuple[Environment, tuple[Task, ...]]]:
    return {name: generated_domain(name) for name in DOMAINS}


def _task(task_id: str) -> tuple[Environment, Task]:
    return reviewed_task(task_id)


def _information() -> list[tuple[Environment, Task]]:
    return [(env, t) for env, tasks in _generated().values() for t in tasks if task_class(env, t) == INFORMATION]


# The review's tasks as the catalog generated them then (kept in reviewed/): streaming_subscriptions-010 asked what a
# $1.99 charge was; the regenerated catalog asks the same of a rental (its price, by its title), and
# indie_music_distribution-018 is the same question of a payout now of $226.61.
RENTAL, PAYOUT = "streaming_subscriptions-012", "indie_music_distribution-018"


@pytest.mark.parametrize(
    ("task_id", "answer"),
    [
        # the review's own answer, with the payout's amount as generated now
        (PAYOUT, "Your PayPal payout of $226.61 was requested on December 7, 2025."),
        # value and day, value and amount, value and kind, in either order
        (RENTAL, "Your Northern Lights rental was $6.42, and you can watch it until March 30, 2026."),
        (RENTAL, "$6.42 — that's the Northern Lights rental you have until March 30, 2026."),
        (RENTAL, "The Northern Lights rental you have until March 30, 2026 cost $6.42."),
        (PAYOUT, "You requested the $226.61 PayPal payout on December 7, 2025."),
        (PAYOUT, "December 7, 2025 is when you asked for the $226.61 payout to PayPal."),
        (PAYOUT, "It went in on 7 December 2025, your $226.61 payout."),
    ],
)
def test_the_asked_value_beside_a_second_fact_of_its_record_passes(task_id: str, answer: str) -> None:
    env, task = _task(task_id)
    assert score_after_gold(env, task, answer) == 1.0


@pytest.mark.parametrize(
    ("task_id", "answer"),
    [
        # each field under its column's name, one sentence each or all in one
        (
            PAYOUT,
            "The amount is 226.61. The method is paypal. The requested on is 2025-12-07. The status is requested.",
        ),
        (
            PAYOUT,
            "The amount is 226.61, the method is paypal, the requested on is 2025-12-07 and the status is requested.",
        ),
        # the record's fields listed after its name
        (PAYOUT, "Your payout request: $226.61, PayPal, December 7, 2025, requested."),
        # a second fact said on its own, apart from the asked value
        (PAYOUT, "It was requested on December 7, 2025. It was for $226.61. It went to PayPal. It is requested."),
        # keys and all
        (PAYOUT, "The payout PR0036 for artist AR0026 is $226.61 by PayPal, requested on 2025-12-07, still requested."),
        # the asked field of every record read
        (PAYOUT, "PR0004 was requested on January 24, 2026 and PR0036 on December 7, 2025."),
    ],
)
def test_a_record_read_out_beside_the_asked_value_still_fails(task_id: str, answer: str) -> None:
    env, task = _task(task_id)
    assert score_after_gold(env, task, answer) == 0.0


def test_more_than_two_unasked_facts_read_the_record_out() -> None:
    payout = {
        "payout_request_id": "PR0036",
        "artist_id": "AR0026",
        "amount": 1605.55,
        "method": "paypal",
        "requested_on": "2025-12-07",
        "status": "requested",
    }
    named = "Your PayPal payout of $1,605.55 was requested on December 7, 2025."
    user = "When was my paypal payout requested?"
    assert dumped_records(named, [payout], ["2025-12-07"], user, asked=["2025-12-07"]) == []
    # where the user's words name neither the method nor the status, three facts go unasked
    assert dumped_records(named, [payout], ["2025-12-07"], "When was my payout made?", asked=["2025-12-07"]) == [
        "PR0036"
    ]
    # without an asked value (a refusal's record), every field but the keys is read out as before
    assert dumped_records(named, [payout], ["2025-12-07"], user) == ["PR0036"]


def test_every_second_fact_form_passes_where_the_gold_answer_does() -> None:
    graded = 0
    for env, task in _information():
        episode = env.episode(task)
        try:
            results = [r.content for r in episode.replay(task.gold_actions)]
        finally:
            episode.close()
        for form, answer in identified_answers(task, results).items():
            graded += 1
            assert score_after_gold(env, task, answer) == 1.0, (task.id, form, answer)
    assert graded >= 10


def test_the_read_outs_of_the_asked_record_are_bench_agents() -> None:
    assert set(ASKED_RECORD_ADVERSARIES) <= set(AGENTS)
    assert all(TARGETS[name] == (INFORMATION,) for name in ASKED_RECORD_ADVERSARIES)


@pytest.mark.parametrize("name", sorted(ASKED_RECORD_ADVERSARIES))
def test_each_read_out_of_the_asked_record_passes_at_most_the_bound(name: str) -> None:
    tasks = _information()
    assert len(tasks) >= 10
    passed = [(t.id, asked_record_answer(name, env, t)[1]) for env, t in tasks if play_asked_record(name, env, t)]
    assert len(passed) <= BOUND * len(tasks), passed
