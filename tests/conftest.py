"""Test-wide isolation: no test reads or writes the user's cache or triggers first-use generation.

The default catalog in tests is the two reference environments; tests that exercise generation
(tests/synthesis/catalog/test_pipeline.py) set their own cache directory and ontology.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from .postgres import fresh_database, private_cluster


def _isolate(mp: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    mp.setenv("ENVFARM_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "envfarm-cache"))
    mp.setenv("ENVFARM_NO_GENERATE", "1")
    mp.delenv("ENVFARM_CATALOG", raising=False)


@pytest.fixture(scope="session", autouse=True)
def _isolated_session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same isolation for the session and module fixtures, which start before any test's: without it
    they would read and write the user's cache (the domains' sentence embeddings, a minute to compute,
    were made there by one fixture and again in this session's cache by the next test)."""
    with pytest.MonkeyPatch.context() as mp:
        _isolate(mp, tmp_path_factory)
        yield


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    _isolate(monkeypatch, tmp_path_factory)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A real PostgreSQL server for the session (see tests/postgres.py)."""
    url = os.environ.get("ENVFARM_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    with private_cluster() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """SQLAlchemy URL of an empty database of its own for this test."""
    with fresh_database(postgres_server) as url:
        yield url
