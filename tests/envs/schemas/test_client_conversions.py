"""google-genai's own conversion run on the schemas clients see: it converts the default dialect, fails
on the strict one, and a missing google-genai is reported as not checked."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError

import pytest

from envs.catalog import load_env
from envs.schemas import client_conversions
from envs.schemas.client_conversions import google_genai_conversions, google_genai_problem
from envs.schemas.dialects import in_dialect


def _book() -> tuple[str, str, dict]:
    env = load_env("clinic").environment
    tool = next(t for t in env.spec.tools if t.name == "book_appointment")
    return tool.name, tool.description, env.advertised_parameters(tool.name)


def test_google_genai_converts_the_default_dialect_and_fails_the_strict_one():
    name, description, advertised = _book()
    problem = google_genai_problem(name, description, in_dialect(advertised, "strict"))
    assert problem == "AttributeError: 'bool' object has no attribute 'items'"
    assert google_genai_problem(name, description, in_dialect(advertised, "default")) is None


def test_a_missing_google_genai_is_not_checked_rather_than_passed(monkeypatch: pytest.MonkeyPatch):
    def absent(package: str) -> str:
        raise PackageNotFoundError(package)

    monkeypatch.setattr(client_conversions, "version", absent)
    assert google_genai_conversions([("clinic", *_book())]) is None
