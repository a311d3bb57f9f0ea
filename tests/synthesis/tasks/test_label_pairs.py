"""A question of a record's status or kind asks for a value only reading the record gives beside it, so
that no guess of the label answers it."""

from __future__ import annotations

import pytest

from envs import Environment, Task, score_episode
from envs.formats.spec import EnvSpec
from synthesis.tasks.label_pairs import ask_pair, pair_label, read_value
from tests.synthesis.tasks.generated import generated_tasks

from ..domains import library

_DOMAINS = ("airline_rebooking", "bike_shop_repairs", "banquet_event_planning", "airport_parking_reservations")


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    return generated_tasks(_DOMAINS)


def test_the_read_value_is_asked_of_the_same_record():
    assert (
        ask_pair("What is the status of my booking for flight AW6233?", "total_fare")
        == "What is the status of my booking for flight AW6233, and its total fare?"
    )
    assert ask_pair("What is the status of my rail pass?", "valid_until") == (
        "What is the status of my rail pass, and its valid until date?"
    )
    assert (
        ask_pair("I just need to know the status of my fine from May 3.", "paid_on")
        == "I just need to know the status of my fine from May 3. When was it paid?"
    )


def test_a_value_the_user_has_said_is_not_asked():
    fine = library().entity("fine")
    row = {"fine_id": "FN0001", "status": "open", "amount": 12.5, "issued_on": "2026-02-11"}
    assert read_value(fine, row, "status", "my fine issued on February 11", "t") == "amount"
    assert read_value(fine, row, "status", "my fine of 12.50", "t") == "issued_on"
    assert read_value(fine, row, "status", "my fine of 12.50 from February 11", "t") is None
    small = {**row, "amount": 5.0}  # a whole number below 10 is said by accident in any answer
    assert read_value(fine, small, "status", "my fine from February 11", "t") is None
    assert pair_label(fine, row, "status", "What is the status of my fine?", ["February 11"], "t") == (
        "What is the status of my fine, and its amount?",
        "amount",
    )


def _labels(spec: EnvSpec) -> set[str]:
    return {v.replace("_", " ") for t in spec.tables for c in t.columns if c.enum for v in c.enum}


def test_no_label_is_asked_alone_and_the_pair_is_graded(generated):
    asked = 0
    for spec, tasks in generated:
        env = Environment(spec)
        for task in tasks:
            if "information" not in task.tags or task.outputs[0] not in _labels(spec):
                continue
            asked += 1
            label, value = task.outputs[:2]  # a label alone would be one output
            assert value not in _labels(spec) and value not in task.instruction, task.id
            episode = env.episode(task)
            try:
                episode.replay(task.gold_actions)
                assert score_episode(env, task, episode, answer=task.answer).reward == 1.0, task.id
                guessed = f"The status is {label}."  # the right label, the read value left out
                assert score_episode(env, task, episode, answer=guessed).reward == 0.0, task.id
            finally:
                episode.close()
    assert asked >= 3
