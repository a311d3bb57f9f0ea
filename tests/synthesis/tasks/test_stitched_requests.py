"""Generated requests are whole (measure 115, docs/synthesis.md "Tasks stage"): a new record names
what it is for inside its own request ("a room arrangement for the same tour booking"), and a record
added to one just named is given no made-up reason of its own."""

from __future__ import annotations

import re

import pytest

from envs import Task, check_env
from envs.formats.spec import EnvSpec
from envs.quality.requests import is_stitched, request_counts
from tests.synthesis.tasks.generated import generated_tasks

#: Domains whose creates hang off a record the user just named (a room request on a tour booking, a
#: licence on an asset, a session on a membership).
_DOMAINS = ("guided_tour_packages", "stock_photo_licensing", "coworking_space_memberships")


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    return generated_tasks(_DOMAINS)


def test_no_generated_request_is_stitched_from_parts(generated: list[tuple[EnvSpec, list[Task]]]) -> None:
    inline = 0
    for spec, tasks in generated:
        assert len(tasks) == 30
        report = check_env(spec, tasks)
        assert report.ok, report.problems[:3]  # the oracle still solves every task
        assert request_counts(tasks).stitched_tasks == 0, [t.instruction for t in tasks if is_stitched(t.instruction)]
        inline += sum("for the same " in t.instruction and " It is for" not in t.instruction for t in tasks)
    assert inline >= 3  # the shape is still generated, said whole


def test_a_record_added_to_one_just_named_carries_no_reason_of_its_own(
    generated: list[tuple[EnvSpec, list[Task]]],
) -> None:
    follows = 0
    for _, tasks in generated:
        for task in tasks:
            reasons = [f for f in task.user.known_facts if f.startswith("Why I'm asking for a new")]
            for sentence in re.split(r"(?<=[.?!])\s+", task.instruction):
                if " for the same " in sentence and re.match(
                    r"^(?:I'd also like to|Could you|Please|I'd like to)", sentence
                ):
                    follows += 1
                    assert not any("belongs with it" in r or "in one go" in r for r in reasons), task.id
    assert follows >= 1
