"""Task instantiation: verified by execution, unique facts, checklists, difficulty, determinism."""

from __future__ import annotations

import re

from envs import Environment, check_env, score_episode
from synthesis.tasks.taskgen import Chain, TaskGenerator, generate_tasks
from synthesis.tools.envgen import generate_env

from ..domains import library


def _tasks(count: int = 30, seed: int = 1):
    d = library()
    g = generate_env(d, seed=seed)
    tasks, rejections = generate_tasks(d, g.spec, g.meta, count=count, seed=seed)
    return d, g, tasks, rejections


def test_every_task_is_verified_by_gold_replay():
    _, g, tasks, _ = _tasks()
    assert len(tasks) == 30
    report = check_env(g.spec, tasks)
    assert report.ok, report.problems
    assert report.tasks_passed == 30
    assert not report.warnings  # every required output is produced by some gold call


def test_tasks_mix_kinds_lengths_and_difficulties():
    _, _, tasks, _ = _tasks()
    assert sum(len(t.gold_actions) >= 4 for t in tasks) / len(tasks) >= 0.3
    assert {t.difficulty for t in tasks} >= {"easy", "medium"}
    info = [t for t in tasks if not t.expects_change]
    writes = [t for t in tasks if t.expects_change]
    assert info and writes
    assert all(t.outputs or t.refusals for t in info) and all(t.assertions for t in writes)
    assert any(
        sum(1 for a in t.gold_actions if a.tool.split("_")[0] in ("return", "renew", "report", "pay", "reinstate")) >= 2
        for t in writes
    )


def test_instructions_state_the_facts_the_gold_calls_use():
    _, _, tasks, _ = _tasks()
    for t in tasks:
        first = t.gold_actions[0]
        said = " ".join([t.instruction, *t.user.known_facts, *t.user.reveal_if_asked])
        for value in first.arguments.values():
            assert str(value) in said, (t.id, said)
        assert t.user.persona and (t.user.known_facts or t.user.reveal_if_asked)


def test_a_wrong_action_scores_zero_with_partial_credit():
    _, g, tasks, _ = _tasks()
    env = Environment(g.spec)
    task = next(t for t in tasks if t.expects_change and len(t.assertions) >= 2)
    ep = env.episode(task)
    last_write = max(i for i, a in enumerate(task.gold_actions) if g.spec.tool(a.tool).kind == "write")  # type: ignore[union-attr]
    ep.replay(task.gold_actions[:last_write])  # everything before the final write
    score = score_episode(env, task, ep, answer=" ".join(task.outputs))
    assert score.reward == 0.0 and 0.0 <= score.partial_credit < 1.0
    assert score.diff


def test_ambiguous_user_facts_are_not_used():
    d = library()
    g = generate_env(d, seed=1)
    data = g.spec.model_dump(mode="json")
    members = data["seed"]["members"]
    twin = dict(members[1], member_id="M0999", email="twin@example.com")
    twin["full_name"], twin["date_of_birth"] = members[0]["full_name"], members[0]["date_of_birth"]
    members.append(twin)
    from envs.formats.spec import EnvSpec

    spec = EnvSpec.model_validate(data)
    gen = TaskGenerator(d, spec, g.meta, Environment(spec), seed=1)
    for _ in range(40):  # whichever way it is asked to identify member 0, it must not use name + birth date
        chain = Chain(user_id=members[0]["member_id"])
        assert gen.identify_user(chain)
        assert chain.calls[0]["tool"] == "find_member_by_email"


def test_same_seed_same_tasks_and_different_seed_different_tasks():
    a = [t.model_dump() for t in _tasks(seed=1)[2]]
    b = [t.model_dump() for t in _tasks(seed=1)[2]]
    c = [t.model_dump() for t in _tasks(seed=2)[2]]
    assert a == b and a != c


def test_required_outputs_are_values_from_the_final_state():
    _, g, tasks, _ = _tasks()
    env = Environment(g.spec)
    for t in [t for t in tasks if t.outputs and t.expects_change]:
        ep = env.episode(t)
        results = [r.content for r in ep.replay(t.gold_actions)]
        text = str(results)
        for out in t.outputs:
            assert re.search(re.escape(out), text), (t.id, out)


def test_information_tasks_do_not_give_away_the_answer():
    from envs.grading.outputs import as_number

    _, _, tasks, _ = _tasks(count=40, seed=3)
    info = [t for t in tasks if not t.expects_change]
    assert any("information" in t.tags for t in info)  # refusals come with a write beside them now
    for t in info:  # neither the value asked for nor (in how the record is named) the reason for a refusal
        said = t.instruction if "information" in t.tags else " ".join(t.user.known_facts)
        for out in t.outputs:
            if as_number(out) is None:
                assert out.lower() not in said.lower(), (t.id, said, out)
