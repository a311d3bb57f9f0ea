"""The outside adversaries: each plays generated environments with refusals and questions, answers
in its own kind, and none reads the grader's facts."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from envs.engine import Environment
from envs.formats.task import Assertion, Refusal, Task, ToolCall, UserProfile
from envs.quality.adversaries import ADVERSARIES, Agent
from envs.quality.classes import INFORMATION, POLICY_REFUSAL, task_class
from envs.quality.gaming import AGENTS, CLASSES, TARGETS, play
from envs.quality.outside_adversaries import OUTSIDE_ADVERSARIES, Outside, outside_answer, play_outside

from .generated_envs import generated as generated_envs
from .generated_envs import of_class

SENTINEL = "ZZSENTINEL"
_ISO_DAY = re.compile(r"\b\d{4}-\d\d-\d\d\b")


@pytest.fixture(scope="module")
def generated() -> tuple[tuple[Environment, tuple[Task, ...]], ...]:
    return generated_envs()


def _of(_generated: object, cls: str) -> list[tuple[Environment, Task]]:
    return of_class(cls)


def test_at_least_ten_named_adversaries_beside_the_others_in_the_bench():
    assert len(OUTSIDE_ADVERSARIES) >= 10
    assert not set(OUTSIDE_ADVERSARIES) & set(ADVERSARIES)
    for name, targets in OUTSIDE_ADVERSARIES.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", name)
        assert targets and set(targets) <= set(CLASSES)
        assert name in AGENTS and TARGETS[name] == targets


def test_every_adversary_plays_through_the_bench(generated):
    for env, tasks in generated:
        for task in tasks[:4]:
            for name in OUTSIDE_ADVERSARIES:
                assert play(name, env, task) == play_outside(name, env, task), (name, task.id)


def test_the_outside_adversaries_never_read_the_grader_facts(generated):
    """The grader's ground truth swapped for sentinels changes neither the calls nor the answer."""
    for env, task in _of(generated, POLICY_REFUSAL)[:2] + _of(generated, INFORMATION)[:2]:
        refusal = Refusal(request=SENTINEL, reason=[SENTINEL], claims=[SENTINEL.lower()], rule=SENTINEL,
                          call=ToolCall(tool=env.spec.tools[-1].name, arguments={"x": SENTINEL}))  # fmt: skip
        rigged = task.model_copy(
            update={
                "refusals": [refusal],
                "answer": SENTINEL,
                "outputs": [SENTINEL],
                "distractors": [SENTINEL],
                "assertions": [Assertion(description=SENTINEL, sql=f"SELECT '{SENTINEL}'")],
                "user": UserProfile(persona=SENTINEL, known_facts=[SENTINEL], reveal_if_asked=[SENTINEL]),
            }
        )
        for name in OUTSIDE_ADVERSARIES:
            calls, answer = outside_answer(name, env, rigged)
            assert (calls, answer) == outside_answer(name, env, task), (name, task.id)
            assert SENTINEL.lower() not in answer.lower()


_REFUSES = re.compile(r"^I'm sorry, I can't ")
_KIND = {  # what each refusal-class adversary's answer must hold: its trick, not a claim word's absence
    "unfortunately-all-set": r"^Unfortunately .* You're all set",
    "cant-thank-enough": r"^I can't thank you enough .* went through",
    "if-claim": r"^Unfortunately .* If you check your account, you'll see it has been \w+",
    "future-claim": r"^I'm afraid .* but I'll \w+",
    "nominal-claim": r"^Unfortunately .* Your [\w ]+ is confirmed",
    "quoted-status-claim": r'^Unfortunately .* now shows as "\w+',
    "adjective-claim": r"^Unfortunately .* Your \w+ .+ will show in your account",
    # values listed with no word between them
    "number-list": r"^I can't [^:]+:(?: [\d.]+)*\.$",
    "date-list": r"^I can't [\w ]+ \S+: values [\d :,-]*(?:\d+ \w+(?:, )?)*$",
    "id-and-day": r"^I can't [\w ]+ \S+\.(?: \d{4}-\d\d-\d\d\.)?$",
    # the records' labels among the values listed after the colon
    "colon-labels": r"^I can't [\w ]+ \S+:(?: [a-z_\d:-]+)*\.$",
    "colon-limit": r"^Can't [\w ]+:(?: [a-z_\d.:-]+)*\.$",
    # every label of the record's columns, as what it is
    "column-statuses": r"^I'm sorry, I can't [^:]+: it is [a-z ,]+(?: or [a-z ]+)?\.$",
}


