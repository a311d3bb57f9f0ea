"""A throwaway PostgreSQL server for the tests that need a real one.

``ENVFARM_TEST_POSTGRES_URL`` points at an existing server (a database per test is created in
it); otherwise the installed PostgreSQL binaries start a private cluster in a temporary
directory on a free loopback port, stopped when the test session ends. ``scripts/setup``
installs PostgreSQL, and ``scripts/test`` sets ``ENVFARM_REQUIRE_POSTGRES=1`` so that a missing
server fails the run instead of skipping these tests.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from server.threaded import free_port


def _binaries() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


def _as_user() -> list[str]:
    """PostgreSQL refuses to run as root: run it as the ``postgres`` user then."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.fail("running as root, but there is no 'postgres' user to run PostgreSQL as")
    return ["runuser", "-u", "postgres", "--"]


@contextmanager
def private_cluster() -> Iterator[str]:
    """Start a cluster; yield its admin URL (libpq form)."""
    bin_dir = _binaries()
    if bin_dir is None:
        message = "PostgreSQL is not installed (scripts/setup installs it)"
        if os.environ.get("ENVFARM_REQUIRE_POSTGRES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    base = Path(tempfile.mkdtemp(prefix="envfarm-pg-"))
    as_user = _as_user()
    if as_user:
        shutil.chown(base, user="postgres")
    data, port = base / "data", free_port()
    run = lambda *args: subprocess.run([*as_user, *args], check=True, capture_output=True)  # noqa: E731
    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "--auth=trust", "-U", "postgres", "--encoding=UTF8")
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "log"), "-w", "start")
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {exc.stderr.decode(errors='replace')[-500:]}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)


@contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new, empty database on the server; yields its SQLAlchemy URL and drops it afterwards."""
    name = "envfarm_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield admin_url.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1) + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
