"""Building envfarm-client's wheel and installing it into a fresh virtual environment, for the tests that
run the client where the farm is not installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")


def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a command to its end (a hang guard, not a speed check); its output is shown if it fails."""
    done = subprocess.run(args, capture_output=True, text=True, timeout=1200, **kwargs)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])
    return done


def build_wheel(source: Path, out: Path) -> Path:
    """``pip wheel --no-deps`` of ``source`` into ``out``; the wheel's path."""
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(source), "-w", str(out)])
    (wheel,) = out.glob("*.whl")
    return wheel


def client_wheel(tmp: Path) -> Path:
    """envfarm-client's wheel, built from a copy of ``clients/`` (as a fresh checkout has it)."""
    shutil.copytree(ROOT / "clients", tmp / "client-src", ignore=IGNORE)
    return build_wheel(tmp / "client-src", tmp / "client-dist")


def client_env(where: Path) -> tuple[str, dict[str, str]]:
    """A fresh virtual environment at ``where``: its python, and an environment for running it that does not
    reach this tree or this environment's packages."""
    venv.create(where, with_pip=True)
    return str(where / "bin" / "python"), isolated_env()


def isolated_env() -> dict[str, str]:
    """This process's environment without what would let another Python reach this tree or this
    environment's packages."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
