"""What ``pip install .`` and the Docker image get: a wheel built from the files the Dockerfile copies.

The development install is editable, so it reads data files from the source tree and cannot tell
whether the package declares them; this builds the real wheel and runs from it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The farm's own packages; ``clients`` is the envfarm-client distribution (tests/test_client_distribution.py).
PACKAGES = ("envfarm", "envs", "synthesis", "server")


def _dockerfile_sources() -> list[str]:
    """The sources of the Dockerfile's COPY lines."""
    sources: list[str] = []
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            *srcs, _dest = line.split()[1:]
            sources += srcs
    return sources


def _data_files() -> set[str]:
    """Every file of the packages that is not Python source or a build by-product."""
    return {
        str(path.relative_to(ROOT))
        for package in PACKAGES
        for path in (ROOT / package).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    }


def test_the_wheel_built_from_the_docker_context_carries_every_data_file(tmp_path: Path) -> None:
    sources = _dockerfile_sources()
    assert {*PACKAGES, "clients"} <= set(sources) and "pyproject.toml" in sources
    context = tmp_path / "context"
    for source in sources:
        target = context / source
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / source, target)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(context), "-w", str(tmp_path / "dist")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("envfarm-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert _data_files() - names == set()
    assert not [name for name in names if name.startswith("clients/")]  # envfarm-client's files, not the farm's
    assert any(name.startswith("synthesis/domains/ontology/") for name in names)

    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    probe = (
        "import synthesis, envs\n"
        "from synthesis.domains.ontology import load_ontology\n"
        "from envs import Catalog, paths\n"
        "print(synthesis.__file__)\n"
        "print(len(load_ontology()), len(Catalog(paths.BUILTIN_CATALOG).ids()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    where, counts = ran.stdout.splitlines()
    assert where.startswith(str(unpacked))  # the wheel's code, not the editable install's
    domains, reference_envs = map(int, counts.split())
    assert domains >= 100 and reference_envs == 2
