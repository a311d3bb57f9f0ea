"""deploy/: two replicas on one PostgreSQL store behind the real nginx with deploy/nginx.conf.

Docker is not needed: the replicas run here, and the test points the balancer's upstream at them.
The compose file is checked for what it wires together.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from envs import Catalog
from server.threaded import free_port

from .conftest import LiveServer, mcp_session, run

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TASK = "clinic-001"
ANSWER = {"answer": "Booked A1001 at 10:30; your copay is 20."}


@pytest.fixture
def balancer(tmp_path: Path) -> Iterator[Callable[[list[int]], str]]:
    """Start nginx with deploy/nginx.conf, its upstream pointed at local ports; yields the base URL."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.fail("nginx is not installed (scripts/setup installs it)")
    procs: list[subprocess.Popen[bytes]] = []

    def start(ports: list[int]) -> str:
        conf = (DEPLOY / "nginx.conf").read_text()
        assert conf.count("server farm-") == len(ports)
        for i, port in enumerate(ports, start=1):
            conf = conf.replace(f"server farm-{i}:8765", f"server 127.0.0.1:{port}")
        listen = free_port()
        (tmp_path / "nginx.conf").write_text(conf.replace("listen 8765;", f"listen 127.0.0.1:{listen};"))
        directives = f"daemon off; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;"
        cmd = [nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", directives]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        base = f"http://127.0.0.1:{listen}"
        deadline = time.monotonic() + 10
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    return base
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError((tmp_path / "error.log").read_text() if (tmp_path / "error.log").exists() else "")
            time.sleep(0.05)

    yield start
    for p in procs:
        p.terminate()
        p.wait(10)


def test_each_episode_stays_on_one_replica_behind_the_balancer(
    postgres_url: str, make_server: Callable[..., LiveServer], balancer: Callable[[list[int]], str]
) -> None:
    replicas = [make_server(database_url=postgres_url) for _ in range(2)]
    base = balancer([int(r.base_url.rsplit(":", 1)[1]) for r in replicas])
    gold = Catalog().task(TASK)[1].gold_actions
    episodes = 8
    with httpx.Client(base_url=base, timeout=20) as c:
        ids = [c.post("/episodes", json={"task_id": TASK}).json()["episode_id"] for _ in range(episodes)]
        for episode_id in ids:
            for action in gold:
                out = c.post(f"/episodes/{episode_id}/calls", json=action.model_dump()).json()
                assert not out["is_error"], out

            async def read_over_mcp(episode_id: str = episode_id) -> Any:
                async with mcp_session(f"{base}/episodes/{episode_id}/mcp", "2026-07-28") as session:
                    return await session.call_tool("get_patient_appointments", {"patient_id": "P0001"})

            assert not run(read_over_mcp()).is_error
            assert c.post(f"/episodes/{episode_id}/score", json=ANSWER).json()["reward"] == 1.0

    calls = sum(r.metric("envfarm_tool_calls_total") for r in replicas)
    assert calls == episodes * (len(gold) + 1)
    # Every episode was built once where it was created and at most once more where the balancer sends it;
    # no call ever landed on a replica whose copy another one had moved past.
    assert sum(r.metric("envfarm_episode_replays_total") for r in replicas) <= episodes
    assert sum(r.metric("envfarm_stale_copies_total") for r in replicas) == 0


def test_the_compose_file_wires_replicas_to_one_store_and_the_balancer() -> None:
    compose = yaml.safe_load((DEPLOY / "replicas.compose.yml").read_text())
    services = compose["services"]
    farms = [name for name in services if name.startswith("farm-")]
    conf = (DEPLOY / "nginx.conf").read_text()
    assert farms and all(f"server {name}:8765" in conf for name in farms)
    for name in farms:
        env = services[name]["environment"]
        assert (
            env["ENVFARM_DATABASE_URL"].startswith("postgresql+psycopg://")
            and "@postgres:5432/" in env["ENVFARM_DATABASE_URL"]
        )
        assert (DEPLOY / services[name]["build"] / "Dockerfile").exists()
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
    mount = services["balancer"]["volumes"][0].split(":")
    assert (DEPLOY / mount[0]).resolve() == (DEPLOY / "nginx.conf").resolve() and mount[1] == "/etc/nginx/nginx.conf"
