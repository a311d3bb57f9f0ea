"""The verbose-answer corpus: at least eight styles, each a distinct answer for every task that has
refusals or outputs, none with JSON, the same on every call."""

from __future__ import annotations

from typing import Any

import pytest

from envs.catalog import load_env
from envs.quality.verbose_answers import STYLES, verbose_answers


def test_there_are_at_least_eight_distinct_styles():
    assert len(STYLES) >= 8
    assert len(set(STYLES)) == len(STYLES)


def _replayed(env_id: str) -> list[tuple[Any, Any, list[Any]]]:
    entry = load_env(env_id)
    env = entry.environment
    out = []
    for task in entry.tasks:
        episode = env.episode(task)
        results = [episode.call_tool(c.tool, c.arguments).content for c in task.gold_actions]
        out.append((env, task, results))
    return out


@pytest.mark.parametrize("env_id", ["retail", "clinic"])
def test_every_task_with_refusals_or_outputs_gets_distinct_answers(env_id):
    checked = 0
    for env, task, results in _replayed(env_id):
        answers = verbose_answers(env, task, results)
        if not (task.refusals or task.outputs):
            assert answers == {}
            continue
        checked += 1
        assert set(answers) == set(STYLES)
        assert len(set(answers.values())) >= 8, task.id
        for style, text in answers.items():
            assert text.strip(), (task.id, style)
            assert "{" not in text, (task.id, style, text)
        assert verbose_answers(env, task, results) == answers  # deterministic
    assert checked > 0


@pytest.mark.parametrize("env_id", ["retail", "clinic"])
def test_every_output_is_stated_in_every_style(env_id):
    for env, task, results in _replayed(env_id):
        answers = verbose_answers(env, task, results)
        for style in ("greeting_recap", "markdown", "numbered", "terse", "paragraph"):  # values as the task writes them
            for value in task.outputs:
                assert value in answers[style], (task.id, style, value)
