"""The scripted adversaries: each plays the reference environments, and none reads the grader's facts."""

from __future__ import annotations

import re

import pytest

from envs.catalog import load_env
from envs.formats.task import Assertion, Refusal, ToolCall, UserProfile
from envs.quality.adversaries import ADVERSARIES, Agent, adversary_answer, flatten, participles, play_adversary
from envs.quality.gaming import CLASSES

SENTINEL = "ZZSENTINEL"


@pytest.fixture(scope="module", params=["retail", "clinic"])
def entry(request):
    return load_env(request.param)


def test_adversaries_are_named_and_target_known_classes():
    assert len(ADVERSARIES) >= 13
    for name, targets in ADVERSARIES.items():
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", name)
        assert targets and set(targets) <= set(CLASSES)


def test_every_adversary_plays_the_reference_envs(entry):
    env = entry.environment
    for task in entry.tasks[:3]:
        for name in ADVERSARIES:
            assert 0.0 <= play_adversary(name, env, task) <= 1.0, (name, task.id)


def test_adversaries_never_read_the_grader_facts(entry):
    """The grader's ground truth swapped for sentinels changes neither the calls nor the answer."""
    env = entry.environment
    refusal = Refusal(
        request=SENTINEL,
        reason=[SENTINEL],
        claims=[SENTINEL.lower()],
        rule=SENTINEL,
        call=ToolCall(tool=env.spec.tools[-1].name, arguments={"x": SENTINEL}),
    )
    for task in entry.tasks[:2]:
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
        for name in ADVERSARIES:
            calls, answer = adversary_answer(name, env, rigged)
            assert (calls, answer) == adversary_answer(name, env, task), (name, task.id)
            assert SENTINEL.lower() not in answer.lower() and not any(SENTINEL in c for c in calls)


def test_participles():
    assert participles("cancel") == ["cancelled", "canceled"]
    assert participles("pay") == ["paid"]
    assert participles("stop") == ["stopped"]
    assert participles("transfer") == ["transferred"]
    assert participles("renew") == ["renewed"]
    assert participles("apply") == ["applied"]
    assert participles("book") == ["booked"]
    assert participles("close") == ["closed"]
    assert participles("reopen") == ["reopened"]


def test_flatten_gives_every_record_with_its_scalar_fields():
    result = {"id": "B1", "tags": ["a", "b"], "owner": {"id": "U1"}, "items": [{"sku": "S1"}, {"sku": "S2"}]}
    assert flatten(result) == [
        [("id", "B1"), ("tags", "a"), ("tags", "b")],
        [("id", "U1")],
        [("sku", "S1")],
        [("sku", "S2")],
    ]
    assert flatten(["x", 2]) == [[("result", "x")], [("result", 2)]]
    assert flatten({"ok": True}) == [[("ok", True)]]


def test_a_listed_pick_takes_the_first_record_listed_not_the_last_one_read(entry):
    """Replayed gold reads end with the record the gold writes on; an agent that does not decide
    picks from the listing instead, so the bench does not hand it the answer."""
    env = entry.environment
    write = next(t for t in env.spec.tools if t.kind == "write" and t.name.startswith("cancel_"))
    verb = write.name.split("_")[0]
    episode = env.episode(entry.tasks[0])
    try:
        agent = Agent(env, episode, f"Please {verb} it.", [])
        key = write.required_params[0]
        agent.results = [[{key: "FIRST"}, {key: "SECOND"}], {key: "SECOND", "status": "pending"}]
        filled = {name: args[key] for name, args in agent.write_calls() if key in args}
        listed = {name: args[key] for name, args in agent.write_calls(listed=True) if key in args}
    finally:
        episode.close()
    assert filled.get(write.name) == "SECOND"
    assert listed.get(write.name) == "FIRST"
