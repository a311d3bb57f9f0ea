"""Shared fixtures: one real farm (the embedded server, over TCP) and one fake LLM API per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients import EvalConfig
from envfarm.embedded import EmbeddedServer

from .fakes import FakeLLM


@pytest.fixture(scope="session")
def farm_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real farm (``server.api.create_app`` under uvicorn) on a loopback port, serving the test
    default catalog (the reference environments; session fixtures start before tests/conftest.py's
    per-test isolation, so the same isolation is applied here)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ENVFARM_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "envfarm-cache"))
        mp.setenv("ENVFARM_NO_GENERATE", "1")
        mp.delenv("ENVFARM_CATALOG", raising=False)
        server = EmbeddedServer()
    with server as url:
        yield url


@pytest.fixture(scope="session")
def _fake_llm() -> Iterator[FakeLLM]:
    fake = FakeLLM().start()
    yield fake
    fake.stop()


@pytest.fixture
def llm(_fake_llm: FakeLLM) -> FakeLLM:
    """The fake LLM API, with no scripts, faults or recorded requests."""
    _fake_llm.reset()
    return _fake_llm


@pytest.fixture
def make_config(farm_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``make_config(**fields)``: an EvalConfig against the test farm with fast retries."""
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")

    def make(**fields: Any) -> EvalConfig:
        defaults: dict[str, Any] = {
            "server": farm_url,
            "out": tmp_path / "run",
            "retry_attempts": 4,
            "retry_base_delay": 0.01,
            "retry_max_delay": 0.2,
            "request_timeout": 20,
        }
        if fields.get("agent") in ("openai", "anthropic"):
            defaults |= {"model": "fake-model", "api_key_env": "FAKE_LLM_KEY"}
        return EvalConfig(**(defaults | fields))

    return make
