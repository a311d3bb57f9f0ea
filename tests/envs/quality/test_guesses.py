"""The guessing agent: a question answered with no call, from the policy and the tools alone. It wins a
question whose only output is a label at the odds of a guess, and none of the generated ones."""

from __future__ import annotations

import pytest

from envs.engine import Environment
from envs.formats.task import Assertion, Task, UserProfile
from envs.grading.scoring import score_episode
from envs.quality.classes import INFORMATION, task_class
from envs.quality.gaming import AGENTS, OPEN_AGENTS, TARGETS, play
from envs.quality.guesses import GUESS_ADVERSARIES, NAME, guess, guess_answer, play_guess, visible_columns

from .generated_envs import LABELLED, of_class
from .generated_envs import generated as generated_envs

SENTINEL = "ZZSENTINEL"


@pytest.fixture(scope="module")
def questions() -> list[tuple[Environment, Task]]:
    found = of_class(INFORMATION) + [
        (env, t) for env, tasks in generated_envs(LABELLED) for t in tasks if task_class(env, t) == INFORMATION
    ]
    assert len(found) >= 4
    return found


def _labels(env: Environment) -> set[str]:
    return {v.replace("_", " ") for t in env.spec.tables for c in t.columns if c.enum for v in c.enum}


def test_held_to_the_bound_in_the_bench():
    assert NAME in AGENTS and TARGETS[NAME] == GUESS_ADVERSARIES[NAME] == (INFORMATION,)
    assert NAME not in OPEN_AGENTS


def test_it_reads_only_what_an_agent_sees_before_a_call(questions):
    """The grader's ground truth and the user's hidden facts swapped for sentinels change nothing."""
    for env, task in questions[:4]:
        rigged = task.model_copy(
            update={
                "answer": SENTINEL,
                "outputs": [SENTINEL],
                "distractors": [SENTINEL],
                "assertions": [Assertion(description=SENTINEL, sql=f"SELECT '{SENTINEL}'")],
                "user": UserProfile(persona=SENTINEL, known_facts=[SENTINEL], reveal_if_asked=[SENTINEL]),
                "gold_actions": [],
            }
        )
        assert guess_answer(env, rigged) == guess_answer(env, task)


def test_it_names_the_asked_column_and_wins_a_label_only_question(questions):
    """On each generated question of a label, the guess is a value of the asked column; asked alone
    (the label the only output), the question is won whenever the guess is right."""
    labelled = [(env, t) for env, t in questions if t.outputs and t.outputs[0] in _labels(env)]
    assert labelled
    for env, task in labelled:
        found = guess(env, task.instruction)
        assert found is not None, task.instruction
        column, value = found
        assert task.outputs[0] in {v.replace("_", " ") for v in column.values}, (task.id, column)
        alone = task.model_copy(update={"outputs": [value.replace("_", " ")], "distractors": []})
        episode = env.episode(alone)
        try:
            assert score_episode(env, alone, episode, answer=guess_answer(env, alone)).reward == 1.0
        finally:
            episode.close()


def test_it_wins_none_of_the_generated_questions(questions):
    """Every question of a label also asks for a value only the read gives: no guess answers it."""
    for env, task in questions:
        assert play(NAME, env, task) == play_guess(NAME, env, task) == 0.0, task.id


def test_an_unnamed_column_is_no_guess(questions):
    env, task = questions[0]
    assert visible_columns(env)
    assert guess(env, "Hello, can you help me?") is None
    assert "not able" in guess_answer(env, task.model_copy(update={"instruction": "Hello, can you help me?"}))
