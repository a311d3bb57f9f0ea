"""envfarm-client (clients/pyproject.toml) is a distribution of its own: built alone, installed alone into
a fresh virtual environment with only its declared dependencies, it reaches a real farm over REST.

The farm is the test suite's (this environment's); the client runs in the fresh environment, as it would
in a trainer's, and must not find the farm's packages there.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from .wheels import IGNORE, ROOT, build_wheel, client_env, client_wheel, run

#: What the farm brings and a client must not need: found in the client's environment, the split leaked.
FARM_ONLY = {
    "envfarm", "mcp", "httpx2", "fastapi", "starlette", "uvicorn", "sqlalchemy", "matplotlib", "openai",
    "anthropic", "rich", "jsonschema", "networkx", "psycopg",
}  # fmt: skip

PROBE = r"""
import asyncio, json, sys
from clients.errors import FarmAPIError
from clients.farm import FarmClient
from clients.gym import FarmEnv
from clients.wire import Score

async def main(url):
    async with FarmClient(url) as farm:
        envs = await farm.list_envs()
        tasks = await farm.list_tasks(envs[0].id)
        episode = await farm.create_episode(task_id=tasks[0].id)
        tool = next(t for t in episode.tools if t.kind == "read" and not t.input_schema.get("required"))
        call = await farm.call_tool(episode.episode_id, tool.name, {})
        score = await farm.score(episode.episode_id)
        closed = await farm.close_episode(episode.episode_id)
        try:
            await farm.get_task("no-such-task")
            missing = None
        except FarmAPIError as exc:
            missing = [exc.status, exc.code]
    env = FarmEnv(url)
    observation = env.reset(tasks[0].id)
    _, reward, terminated, _, info = env.step({"message": "done"})
    env.close()
    return {
        "envs": [e.id for e in envs], "task": tasks[0].id, "tool": tool.name, "call_error": call.is_error,
        "score_task": score.task_id, "score_is_wire": isinstance(score, Score), "closed": closed.status,
        "missing": missing, "gym_instruction": bool(observation["instruction"]), "gym_done": terminated,
        "gym_reward": reward, "clients_file": sys.modules["clients"].__file__, "modules": sorted(sys.modules),
    }

print(json.dumps(asyncio.run(main(sys.argv[1]))))
"""


def _metadata(wheel: Path) -> tuple[str, list[str]]:
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(z.read(name).decode())
    return message["Version"], message.get_all("Requires-Dist") or []


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Both wheels, each built from a copy of the files its pyproject names (as a fresh checkout has them)."""
    tmp = tmp_path_factory.mktemp("wheels")
    farm_src = tmp / "farm-src"
    for package in ("envfarm", "envs", "synthesis", "server"):
        shutil.copytree(ROOT / package, farm_src / package, ignore=IGNORE)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, farm_src / name)
    return {
        "client": client_wheel(tmp),
        "farm": build_wheel(farm_src, tmp / "farm-dist"),
    }


def test_the_farm_depends_on_the_client_and_not_the_other_way_round(wheels):
    client_version, client_requires = _metadata(wheels["client"])
    _, farm_requires = _metadata(wheels["farm"])
    assert f"envfarm-client[eval]=={client_version}" in farm_requires
    core = [r for r in client_requires if "extra ==" not in r]
    assert sorted(core) == ["httpx>=0.27", "pydantic>=2.11"]
    assert not [r for r in client_requires if r.startswith("envfarm") and not r.startswith("envfarm-client")]
    with zipfile.ZipFile(wheels["client"]) as z:
        tops = {n.split("/")[0] for n in z.namelist() if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"clients", "envfarm_verifiers"}  # envfarm_verifiers: the module `vf-eval envfarm-verifiers` imports


def test_the_client_alone_in_a_fresh_environment_talks_to_a_farm(wheels, farm_url, tmp_path):
    python, env = client_env(tmp_path / "venv")
    run([python, "-m", "pip", "install", "--quiet", str(wheels["client"])], env=env, cwd=tmp_path)
    run([python, "-m", "pip", "check"], env=env, cwd=tmp_path)
    installed = json.loads(run([python, "-m", "pip", "list", "--format", "json"], env=env, cwd=tmp_path).stdout)
    names = {p["name"].lower().replace("_", "-") for p in installed}
    assert "envfarm-client" in names and "httpx" in names and "pydantic" in names
    assert names & FARM_ONLY == set()

    (tmp_path / "probe.py").write_text(PROBE)
    out = json.loads(run([python, "probe.py", farm_url], env=env, cwd=tmp_path).stdout)
    assert out["clients_file"].startswith(str(tmp_path / "venv"))  # the installed wheel, not this tree
    assert out["envs"] and out["score_task"] == out["task"] and out["score_is_wire"]
    assert out["call_error"] is False and out["closed"] == "closed"
    assert out["missing"] == [404, "task_not_found"]
    assert out["gym_instruction"] and out["gym_done"] is True and out["gym_reward"] in (0.0, 1.0)
    loaded = {m.split(".")[0] for m in out["modules"]}
    assert loaded & (FARM_ONLY | {"envs", "server", "synthesis"}) == set()
