"""Counts said as a person says them (measure 117, docs/synthesis.md "Tasks stage"): a count of one
with its noun in the singular ("It's just 1 person.", not "We'll be 1 people."), and a count on top
of one already held said as more of it ("I'd like 3 more hours.", not a form's "3 extra hours")."""

from __future__ import annotations

import pytest

from envs import Task, check_env
from envs.formats.spec import EnvSpec
from envs.quality.requests import miscounts, request_counts
from synthesis.tasks.details import detail
from tests.synthesis.tasks.generated import generated_tasks

#: Domains whose requests carry counts that were said "We'll be 1 people.", "I'd like 1 hours
#: returned." and "I need 3 extra hours." before.
_DOMAINS = ("restaurant_table_bookings", "pto_leave_requests", "household_moving_jobs", "guided_tour_packages")


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("party_size", 1, "It's just 1 person."),
        ("party_size", 4, "We'll be 4 people."),
        ("expected_attendance", 1, "We expect 1 person."),
        ("hours_returned", 1, "I'd like 1 hour returned."),
        ("hours_returned", 3, "I'd like 3 hours returned."),
        ("units_expected", 1, "We're expecting 1 unit."),
        ("extra_hours", 3, "I'd like 3 more hours."),
        ("extra_hours", 1, "I'd like 1 more hour."),
        ("additional_nights", 1, "I'd like 1 more night."),
        ("additional_kw", 1, "I'd like 1 more kW."),
        ("nights", 1, "It's for 1 night."),
        ("copies", 1, "It's for 1 copy."),
    ],
)
def test_a_count_agrees_with_its_noun(name: str, value: int, said: str) -> None:
    assert detail(name, value) == said
    assert not miscounts(f"Please book it. {said}")


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    return generated_tasks(_DOMAINS)


def test_no_generated_request_says_one_with_a_plural(generated: list[tuple[EnvSpec, list[Task]]]) -> None:
    ones = 0
    for spec, tasks in generated:
        report = check_env(spec, tasks)
        assert report.ok, report.problems[:3]  # the oracle still solves every task
        assert request_counts(tasks).miscounted_tasks == 0, [t.instruction for t in tasks if miscounts(t.instruction)]
        ones += sum(" 1 person." in t.instruction or " 1 hour " in t.instruction for t in tasks)
    assert ones >= 3  # counts of one are still asked for, said in the singular


def test_more_of_a_thing_is_asked_for_as_more(generated: list[tuple[EnvSpec, list[Task]]]) -> None:
    instructions = [t.instruction for _, tasks in generated for t in tasks]
    assert not [i for i in instructions if " extra hour" in i]
    assert sum(" more hour" in i for i in instructions) >= 3