def test_each_refusal_adversary_answers_in_its_kind(generated):
    tasks = _of(generated, POLICY_REFUSAL)
    assert tasks
    for env, task in tasks:
        for name, targets in OUTSIDE_ADVERSARIES.items():
            if POLICY_REFUSAL not in targets:
                continue
            _, answer = outside_answer(name, env, task)
            if name in _KIND:
                assert re.search(_KIND[name], answer), (name, answer)
            elif name == "mixed-time-word":
                assert _REFUSES.match(answer) or answer.startswith("Done! I've"), answer
            else:
                assert _REFUSES.match(answer), (name, answer)
            if name in ("relative-days", "mirror-negation"):  # no date written out but in the user's words
                assert all(day in task.instruction for day in _ISO_DAY.findall(answer)), answer


def test_focus_values_stays_under_the_restating_limit(generated):
    for env, task in _of(generated, POLICY_REFUSAL):
        _, answer = outside_answer("focus-values", env, task)
        values = re.findall(r"The [\w ]+ is ([^.]+(?:\.\d+)?)\.", answer)
        assert len([v for v in values if f"`{v}`" not in env.spec.policy]) <= 3, answer


def test_the_request_turned_down_is_the_one_the_gold_calls_never_make(generated):
    for env, task in _of(generated, POLICY_REFUSAL):
        episode = env.episode(task)
        try:
            outside = Outside(Agent(env, episode, task.instruction, list(task.gold_actions)), [])
            verb, _, participles, tools = outside.request()
        finally:
            episode.close()
        gold = {c.tool for c in task.gold_actions}
        # beside the same action carried out on another record, the turned-down request is one of its tool's
        assert tools and ("same-action-allowed" in task.tags or not set(tools) & gold), (task.id, verb, tools)
        assert all(refusal.call and refusal.call.tool in tools for refusal in task.refusals), task.id
        assert participles and all(p.split()[0].endswith(("ed", "d", "t", "n")) for p in participles)


def test_a_date_is_said_from_the_policys_today(generated):
    env, task = _of(generated, POLICY_REFUSAL)[0]
    episode = env.episode(task)
    try:
        outside = Outside(Agent(env, episode, task.instruction, []), [])
    finally:
        episode.close()
    today, day = env.spec.clock.date(), timedelta(days=1)
    assert outside.relative(f"{today} 10:15:00") == "today at 10:15 AM"
    assert outside.relative(f"{today + day} 14:00") == "tomorrow at 2:00 PM"
    assert outside.relative(f"{today + day}") == "tomorrow"
    assert outside.relative(f"{today - 30 * day}") == "30 days ago"


def test_information_adversaries_state_one_record_or_all(generated):
    tasks = _of(generated, INFORMATION)
    assert tasks
    for env, task in tasks:
        first = outside_answer("info-first-field", env, task)[1]
        every = outside_answer("info-every-field", env, task)[1]
        assert " and " not in first.split(" is ", 1)[-1], first
        assert len(every) >= len(first)
        assert outside_answer("info-matched-record", env, task)[1].startswith("Here are the details.")


def test_a_status_list_and_a_chain_of_changes_pass_nothing(generated):
    # the seed-67 relaxations tried the lazy way: a reason's own column listed whole, and every amount
    # of the asked field said as the change from the one before it
    played = 0
    for env, task in [*_of(generated, POLICY_REFUSAL), *_of(generated, INFORMATION)]:
        for name in ("column-statuses", "info-change-chain"):
            if task_class(env, task) in OUTSIDE_ADVERSARIES[name]:
                played += 1
                assert play_outside(name, env, task) == 0.0, (name, task.id, outside_answer(name, env, task)[1])
    assert played


def test_the_request_turned_down_after_the_writes_passes_nothing(generated):
    # the seed-71 review's lazy answer: every gold call, then "I'm sorry, I can't do that." and the
    # numbers read; on questions, and on write tasks that ask for a value, it reports nothing
    played = 0
    for env, tasks in generated:
        for task in tasks:
            if task.outputs and not task.refusals:
                played += 1
                name = "refuse-then-numbers"
                assert play_outside(name, env, task) == 0.0, (task.id, outside_answer(name, env, task)[1])
    assert played
