"""The training adapters' tests import the real libraries: verifiers, openenv-core, TRL (``envfarm[train]``).

Without them the tests are skipped, unless ``ENVFARM_REQUIRE_TRAINING=1`` (set by ``scripts/test``, after
``scripts/setup`` installed them): then a missing library is a failure, not a silent skip.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def need(module: str) -> ModuleType:
    """Import ``module``, or skip the test module when it is not installed (fail under ENVFARM_REQUIRE_TRAINING=1)."""
    if os.environ.get("ENVFARM_REQUIRE_TRAINING") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module, reason="the training extras are not installed: pip install -e '.[train]'")
