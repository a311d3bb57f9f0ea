"""``envfarm serve`` as a real subprocess, on the embedded SQLite store or on PostgreSQL: what the
tests that kill a server (``kill -9``) and start it again on the same data share."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.threaded import free_port

ROOT = Path(__file__).resolve().parents[2]


class ServeProcess:
    """``envfarm serve`` as a real subprocess."""

    def __init__(self, data_dir: Path, log: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._log = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "envfarm", "serve", "--port", str(self.port), "--data-dir", str(data_dir)],
            cwd=ROOT,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ENVFARM_LOG_LEVEL": "WARNING", **env},
        )
        # Generous: on cores shared with other test workers and jobs, starting Python and importing the
        # farm took over 30 s. A server that does not start is stopped here, not left running (and its
        # log open) to fail the next test with a ResourceWarning.
        deadline = time.monotonic() + 120
        while True:
            if self.proc.poll() is not None:
                self.kill()
                raise RuntimeError(f"envfarm serve exited with {self.proc.returncode}: {log.read_text()}")
            try:
                if httpx.get(self.base_url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"envfarm serve did not answer /healthz in 120 s: {log.read_text()}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._log.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The episode store: the embedded SQLite file under the data dir, or a PostgreSQL database."""
    if request.param == "sqlite":
        return {}
    return {"ENVFARM_DATABASE_URL": request.getfixturevalue("postgres_url")}


@pytest.fixture
def spawn(tmp_path: Path, store_env: dict[str, str]) -> Iterator:
    procs: list[ServeProcess] = []

    def start(data_dir: Path, env: dict[str, str] | None = None) -> ServeProcess:
        p = ServeProcess(data_dir, tmp_path / "serve.log", {**store_env, **(env or {})})
        procs.append(p)
        return p

    yield start
    for p in procs:
        p.kill()
