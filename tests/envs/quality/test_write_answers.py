"""Write tasks measured as the grader is measured: correct confirmations in many forms pass, and the
agents that make the writes and then misreport them (said undone, or an asked value's old and new
values listed bare) earn nothing on the classes they target."""

from __future__ import annotations

from functools import cache

from envs.engine import Environment
from envs.grading.scoring import score_episode
from envs.quality.classes import USER_ACTS, WRITE, WRITE_VALUE, task_class
from envs.quality.gaming import play
from envs.quality.write_adversaries import WRITE_ADVERSARIES
from envs.quality.write_answers import WRITE_FORMS, write_answers
from synthesis.dual import build_dual_env, built_in_domains

from .generated_envs import generated, of_class


@cache
def dual_env() -> tuple[Environment, tuple]:
    spec, tasks = build_dual_env(built_in_domains()[0], seed=0)
    return Environment(spec), tuple(tasks)


def _write_tasks():
    env, tasks = dual_env()
    return [*of_class(WRITE), *of_class(WRITE_VALUE), *((env, t) for t in tasks)]


def test_there_are_write_tasks_of_each_kind_to_measure():
    classes = [task_class(env, t) for env, t in _write_tasks()]
    assert {WRITE, WRITE_VALUE, USER_ACTS} <= set(classes)


def test_every_correct_confirmation_passes():
    assert len(WRITE_FORMS) >= 10
    failures = []
    for env, task in _write_tasks():
        episode = env.episode(task)
        try:
            episode.replay(task.gold_actions)
            answers = write_answers(env, task)
            assert set(answers) == set(WRITE_FORMS)
            for form, text in answers.items():
                if score_episode(env, task, episode, answer=text).reward != 1.0:
                    failures.append((task.id, form, text))
        finally:
            episode.close()
    assert failures == []


def test_a_changed_value_is_said_with_what_it_was_in_some_forms():
    said = [
        text
        for env, task in of_class(WRITE_VALUE)
        for form, text in write_answers(env, task).items()
        if form in ("done-dash", "all-set", "bullets")
    ]
    assert any(" went from " in t for t in said) and any("(previously " in t for t in said)
    assert any(" → " in t for t in said)


def test_no_agent_that_misreports_the_writes_passes_where_it_aims():
    for agent, targets in WRITE_ADVERSARIES.items():
        aimed = [(env, t) for env, t in _write_tasks() if task_class(env, t) in targets]
        passed = [t.id for env, t in aimed if play(agent, env, t) == 1.0]
        assert aimed and len(passed) <= 0.05 * len(aimed), (agent, passed)


def test_dual_control_tasks_grade_the_answer_and_the_oracle_still_passes():
    env, tasks = dual_env()
    assert all("outputs" in t.reward_basis for t in tasks)
    assert all(play("oracle", env, t) == 1.0 for t in tasks)
    assert all(play("sorry-after-acting", env, t) == 0.0 for t in tasks)


def test_the_same_agents_pass_tasks_they_do_not_target():
    # a write task that asks for nothing: a bare list of values read is no misreport of the writes
    env, task = of_class(WRITE)[0]
    assert play("amounts-read", env, task) == 1.0
    assert generated()  # the generated environments are those of the other gaming tests
