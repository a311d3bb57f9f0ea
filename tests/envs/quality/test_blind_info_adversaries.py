"""The blind information strategies (a record by its place in the results, sums by status, pairwise
comparisons): each fails the generated questions it targets, while correct answers still pass."""

from __future__ import annotations

import pytest

from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.outputs import as_number, numbers_in
from envs.grading.restating import dumped_records
from envs.quality.blind_info_adversaries import BLIND_INFO_ADVERSARIES, blind_info_answer, play_blind_info
from envs.quality.classes import INFORMATION, task_class
from envs.quality.gaming import AGENTS, OPEN_AGENTS, TARGETS

from ..grading.scoring_helpers import score_after_gold
from .generated_envs import generated as generated_envs

#: Two of the domains the reviewer measured on: memberships and redemptions in several states each.
DOMAINS = ("car_wash_memberships", "beauty_loyalty_rewards")


@pytest.fixture(scope="module")
def questions() -> list[tuple[Environment, Task]]:
    return [
        (env, task) for env, tasks in generated_envs(DOMAINS) for task in tasks if task_class(env, task) == INFORMATION
    ]


def test_the_four_are_held_agents_of_the_bench_on_information_tasks():
    assert set(BLIND_INFO_ADVERSARIES) == {
        "info-last-detail",
        "info-first-in-list",
        "info-sum-by-status",
        "info-comparisons",
    }
    for name in BLIND_INFO_ADVERSARIES:
        assert name in AGENTS and TARGETS[name] == (INFORMATION,)
    # the last record read is the asked one's details: where it holds only what was asked and what the
    # user named it by, its every field is the correct answer, so it is measured apart
    assert {n for n in BLIND_INFO_ADVERSARIES if n in OPEN_AGENTS} == {"info-last-detail"}


def test_each_strategy_passes_at_most_one_question_and_the_reference_answers_all(questions):
    assert len(questions) >= 6
    for env, task in questions:
        assert score_after_gold(env, task, task.answer or " ".join(task.outputs)) == 1.0, task.id
    for name in BLIND_INFO_ADVERSARIES:
        passed = [task.id for env, task in questions if play_blind_info(name, env, task) == 1.0]
        assert len(passed) <= max(1, 0.05 * len(questions)), (name, passed)


def test_a_sum_over_every_state_fails_a_total_of_one_state_and_the_total_alone_passes(questions):
    totals = [(env, task) for env, task in questions if "total" in task.instruction.lower()]
    assert totals
    for env, task in totals:
        total = as_number(task.outputs[0])
        _, answer = blind_info_answer("info-sum-by-status", env, task)
        if total is None or total not in numbers_in(answer):
            continue
        # the right sum is among those it says, beside another state's: that is no answer
        assert score_after_gold(env, task, answer) == 0.0, (task.id, answer)
        assert any(as_number(d) in numbers_in(answer) for d in task.distractors), (task.id, answer)
        for correct in (
            f"Your total comes to ${total:,.2f}.",
            f"Altogether that's {total:.2f} dollars.",
            f"Adding them up, I get ${total:,.2f} in total.",
        ):
            assert score_after_gold(env, task, correct) == 1.0, (task.id, correct)
        return
    pytest.fail("no total question whose answer the sum-by-status strategy states")


#: A redemption as beauty_loyalty_rewards' details tool returns it: four keys and four values.
REDEMPTION = {
    "redemption_id": "RD0011",
    "member_id": "MB0032",
    "reward_id": "RW0011",
    "store_id": "SO0006",
    "redemption_code": "RDM-521141307",
    "points_spent": 926,
    "pickup_by": "2026-05-15",
    "status": "reserved",
}
ASKED = "What is the status of my redemption with redemption code RDM-521141307, and its pickup by date?"


def test_every_field_but_the_keys_reads_a_record_out_whatever_share_the_keys_make():
    every = "The redemption code is RDM-521141307. The points spent is 926. The pickup by is 2026-05-15. The status is reserved."
    read = dumped_records(every, [REDEMPTION], ["reserved", "2026-05-15"], ASKED, names={"MB0032", "RD0011"})
    assert read == ["RD0011"]
    for correct in (
        "Your redemption RDM-521141307 is reserved; please pick it up by May 15, 2026.",
        "It's reserved, and the pickup deadline is 15 May 2026.",
        "Status: reserved. Pickup by: 05/15/2026.",
    ):
        assert dumped_records(correct, [REDEMPTION], ["reserved", "2026-05-15"], ASKED, names={"RD0011"}) == []


def test_of_three_fields_only_the_status_may_be_said_beside_the_asked_one_and_the_users_words():
    credit = {"store_credit_id": "SC4", "customer_id": "CU2", "amount": 168.01, "reason": "guarantee_return"}
    credit |= {"issued_on": "2026-01-26"}
    asked = "When was my store credit of 168.01 issued?"
    every = "The amount is 168.01. The reason is guarantee_return. The issued on is 2026-01-26."
    assert dumped_records(every, [credit], ["2026-01-26"], asked, names={"SC4"}) == ["SC4"]
    assert dumped_records("It was issued on January 26, 2026.", [credit], ["2026-01-26"], asked) == []
    order = {"order_id": "O1", "user_id": "U1", "placed_at": "2026-01-10 10:00:00", "total": 30.0, "status": "pending"}
    context = "Your order O1, placed January 10, 2026 at 10:00 AM, totals $30.00. It's pending."
    assert (
        dumped_records(context, [order], ["30.0"], "my order placed January 10, 2026 at 10:00 AM", names={"O1"}) == []
    )
