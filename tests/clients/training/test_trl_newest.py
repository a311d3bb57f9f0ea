"""The TRL adapter on the newest TRL, where the farm is not installed: a fresh virtual environment with
CPU PyTorch, ``envfarm-client[trl]`` (its wheel) and ``trl>=1.16`` runs the same GRPO check as test_trl.py
(TRL's own tool loop, rewards from the farm's score endpoint: 1.0 and 0) against this suite's farm.

The installation must not downgrade TRL: the client's bounds are lower bounds only.
"""

from __future__ import annotations

import json
from pathlib import Path

from packaging.version import Version

from ..wheels import client_env, client_wheel, run
from .conftest import need

need("trl")  # tiny_model, which writes the plans here, imports TRL's chat templates
from .tiny_model import gold_plans  # noqa: E402

HERE = Path(__file__).resolve().parent
PERFECT, WRONG = "clinic-001", "clinic-002"
#: The CPU build on this kind of machine's find-links, named so pip does not take a CUDA build from the index.
TORCH = "torch==2.13.0"


def test_grpo_on_the_newest_trl_with_only_the_client_installed(farm_url, tmp_path):
    python, env = client_env(tmp_path / "venv")
    wheel = client_wheel(tmp_path)
    run([python, "-m", "pip", "install", "--quiet", TORCH], env=env, cwd=tmp_path)
    run([python, "-m", "pip", "install", "--quiet", "trl>=1.16"], env=env, cwd=tmp_path)
    before = json.loads(run([python, "-m", "pip", "list", "--format", "json"], env=env, cwd=tmp_path).stdout)
    run([python, "-m", "pip", "install", "--quiet", f"envfarm-client[trl] @ {wheel.as_uri()}"], env=env, cwd=tmp_path)
    run([python, "-m", "pip", "check"], env=env, cwd=tmp_path)
    after = json.loads(run([python, "-m", "pip", "list", "--format", "json"], env=env, cwd=tmp_path).stdout)
    versions = {p["name"].lower(): p["version"] for p in after}
    for package in before:  # nothing the trainer had was replaced
        assert versions[package["name"].lower()] == package["version"], package
    assert Version(versions["trl"]) >= Version("1.16") and "mcp" not in versions and "envfarm" not in versions

    plans = tmp_path / "plans.json"
    plans.write_text(json.dumps(gold_plans([PERFECT], [WRONG])))
    env = {**env, "HF_HUB_OFFLINE": "1"}
    script = [python, str(HERE / "trl_newest_run.py"), farm_url, str(plans), str(HERE), f"{PERFECT},{WRONG}"]
    out = json.loads(run(script, env=env, cwd=tmp_path).stdout.splitlines()[-1])
    assert Version(out["trl"]) >= Version("1.16")
    by_task = {t: {(r, p) for task, r, p in out["seen"] if task == t} for t in (PERFECT, WRONG)}
    assert by_task[PERFECT] == {(1.0, 1.0)}
    assert {r for r, _ in by_task[WRONG]} == {0.0} and all(p < 1 for _, p in by_task[WRONG])
