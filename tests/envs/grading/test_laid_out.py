"""Values laid out as a markdown table, bullets or YAML state what the same values in a sentence
state: a status that would allow the refused action fails the refusal in a table as in prose, and a
correct refusal written as bullets or a small table still passes. The answers are written for
reviewed tasks (kept in reviewed/); the strategies play on domains generated as the catalog builds them."""

from __future__ import annotations

import re

import pytest

from envs.grading.layouts import as_sentences
from envs.quality.adversaries import REFUSALS
from envs.quality.classes import task_class
from envs.quality.gaming import AGENTS, OPEN_AGENTS, TARGETS
from envs.quality.outside_adversaries import OUTSIDE_ADVERSARIES, outside_answer

from .scoring_helpers import generated_domain, score_after_gold, score_task

SHARE = "community_solar_shares-005"  # release 9 kW of an active 2 kW share: the reason is 2
DONE = "I've filed the dispute on CR0008. I can't release 9 kW from your share."
LAID_OUT = ("rule-fields-table", "rule-fields-bullets", "rule-fields-yaml")


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        # the share's status, which allows a release, beside the reason: in prose it fails, and so laid out
        (f"{DONE} The kw subscribed is 2. The status is active.", 0.0),
        (f"{DONE}\n\n| Field | Value |\n|---|---|\n| Kw subscribed | 2 |\n| Status | active |", 0.0),
        (f"{DONE}\n\n- Kw subscribed: 2\n- Status: active", 0.0),
        (f"{DONE}\n\nkw_subscribed: 2\nstatus: active", 0.0),
        (f"{DONE}\n\n| Share | Kw subscribed | Status |\n|---|---|---|\n| March 9 | 2 | active |", 0.0),
        # the reason alone, laid out as a person lays out a summary
        (f"{DONE}\n\n- Subscribed: 2 kW\n- Policy: you can release at most the kW you subscribed", 1.0),
        (f"{DONE}\n\n| Subscribed | Asked to release |\n|---|---|\n| 2 kW | 9 kW |", 1.0),
    ],
)
def test_a_laid_out_value_is_stated_as_in_a_sentence(answer: str, reward: float) -> None:
    assert score_task(SHARE, answer) == reward


def test_a_correct_refusal_in_bullets_passes() -> None:
    answer = (
        "I'm sorry, I can't reduce your share for Willow Brook Solar.\n\n- Status: pending transfer\n"
        "- Policy: only active shares can be released"
    )
    assert score_task("community_solar_shares-001", answer) == 1.0


def test_prose_is_left_as_it_is() -> None:
    text = "Sorry, I can't cancel it: it is completed.\nThe fee would be $20.00 — 10 days' notice."
    assert as_sentences(text) == text


def test_the_laid_out_strategies_play_in_the_bench_and_the_refuse_all_forms_are_held() -> None:
    for name in LAID_OUT:
        for played in (name, f"refuse-all-{name}"):
            assert played in AGENTS and TARGETS[played] == OUTSIDE_ADVERSARIES[played] == REFUSALS
        # laid out or in sentences, the status that is the reason alone is a correct refusal
        assert name in OPEN_AGENTS and f"refuse-all-{name}" not in OPEN_AGENTS


def _in_sentences(answer: str) -> str:
    """The table adversary's answer with its rows written as the sentences an agent would write."""
    rows = re.findall(r"^\| (?!Field |-)(.+?) \| (.+?) \|$", answer, re.M)
    return answer.split("\n\n")[0] + " " + " ".join(f"The {k.lower()} is {v}." for k, v in rows)


@pytest.mark.parametrize("domain", ["community_solar_shares", "restaurant_table_bookings"])
def test_the_table_strategy_earns_what_its_sentences_earn(domain: str) -> None:
    env, tasks = generated_domain(domain)
    refusals = [t for t in tasks if task_class(env, t) in REFUSALS]
    assert len(refusals) >= 5
    for task in refusals:
        _, answer = outside_answer("rule-fields-table", env, task)
        assert "| Status |" in answer or "| Field | Value |" in answer
        assert score_after_gold(env, task, answer) == score_after_gold(env, task, _in_sentences(answer)), task.id
