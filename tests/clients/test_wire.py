"""The client's wire models (clients.wire) read the farm's JSON as the farm's own models (envs) write it.

The client distribution carries no ``envs``, so it has models of its own for the score, tool calls and
user profiles; these tests keep them field for field the same as the farm's.
"""

from __future__ import annotations

import re

import pydantic
import pytest

import envs.formats.task
import envs.grading.scoring
from clients import wire
from envs.catalog import load_env

PAIRS = [
    (envs.grading.scoring.Score, wire.Score),
    (envs.grading.scoring.CheckResult, wire.CheckResult),
    (envs.grading.scoring.TableDiff, wire.TableDiff),
    (envs.grading.scoring.ChangedRow, wire.ChangedRow),
    (envs.grading.scoring.ColumnChange, wire.ColumnChange),
    (envs.formats.task.ToolCall, wire.ToolCall),
    (envs.formats.task.UserProfile, wire.UserProfile),
]


@pytest.mark.parametrize(("farm_model", "client_model"), PAIRS, ids=[p[1].__name__ for p in PAIRS])
def test_each_wire_model_has_the_farm_models_fields(farm_model, client_model):
    farm_fields, client_fields = farm_model.model_fields, client_model.model_fields
    assert list(client_fields) == list(farm_fields)
    for name, field in farm_fields.items():
        assert client_fields[name].is_required() == field.is_required(), name
        assert client_fields[name].default == field.default, name
        # the same type, nested models being the client's own classes of the same names
        assert _unqualified(client_fields[name].annotation) == _unqualified(field.annotation), name


def _unqualified(annotation: object) -> str:
    return re.sub(r"\b[\w.]+\.(\w+)", r"\1", str(annotation))


def test_real_scores_read_back_equal_and_explain_the_same():
    entry = load_env("clinic")
    env, task = entry.environment, entry.tasks[0]
    assert task.gold_actions
    scores = []
    for calls, answer in [([], ""), (task.gold_actions[:1], "no idea"), (task.gold_actions, " ".join(task.outputs))]:
        episode = env.episode(task)
        episode.replay(calls)
        scores.append(envs.grading.scoring.score_episode(env, task, episode, answer=answer))
    assert {s.reward for s in scores} == {0.0, 1.0} and any(s.diff for s in scores)
    for score in scores:
        read = wire.Score.model_validate_json(score.model_dump_json())
        assert read.model_dump() == score.model_dump()
        assert read.explain() == score.explain()


def test_a_newer_farms_extra_fields_are_ignored_and_tool_calls_still_need_a_name():
    read = wire.ToolCall.model_validate({"tool": "book", "arguments": {"slot": 3}, "added_later": True})
    assert read.model_dump() == {"tool": "book", "arguments": {"slot": 3}}
    with pytest.raises(pydantic.ValidationError):
        wire.ToolCall.model_validate({"tool": ""})
    with pytest.raises(pydantic.ValidationError):
        envs.formats.task.ToolCall.model_validate({"tool": ""})
