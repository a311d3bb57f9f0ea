"""Where tau2-bench's reference data is (../shared/tau2, or $ENVFARM_TAU2_DIR), and the skip for its absence.

The data is tau2-bench's, MIT-licensed, and is not part of this repository; without it the fidelity
tests are skipped and say so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TAU2_DIR = Path(os.environ.get("ENVFARM_TAU2_DIR") or Path(__file__).resolve().parents[4] / "shared" / "tau2")
needs_tau2 = pytest.mark.skipif(
    not (TAU2_DIR / "data").is_dir(), reason=f"tau2-bench's data is not at {TAU2_DIR} (set ENVFARM_TAU2_DIR)"
)
