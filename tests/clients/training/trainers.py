"""The trainers' own virtual environments, made by ``scripts/setup`` beside the farm's ``.venv``.

Each holds one trainer at its newest release and ``envfarm-client`` with that trainer's extra, installed
after the trainer (``.venv-trl``: CPU torch, ``trl>=1.16``; ``.venv-verifiers``: ``verifiers>=0.4``;
``.venv-openenv``: ``openenv-core>=0.3``). Setup records the trainer's packages before the client was
added (``trainer-packages.json``), so a test can check the client replaced none of them. The tests run
scripts there with that environment's Python, against this suite's farm, never importing the trainer here.

A missing environment skips the tests that need it, unless ``ENVFARM_REQUIRE_TRAINING=1`` (set by
``scripts/test``): then it is a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ..wheels import isolated_env, run

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
TRAINERS = {"trl": "trl", "verifiers": "verifiers", "openenv": "openenv-core"}


def trainer_python(trainer: str) -> tuple[str, dict[str, str]]:
    """The Python of ``.venv-<trainer>``, and an environment for running it that reaches neither this
    tree nor the farm's environment (skip, or fail under ENVFARM_REQUIRE_TRAINING=1, when it is missing)."""
    python = ROOT / f".venv-{trainer}" / "bin" / "python"
    if not python.exists():
        message = f".venv-{trainer} is missing: scripts/setup makes it"
        if os.environ.get("ENVFARM_REQUIRE_TRAINING") == "1":
            pytest.fail(message)
        pytest.skip(message)
    env = isolated_env()
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"  # its console scripts: vf-eval, uv
    return str(python), env | {"HF_HUB_OFFLINE": "1", "TRL_EXPERIMENTAL_SILENCE": "1", "PYTHONUNBUFFERED": "1"}


def installed(python: str, env: dict[str, str]) -> dict[str, str]:
    """Every distribution in that environment, by lowercase name: its version."""
    listed = run([python, "-m", "pip", "list", "--format", "json"], env=env).stdout
    return {p["name"].lower(): p["version"] for p in json.loads(listed)}


def assert_trainer_kept(trainer: str) -> dict[str, str]:
    """Installing the client replaced nothing the trainer had brought, and pip finds nothing broken;
    the environment's versions."""
    python, env = trainer_python(trainer)
    before = json.loads((ROOT / f".venv-{trainer}" / "trainer-packages.json").read_text())
    now = installed(python, env)
    for package in before:
        assert now[package["name"].lower()] == package["version"], package
    run([python, "-m", "pip", "check"], env=env)
    assert now.get("envfarm-client") and "envfarm" not in now
    return now


def run_script(trainer: str, script: str, *args: str, cwd: Path) -> Any:
    """Run ``tests/clients/training/<script>`` in the trainer's environment; the JSON its last line prints."""
    python, env = trainer_python(trainer)
    done = run([python, str(HERE / script), *args], env=env, cwd=cwd)
    return json.loads(done.stdout.splitlines()[-1])
