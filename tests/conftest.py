"""Test-wide isolation: no test reads or writes the user's cache or triggers first-use generation.

The default catalog in tests is the two reference environments; tests that exercise generation
(tests/synthesis/catalog/test_pipeline.py) set their own cache directory and ontology.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from .postgres import fresh_database, private_cluster


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "envfarm-cache"))
    monkeypatch.setenv("ENVFARM_NO_GENERATE", "1")
    monkeypatch.delenv("ENVFARM_CATALOG", raising=False)


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
