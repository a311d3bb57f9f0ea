"""Where shipped data lives. The only module that knows file locations."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
#: The catalog shipped with the package (hand-written reference environments and generated ones).
BUILTIN_CATALOG = PACKAGE_DIR / "catalog"
SPEC_FILE = "spec.json"
SEED_FILE = "seed.json"
POLICY_FILE = "policy.md"
TASKS_FILE = "tasks.json"


def default_catalog() -> Path:
    """``$ENVFARM_CATALOG`` if set, else the built-in catalog."""
    override = os.environ.get("ENVFARM_CATALOG")
    return Path(override) if override else BUILTIN_CATALOG
