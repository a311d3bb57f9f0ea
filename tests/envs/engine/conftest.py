"""Fixtures of the engine tests: one compiled environment per module, a fresh episode per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from envs.engine import Environment, Episode
from tests.envs.specs import shop_env

from .spec import ENGINE_SPEC


@pytest.fixture(scope="module")
def env() -> Environment:
    return shop_env(ENGINE_SPEC, step_budget=200_000)


@pytest.fixture
def ep(env: Environment) -> Iterator[Episode]:
    episode = env.episode()
    yield episode
    episode.close()
