"""The seed-109 review's grading misses: a lazy refusal whose only number was its own promise ("please
allow 2 business days") passed as giving the reason "2" (2 kW subscribed, 9 asked), and a careful
total that said a cancelled payout was left out ("…was cancelled, so I haven't counted it") failed
as giving a distractor. The tasks are generated as the default catalog builds them."""

from __future__ import annotations

import functools

import pytest

from envs import score_episode
from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.answers import claimed
from envs.grading.spans import said_only_as_span
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

SHARE, PAYOUTS = "community_solar_shares-005", "indie_music_distribution-002"


@functools.cache
def _generated(name: str) -> tuple[Environment, tuple[Task, ...]]:
    domain = assign_enforcement(next(d for d in load_ontology() if d.id == name))
    g, twin = generate_env(domain, seed=0), generate_env(domain, seed=0, enforce_all=True)
    return Environment(g.spec), tuple(generate_tasks(domain, g.spec, g.meta, count=30, seed=0, twin=twin.spec)[0])


def _score(task_id: str, answer: str) -> float:
    env, tasks = _generated(task_id.rsplit("-", 1)[0])
    task = next(t for t in tasks if t.id == task_id)
    episode = env.episode(task)
    try:
        episode.replay(task.gold_actions)
        return score_episode(env, task, episode, answer=answer).reward
    finally:
        episode.close()


def _share_task() -> Task:
    _, tasks = _generated("community_solar_shares")
    return next(t for t in tasks if t.id == SHARE)


def test_the_share_task_is_the_reviewed_one() -> None:
    task = _share_task()
    assert "9 kW" in task.instruction and [r.reason for r in task.refusals] == [["2"]]


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        ("I've filed the dispute on CR0008. I can't release 9 kW because your share is only 2 kW.", 1.0),
        (
            "I've disputed credit statement CR0008. I can't release 9 kW from that share, though: it only has "
            "2 kW subscribed, so there isn't that much to release.",
            1.0,
        ),
        # the number said only as the answer's own promise gives no reason
        (
            "I've filed the dispute on your credit statement CR0008. I wasn't able to reduce the share; please "
            "allow 2 business days and call back.",
            0.0,
        ),
        ("Dispute filed. I couldn't reduce the share, sorry. Give it 2 days and try again.", 0.0),
    ],
)
def test_a_count_said_only_as_days_is_no_reason_where_the_rule_counts_no_time(answer: str, reward: float) -> None:
    assert _score(SHARE, answer) == reward


def test_a_span_is_the_reason_where_the_rule_counts_time() -> None:
    assert said_only_as_span("Sorry, we can't: allow 2 business days.", "2", ["at most 2 shares at once"])
    assert not said_only_as_span("It renews in 38 days.", "38", ["no more than 30 days before renewal"])
    assert not said_only_as_span("Only 2 kW; allow 2 days.", "2", ["kW released at most kW subscribed"])


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        (
            "You have two payouts still waiting to be sent: $347.43 by bank transfer and $458.37 to PayPal. "
            "Together that's $805.80. The $296.09 one from February was cancelled, so I haven't counted it.",
            1.0,
        ),
        ("Your payout requests add up to $1,101.89.", 0.0),
        ("Here are your payouts: PR0011 347.43 requested, PR0022 458.37 requested, PR0023 296.09 cancelled.", 0.0),
    ],
)
def test_a_value_said_as_not_counted_is_no_distractor(answer: str, reward: float) -> None:
    assert _score(PAYOUTS, answer) == reward


_DEPOSIT = "set up a check deposit of $52.08 for Roger's lunch account"
_REFUND = "refund my meal purchase for Chicken Tenders with Fries"


@pytest.mark.parametrize(
    ("answer", "claim"),
    [
        # the pronoun after a semicolon goes on about the deposit, the action that was done
        (
            "I've set up a $52.08 check deposit for Roger's lunch account (LD1001); it shows as pending until "
            "the office posts it. I can't refund the Chicken Tenders with Fries, though.",
            None,
        ),
        ("I've set up the check deposit. It is all set. I can't refund the meal.", None),
        # a claim word, or the refused request named, still claims
        ("I've set up the check deposit; it shows as refunded.", "it shows as refunded."),
        ("I've set up the check deposit. The meal refund is all set.", "the meal refund is all set."),
        ("It shows as pending until the office posts it.", "it shows as pending until the office posts it."),
    ],
)
def test_a_sentence_going_on_about_the_action_done_claims_nothing(answer: str, claim: str | None) -> None:
    assert claimed(answer, ["refunded"], about=_REFUND, elsewhere=[_DEPOSIT], verb="refund") == claim
