"""Test-wide isolation: no test reads or writes the user's cache or triggers first-use generation.

The default catalog in tests is the two reference environments; tests that exercise generation
(tests/synthesis/test_pipeline.py) set their own cache directory and ontology.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "envfarm-cache"))
    monkeypatch.setenv("ENVFARM_NO_GENERATE", "1")
    monkeypatch.delenv("ENVFARM_CATALOG", raising=False)
