"""The OpenEnv adapter end to end on the newest openenv-core, in ``.venv-openenv`` (openenv-core and
``envfarm-client[openenv]`` only): the adapter's app served there by uvicorn's factory (configured from the
environment), OpenEnv's own WebSocket client, the real farm, and the fake OpenAI-compatible server as the
policy through the real ``openai`` SDK (``openenv_run.py``)."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from packaging.version import Version

from envfarm.embedded import EmbeddedServer
from server.threaded import free_port

from ...envs.engine.test_dual_control import write_phone_catalog
from ..fakes import USER_SIM_MARKER, FakeLLM
from .policies import PHONE_OPENING, PHONE_REPORT, script_perfect, script_phone_user, script_wrong
from .trainers import assert_trainer_kept, run_script, trainer_python

PERFECT, WRONG = "clinic-001", "clinic-002"
USER_TOOLS = ["check_status_bar", "toggle_airplane_mode"]


@contextmanager
def _served(extra_env: dict[str, str], log_dir: Path) -> Iterator[str]:
    """``uvicorn --factory clients.training.openenv_env:app_from_env`` in .venv-openenv, configured by
    ``extra_env``; its URL once it answers."""
    python, env = trainer_python("openenv")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env |= extra_env
    log = log_dir / "app.log"
    command = [python, "-m", "uvicorn", "--factory", "clients.training.openenv_env:app_from_env", "--port", str(port)]
    with log.open("wb") as sink:
        app = subprocess.Popen(command, env=env, cwd=log.parent, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300  # a generous bound for a loaded machine; the app's exit ends it at once
        while True:
            assert app.poll() is None, f"the OpenEnv app exited: {log.read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, f"the OpenEnv app did not answer at {url}"
                time.sleep(0.2)
        yield url
    finally:
        app.terminate()
        app.wait(timeout=60)


@pytest.fixture(scope="module")
def openenv_app(farm_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The adapter's app in .venv-openenv, serving PERFECT and WRONG with at most 8 tool calls an episode."""
    tasks = {
        "ENVFARM_SERVER": farm_url,
        "ENVFARM_OPENENV_TASKS": f"{PERFECT},{WRONG}",
        "ENVFARM_OPENENV_MAX_STEPS": "8",
    }
    with _served(tasks, tmp_path_factory.mktemp("openenv")) as url:
        yield url


@pytest.fixture(scope="module")
def openenv_run(openenv_app: str, _fake_llm: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    llm = _fake_llm
    llm.reset()
    script_perfect(llm, PERFECT)
    script_wrong(llm, WRONG)
    tmp = tmp_path_factory.mktemp("openenv-run")
    job = {"app": openenv_app, "llm": llm.base_url, "perfect": PERFECT, "wrong": WRONG}
    (tmp / "job.json").write_text(json.dumps(job))
    return dict(run_script("openenv", "openenv_run.py", str(tmp / "job.json"), cwd=tmp))


def test_the_client_installs_beside_the_newest_openenv_core_without_replacing_anything(openenv_run):
    versions = assert_trainer_kept("openenv")
    assert Version(versions["openenv-core"]) >= Version("0.3") and openenv_run["openenv"] == versions["openenv-core"]


def test_a_perfect_policy_earns_1_and_a_wrong_one_less(openenv_run, farm_url):
    perfect, wrong = openenv_run["play"][PERFECT], openenv_run["play"][WRONG]
    assert perfect["done"] and perfect["reward"] == 1.0 and perfect["partial_credit"] == 1.0
    assert perfect["state"] == {"task_id": PERFECT, "done": True, "step_count": len(perfect["steps"])}  # tool calls
    assert perfect["steps"] and all(step == [False, 0.0, False] for step in perfect["steps"])
    assert wrong["done"] and wrong["reward"] == 0.0 and wrong["partial_credit"] < 1.0
    statuses = {httpx.get(f"{farm_url}/episodes/{p['episode_id']}").json()["status"] for p in (perfect, wrong)}
    assert statuses == {"closed"}


def test_observations_errors_truncation_and_closing_on_disconnect(openenv_run, farm_url):
    edges = openenv_run["edges"]
    first = edges["first"]
    assert first["task_id"] == WRONG and first["instruction"] and first["policy"]
    assert {"name", "description", "input_schema"} <= set(first["tool_keys"]) and first["openai_type"] == "function"
    assert edges["bad"]["is_error"] and edges["bad"]["content"].startswith("Error: ")
    assert "no_such_tool" in edges["bad"]["content"]
    assert not edges["ok"]["is_error"] and edges["ok"]["result_type"] in ("list", "dict")
    assert edges["ok"]["content"] in ("[", "{")
    assert edges["before_last_done"] is False
    assert edges["last"] == {"done": True, "truncated": True, "reward": 0.0}
    deadline = time.monotonic() + 30  # leaving the session closes its open episode
    while httpx.get(f"{farm_url}/episodes/{edges['left_open']}").json()["status"] != "closed":
        assert time.monotonic() < deadline, "the episode of a closed session stayed open"
        time.sleep(0.05)
    assert "either a tool call" in openenv_run["both_kinds_refused"]


# -- a simulated user: a conversation, and in dual control the user acting on their own side ---------


def test_with_a_simulated_user_an_episode_is_a_conversation_and_the_user_acts_on_their_side(
    _fake_llm: FakeLLM, tmp_path_factory: pytest.TempPathFactory
):
    llm = _fake_llm
    llm.reset()
    script_phone_user(llm)
    folder = tmp_path_factory.mktemp("openenv-phone")
    write_phone_catalog(folder / "catalog")
    with EmbeddedServer(catalog=folder / "catalog", data_dir=folder / "data") as phone_farm:
        user = {
            "ENVFARM_SERVER": phone_farm,
            "ENVFARM_OPENENV_TASKS": "phone_support",
            "ENVFARM_OPENENV_USER_MODEL": "fake-user",
            "ENVFARM_OPENENV_USER_BASE_URL": llm.base_url,
            "ENVFARM_OPENENV_USER_API_KEY_ENV": "FAKE_USER_KEY",
            "FAKE_USER_KEY": "sk-test",
        }
        with _served(user, folder) as app:
            (folder / "job.json").write_text(json.dumps({"app": app}))
            out = run_script("openenv", "openenv_user_run.py", str(folder / "job.json"), cwd=folder)
        log = httpx.get(f"{phone_farm}/episodes/{out['episode_id']}").json()["log"]
    assert out["opening"] == PHONE_OPENING
    assert out["asked"] == {"done": False, "user_message": PHONE_REPORT, "reward": 0.0}
    assert out["end"] == {"done": True, "user_message": "Thanks!", "reward": 1.0, "partial_credit": 1.0}
    assert [(c["tool"], c["actor"]) for c in log] == [("resume_line", "agent"), ("toggle_airplane_mode", "user")]
    sim = [b for b in llm.calls_to("chat") if b["messages"][0]["content"].startswith(USER_SIM_MARKER)]
    assert len(sim) == 4 and all(sorted(t["function"]["name"] for t in b["tools"]) == USER_TOOLS for b in sim)
