"""The strategies of a blind review of refusal and write-task grading fail the tasks they target, and
the correct answers beside them pass (docs/formats.md, "Answers"): a success hedged before a supposed
failure, every number of the policy listed bare, every record read said with its status, the policy
restated with no value, the writes made and then denied; and an enforced refusal relayed in the tool's
own words."""

from __future__ import annotations

import pytest

from envs import score_episode
from envs.engine import Environment
from envs.formats.task import Task
from envs.grading.answers import claimed, says_no
from envs.grading.tied import RecordNames, bare_numbers, other_records_statuses
from envs.grading.written import denied_writes
from envs.quality.blind_adversaries import BLIND_ADVERSARIES, blind_answer, play_blind
from envs.quality.classes import ENFORCED_REFUSAL, task_class
from envs.quality.gaming import AGENTS, TARGETS
from envs.quality.natural_answers import natural_answers
from envs.quality.reported_answers import reported_answers
from envs.quality.write_answers import write_answers

from .scoring_helpers import generated_domain, score_after_gold

#: Domains of the review whose enforced refusals rest on one status (those the strategies aimed at).
DOMAINS = ("podcast_ad_campaigns", "lab_test_orders", "beauty_loyalty_rewards")
#: The bound the issue sets on any gaming strategy, on the class it targets.
BOUND = 0.05


def _generated() -> tuple[tuple[Environment, tuple[Task, ...]], ...]:
    return tuple(generated_domain(name) for name in DOMAINS)


def _targets(name: str) -> list[tuple[Environment, Task]]:
    return [(env, t) for env, tasks in _generated() for t in tasks if task_class(env, t) in BLIND_ADVERSARIES[name]]


def test_the_review_strategies_are_held_agents_of_the_bench():
    for name, targets in BLIND_ADVERSARIES.items():
        assert name in AGENTS and TARGETS[name] == targets


@pytest.mark.parametrize("name", sorted(BLIND_ADVERSARIES))
def test_each_strategy_passes_at_most_the_bound_of_its_targets(name):
    tasks = _targets(name)
    assert len(tasks) >= 10
    passed = [(t.id, blind_answer(name, env, t)[1]) for env, t in tasks if play_blind(name, env, t) == 1.0]
    assert len(passed) <= BOUND * len(tasks), passed


def test_correct_refusals_still_pass_where_the_strategies_fail():
    refusals = _targets("echo-request")
    assert len(refusals) >= 10
    for env, task in refusals:
        assert score_after_gold(env, task, task.answer or "") == 1.0, task.id
        for form in ("reason-after", "because"):
            if answer := natural_answers(env, task).get(form):
                assert score_after_gold(env, task, answer) == 1.0, (task.id, form, answer)


def test_an_enforced_refusal_relayed_in_the_tools_words_passes():
    relayed = []
    for env, tasks in _generated():
        for task in tasks:
            if task_class(env, task) != ENFORCED_REFUSAL:
                continue
            episode = env.episode(task)
            try:
                results = [r.content for r in episode.replay(task.gold_actions)]
                answer = reported_answers(env, task, results).get("tool-message")
                if answer:
                    relayed.append(task.id)
                    reward = score_episode(env, task, episode, answer=answer).reward
                    assert reward == 1.0, (task.id, answer)
            finally:
                episode.close()
    assert len(relayed) >= 5


def test_writes_made_then_denied_fail_and_confirmations_pass():
    writes = _targets("write-act-then-deny")
    assert len(writes) >= 10
    for env, task in writes:
        assert play_blind("write-act-then-deny", env, task) == 0.0, task.id
        for form, answer in write_answers(env, task).items():
            assert score_after_gold(env, task, answer) == 1.0, (task.id, form, answer)


def test_a_hedged_success_is_a_claim_and_a_supposed_failure_no_refusal():
    hedged = "That should be all set now, I believe. If it didn't go through, it may be because it is draft."
    assert claimed(hedged, ["resumed"]) == "that should be all set now, i believe."
    assert not says_no("If it didn't go through, it may be because of the date.")
    # a success promised on a condition is no claim; a refusal relayed from the system is one
    assert claimed("It should be done once the campaign is paused, but I can't resume it now.", ["resumed"]) is None
    assert says_no("I tried, but the system would not let me resume your campaign: it is draft.")
    assert claimed("Your name change should be all set now, but I can't resume the campaign.", ["resumed"]) is None


def test_statuses_of_records_the_request_is_not_about_are_a_list_to_choose_from():
    labels = ["draft", "live", "paused"]
    about = RecordNames(frozenset({"AC0020"}), frozenset({"1Z216108809"}))
    assert other_records_statuses("I'm sorry, I can't. AC0020 is draft; AC0037 is live", labels, about) == ["AC0037"]
    assert other_records_statuses("AC0020 is draft; AC0020 is paused.", labels, about) == ["AC0020"]
    assert other_records_statuses("AC0020 is draft; 1Z216108809 is live.", labels, about) == ["1Z216108809"]
    assert (
        other_records_statuses("I can't resume AC0020: it's draft, and only paused ones resume.", labels, about) == []
    )
    assert bare_numbers("Our policy doesn't allow that: the limits are 1, 3, 30, 7, and it is submitted.")
    assert bare_numbers("It can be moved 1, 2 or 3 days ahead.") is None


def test_a_denial_said_against_the_policy_denies_the_writes():
    said = "I'm sorry, I wasn't able to make that change; our policy does not allow it."
    assert denied_writes(said, ["update_campaign_name"])
    assert denied_writes("Done: the name is changed. Our policy does not allow a second change later.", []) is None
