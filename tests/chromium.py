"""Debian's chromium for the tests that render pages headless (the evaluation report, the console)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

#: No first-run work and no background connections: this machine's network is closed, and chromium
#: would otherwise try Google's hosts at every start.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    """Debian's chromium; CI installs it (scripts/setup), so a missing one fails instead of skipping."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if found is None:
        pytest.fail("chromium is not installed: run scripts/setup (apt-get install chromium)")
    return found
