"""Generated instructions in a customer's voice (docs/synthesis.md, "Customer voice"): each question
asked once, "one of my …" only where two of the user's records could be meant, and the way a user
names themselves drawn from enough forms that no one opening marks a catalog."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from envs import Environment, Task, check_env
from envs.formats.spec import EnvSpec
from envs.quality.customer_voice import SEVERAL, customer_voice, opening, unfounded
from synthesis.tasks.asked_values import ask_after_writes
from synthesis.tasks.chain import Chain, Goal
from synthesis.tasks.phrasing import EMAIL_FACTS, NAME_FACTS, Phrasing
from tests.envs.quality.test_customer_voice import LAYAWAYS
from tests.synthesis.tasks.generated import generated_tasks

#: Measuring domains where a user resumes one membership and pauses another, or holds several parcels.
_DOMAINS = ("car_wash_memberships", "parcel_delivery_exceptions")


@pytest.fixture(scope="module")
def generated() -> list[tuple[EnvSpec, list[Task]]]:
    return generated_tasks(_DOMAINS)


def test_one_of_my_is_said_only_where_two_records_could_take_the_request(
    generated: list[tuple[EnvSpec, list[Task]]],
) -> None:
    claims = another = 0
    for spec, tasks in generated:
        assert len(tasks) == 30
        report = check_env(spec, tasks)
        assert report.ok, report.problems[:3]  # the oracle still solves every task
        env = Environment(spec)
        for task in tasks:
            if SEVERAL.search(task.instruction):
                claims += 1
                another += "another one of my" in task.instruction
                assert not unfounded(env, task), (task.id, task.instruction)
        assert customer_voice(env, tasks).repeated_questions == 0, spec.id
    assert claims >= 3 and another >= 1  # the vague forms are still used where they fit


def _paid_twice() -> tuple[Chain, dict[str, str]]:
    """A chain where the user paid off both layaways."""
    env = Environment(
        EnvSpec.model_validate(
            {
                **LAYAWAYS,
                "seed": {
                    **LAYAWAYS["seed"],
                    "layaways": [
                        {"layaway_id": "L1", "customer_id": "C1", "status": "open"},
                        {"layaway_id": "L2", "customer_id": "C1", "status": "open"},
                    ],
                },
            }
        )
    )
    chain = Chain.start(env, "C1")
    for key, phrase in (("L1", "my layaway for the bike"), ("L2", "my layaway for the lamp")):
        chain.call("pay_off_layaway", layaway_id=key)
        chain.goals.append(Goal("pay_off_layaway", "layaway", key, "pay_off", phrase))
    return chain, {"layaway": "layaways", "customer": "customers"}


def test_values_of_one_name_on_two_records_share_one_question() -> None:
    chain, tables = _paid_twice()
    # one name, two values: asked as two identical "tell me my new layaway id." before
    chain.outputs[:] = [("layaways", "L1", "layaway_id"), ("layaways", "L2", "layaway_id")]
    outputs: list[str] = []
    sentences: list[str] = []
    try:
        ask_after_writes(chain, tables, "customers", Phrasing(random.Random(3)), outputs, sentences)
    finally:
        chain.close()
    assert outputs == ["L1", "L2"]
    assert len(chain.requests) == 1 and "of each" in chain.requests[0]
    assert [s.split(" is now")[0] for s in sentences] == [
        "The layaway id of your layaway for the bike",
        "The layaway id of your layaway for the lamp",
    ]


def test_the_user_names_themselves_in_many_forms() -> None:
    say = Phrasing(random.Random(0))
    said = [say.email_fact(f"user{i}@example.com") for i in range(400)]
    assert all(f"user{i}@example.com" in s for i, s in enumerate(said))
    openings = Counter(opening(s) for s in said)
    assert len(openings) >= len(EMAIL_FACTS) - 1 and max(openings.values()) < 0.15 * len(said)
    names = [say.name_fact(f"Ann Lee{i}", "date_of_birth", "1980-01-02") for i in range(200)]
    assert len({opening(s) for s in names}) >= len(NAME_FACTS) - 1
    assert all("1980-01-02" in s and "date of birth" in s for s in names)
