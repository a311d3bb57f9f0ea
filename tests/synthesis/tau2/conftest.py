from __future__ import annotations

from pathlib import Path

import pytest

from synthesis.tau2 import domain_folders, import_domain

from .reference import TAU2_DIR


@pytest.fixture(scope="session")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both tau2 domains imported from the reference data, once for every test that reads them."""
    out = tmp_path_factory.mktemp("tau2-catalog")
    for folder in domain_folders(TAU2_DIR / "data"):
        import_domain(folder, out)
    return out
