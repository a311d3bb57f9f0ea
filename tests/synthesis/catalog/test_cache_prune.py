"""envfarm catalog prune: old catalogs go; the current one, the one in use and one being built stay."""

from __future__ import annotations

import fcntl
from pathlib import Path

import pytest

from envfarm.cli import main
from envs import paths
from synthesis.catalog.default_catalog import fingerprint


def _catalog(root: Path, name: str, size: int = 1000) -> Path:
    path = root / name
    (path / "some_env").mkdir(parents=True)
    (path / "some_env" / "spec.json").write_text("x" * size)
    return path


def test_prune_removes_only_catalogs_nobody_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(tmp_path))
    current = _catalog(tmp_path, f"catalog-{fingerprint()}")
    old = _catalog(tmp_path, "catalog-00000000000000aa", 5000)
    (tmp_path / "catalog-00000000000000aa.lock").write_text("")
    old_envs = _catalog(tmp_path, "envs-00000000000000aa")
    pointed = _catalog(tmp_path, "catalog-00000000000000bb")
    (tmp_path / paths.CURRENT_POINTER).write_text(f"{pointed}\n")
    building = _catalog(tmp_path, "catalog-00000000000000cc")
    other = tmp_path / "notes-00000000000000dd"
    other.mkdir()

    assert main(["catalog", "prune", "--dry-run"]) == 0
    assert "would remove 3 old catalogs" in capsys.readouterr().out  # nobody is building cc yet
    assert old.exists() and old_envs.exists()

    with open(tmp_path / "catalog-00000000000000cc.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process building it
        assert main(["catalog", "prune"]) == 0
    captured = capsys.readouterr()
    assert f"removed {old}" in captured.out and f"removed {old_envs}" in captured.out
    assert "removed 2 old catalogs" in captured.out
    assert f"kept {building}" in captured.err and f"kept {pointed}" in captured.err
    assert not old.exists() and not old_envs.exists() and not (tmp_path / "catalog-00000000000000aa.lock").exists()
    assert current.exists() and pointed.exists() and building.exists() and other.exists()

    assert main(["catalog", "prune"]) == 0  # its builder is gone: cc goes too
    assert f"removed {building}" in capsys.readouterr().out and not building.exists()
    assert main(["catalog", "prune"]) == 0
    assert "no old catalogs in" in capsys.readouterr().out
    assert pointed.exists()
