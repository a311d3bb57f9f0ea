"""The OpenEnv adapter on the newest openenv-core, where the farm is not installed: a fresh virtual
environment with ``openenv-core>=0.3`` and ``envfarm-client[openenv]`` (its wheel) serves the adapter's
OpenEnv app against this suite's farm, and OpenEnv's own client plays a task right (reward 1.0) and one
wrong (reward 0). Installing the client must not replace any package openenv-core brought.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from pathlib import Path

from packaging.version import Version

from envs import Catalog
from server.threaded import free_port

from ..wheels import client_env, client_wheel, run

HERE = Path(__file__).resolve().parent
PERFECT, WRONG = "clinic-001", "clinic-002"


def _plans() -> dict[str, tuple[list[tuple[str, dict]], str]]:
    perfect, wrong = Catalog().task(PERFECT)[1], Catalog().task(WRONG)[1]
    first = wrong.gold_actions[0]
    return {
        PERFECT: ([(a.tool, dict(a.arguments)) for a in perfect.gold_actions], " ".join(perfect.outputs) or "Done."),
        WRONG: ([(first.tool, dict(first.arguments))], "All done."),
    }


def _wait_until_up(url: str, app: subprocess.Popen[bytes]) -> None:
    for _ in range(600):  # readiness, bounded by count; the app's own exit ends it at once
        assert app.poll() is None, "the OpenEnv app exited"
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"the OpenEnv app did not answer at {url}")


def test_an_openenv_session_on_the_newest_openenv_core_with_only_the_client_installed(farm_url, tmp_path):
    python, env = client_env(tmp_path / "venv")
    wheel = client_wheel(tmp_path)
    run([python, "-m", "pip", "install", "--quiet", "openenv-core>=0.3"], env=env, cwd=tmp_path)
    before = json.loads(run([python, "-m", "pip", "list", "--format", "json"], env=env, cwd=tmp_path).stdout)
    run(
        [python, "-m", "pip", "install", "--quiet", f"envfarm-client[openenv] @ {wheel.as_uri()}"],
        env=env,
        cwd=tmp_path,
    )
    run([python, "-m", "pip", "check"], env=env, cwd=tmp_path)
    after = json.loads(run([python, "-m", "pip", "list", "--format", "json"], env=env, cwd=tmp_path).stdout)
    versions = {p["name"].lower(): p["version"] for p in after}
    for package in before:  # nothing openenv-core brought was replaced
        assert versions[package["name"].lower()] == package["version"], package
    assert Version(versions["openenv-core"]) >= Version("0.3") and "envfarm" not in versions

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    app_env = {**env, "ENVFARM_SERVER": farm_url, "ENVFARM_OPENENV_TASKS": f"{PERFECT},{WRONG}"}
    command = [python, "-m", "uvicorn", "--factory", "clients.training.openenv_env:app_from_env", "--port", str(port)]
    app = subprocess.Popen(command, env=app_env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until_up(url, app)
        plans = tmp_path / "plans.json"
        plans.write_text(json.dumps(_plans()))
        out = json.loads(
            run([python, str(HERE / "openenv_newest_run.py"), url, str(plans)], env=env, cwd=tmp_path).stdout
        )
    finally:
        app.terminate()
        app.wait(timeout=60)
    assert Version(out["openenv"]) >= Version("0.3")
    done, reward, partial, refused = out["results"][PERFECT]
    assert (done, reward, partial, refused) == (True, 1.0, 1.0, 0)
    done, reward, partial, refused = out["results"][WRONG]
    assert done is True and reward == 0.0 and partial < 1 and refused == 0
