"""A cache folder another local user can write to: nothing planted there is followed, removed, locked
through or loaded (``envs.cache_files``).

The other user's entries are made the way that user would make them: symlinks out of the cache, and
files and folders owned by another uid (``os.chown``, which needs root; those tests are skipped
otherwise). Every test checks that the victim's files outside the cache are untouched.
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest

import synthesis.catalog.default_catalog as dc
from envfarm.cli import main
from envs import paths
from envs.cache_files import UnsafeCacheEntry
from synthesis.catalog.cache_prune import prune_old_catalogs

from ..domains import library

OTHER_UID = 54321
needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, generation allowed, and an ontology of one small domain."""
    root = tmp_path / "cache"
    root.mkdir()
    monkeypatch.setenv("ENVFARM_CACHE_DIR", str(root))
    monkeypatch.delenv("ENVFARM_NO_GENERATE", raising=False)
    monkeypatch.setattr(dc, "load_ontology", lambda: [library()])
    return root


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Files of the victim outside the cache, with names the cache code would act on."""
    home = tmp_path / "victim"
    work = home / f"thesis.tmp{dead_pid()}-ab12"
    work.mkdir(parents=True)
    (work / "chapter1.tex").write_text("months of work")
    (home / f"draft.tmp{dead_pid()}").write_text("more work")
    return home


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None for p in sorted(root.rglob("*"))}


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def foreign(path: Path) -> Path:
    """Give ``path`` to another user, as if that user had made it."""
    os.chown(path, OTHER_UID, OTHER_UID, follow_symlinks=False)
    return path


def test_clean_stale_never_follows_an_envs_symlink_out_of_the_cache(
    cache: Path, victim: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = snapshot(victim)
    planted = cache / "envs-0123456789abcdef"
    planted.symlink_to(victim, target_is_directory=True)
    staging_link = cache / f"catalog-0123456789abcdef.tmp{dead_pid()}-cd34"
    staging_link.symlink_to(next(victim.glob("draft.tmp*")))
    own_stale = cache / f"catalog-{dc.fingerprint()}.tmp{dead_pid()}-ef56"
    own_stale.mkdir()

    with caplog.at_level(logging.WARNING, logger="envfarm.cache"):
        removed = dc.clean_stale()

    assert removed == [own_stale] and not own_stale.exists()
    assert snapshot(victim) == before
    assert planted.is_symlink() and staging_link.is_symlink()  # skipped, not removed: not ours to judge
    assert f"skipping the cache entry {planted}: it is a symbolic link" in caplog.text
    assert f"skipping the cache entry {staging_link}: it is a symbolic link" in caplog.text


@needs_root
def test_clean_stale_leaves_another_users_staging_alone(cache: Path, caplog: pytest.LogCaptureFixture) -> None:
    theirs = cache / f"catalog-0123456789abcdef.tmp{dead_pid()}-aa11"
    theirs.mkdir()
    (theirs / "half_written_env").write_text("theirs")
    foreign(theirs)
    envs = cache / "envs-0123456789abcdef"
    inside = envs / f"some_env.tmp{dead_pid()}"
    inside.mkdir(parents=True)
    foreign(envs)

    with caplog.at_level(logging.WARNING):
        assert dc.clean_stale() == []

    assert (theirs / "half_written_env").read_text() == "theirs" and inside.exists()
    assert f"skipping the cache entry {theirs}: it belongs to uid {OTHER_UID}" in caplog.text
    assert f"skipping the cache entry {envs}: it belongs to uid {OTHER_UID}" in caplog.text


def test_a_lock_symlink_makes_no_file_where_it_points(cache: Path, victim: Path, capsys) -> None:
    lock = cache / f"{dc.default_catalog_dir().name}.lock"
    aimed_at = victim / "created-by-the-victim"
    lock.symlink_to(aimed_at)

    with pytest.raises(UnsafeCacheEntry) as refused:
        dc.ensure_default_catalog(workers=1)
    assert refused.value.path == lock and "symbolic link" in refused.value.reason
    assert not aimed_at.exists() and not dc.is_built()

    assert main(["catalog", "build", "--workers", "1"]) == 1
    _, err = capsys.readouterr()
    assert err.strip().splitlines() == [f"error: {refused.value}"]  # one line, no traceback
    assert not aimed_at.exists()


@needs_root
def test_another_users_lock_is_refused(cache: Path) -> None:
    lock = cache / f"{dc.default_catalog_dir().name}.lock"
    lock.write_text("")
    foreign(lock)
    with pytest.raises(UnsafeCacheEntry, match=f"belongs to uid {OTHER_UID}"):
        dc.ensure_default_catalog(workers=1)


def test_an_envs_folder_that_is_a_symlink_gets_no_environment_written_into_it(cache: Path, victim: Path) -> None:
    before = snapshot(victim)
    dc.default_envs_dir().symlink_to(victim, target_is_directory=True)
    with pytest.raises(UnsafeCacheEntry) as refused:
        dc.default_env_dir("library_loans")
    assert refused.value.path == dc.default_envs_dir()
    assert snapshot(victim) == before


def test_a_planted_pointer_is_refused_not_followed(cache: Path, tmp_path: Path) -> None:
    attackers = tmp_path / "attacker"
    (attackers / "their_catalog").mkdir(parents=True)
    (attackers / "pointer").write_text(f"{attackers / 'their_catalog'}\n")
    pointer = cache / paths.CURRENT_POINTER
    pointer.symlink_to(attackers / "pointer")

    with pytest.raises(UnsafeCacheEntry) as refused:
        paths.generated_catalog()
    assert refused.value.path == pointer
    with pytest.raises(UnsafeCacheEntry):
        paths.default_catalog_roots()
    with pytest.raises(UnsafeCacheEntry):
        prune_old_catalogs()  # what is in use is unknown: nothing is removed


def test_a_pointer_naming_a_folder_outside_the_cache_is_refused(cache: Path, tmp_path: Path) -> None:
    """Ours and a regular file, but naming somewhere the cache never writes: not followed."""
    elsewhere = tmp_path / "elsewhere" / "catalog-00000000000000ff"
    elsewhere.mkdir(parents=True)
    pointer = cache / paths.CURRENT_POINTER
    for named in (elsewhere, cache / "notes", cache / "catalog-00000000000000ff" / ".." / ".." / "elsewhere"):
        pointer.write_text(f"{named}\n")
        with pytest.raises(UnsafeCacheEntry, match="not a catalog folder of the cache"):
            paths.generated_catalog()
    inside = cache / "catalog-00000000000000ff"
    inside.mkdir()
    pointer.write_text(f"{inside}\n")
    assert paths.generated_catalog() == inside


@needs_root
def test_a_pointer_or_catalog_of_another_user_is_refused(cache: Path, tmp_path: Path) -> None:
    theirs = cache / "catalog-00000000000000ee"
    theirs.mkdir()
    pointer = cache / paths.CURRENT_POINTER
    pointer.write_text(f"{theirs}\n")
    foreign(pointer)
    with pytest.raises(UnsafeCacheEntry, match="current-catalog"):
        paths.generated_catalog()

    os.chown(pointer, os.geteuid(), os.getegid())  # our pointer, naming their catalog
    foreign(theirs)
    with pytest.raises(UnsafeCacheEntry) as refused:
        paths.generated_catalog()
    assert refused.value.path == theirs

    complete = dc.default_catalog_dir()  # their "complete" catalog where ours would be
    complete.mkdir()
    (complete / "COMPLETE").write_text(dc.fingerprint())
    foreign(complete)
    pointer.unlink()
    with pytest.raises(UnsafeCacheEntry) as refused:
        dc.ensure_default_catalog(workers=1)
    assert refused.value.path == complete


def test_prune_skips_symlinked_catalogs_and_locks(cache: Path, victim: Path, caplog: pytest.LogCaptureFixture) -> None:
    before = snapshot(victim)
    linked = cache / "catalog-00000000000000aa"
    linked.symlink_to(victim, target_is_directory=True)
    old = cache / "catalog-00000000000000bb"
    (old / "env").mkdir(parents=True)
    fifo_lock = cache / "catalog-00000000000000bb.lock"
    os.mkfifo(fifo_lock)  # opening it for reading would block a pruner that followed it blindly
    plain_old = cache / "catalog-00000000000000cc"
    (plain_old / "env").mkdir(parents=True)
    (cache / "catalog-00000000000000cc.lock").symlink_to(next(victim.glob("draft.tmp*")))

    with caplog.at_level(logging.WARNING):
        result = prune_old_catalogs()

    assert result.removed == [] and sorted(result.kept_in_use) == [old, plain_old]
    assert snapshot(victim) == before and linked.is_symlink() and old.exists() and plain_old.exists()
    assert f"skipping the cache entry {linked}: it is a symbolic link" in caplog.text
    assert "it is not a regular file" in caplog.text


@needs_root
def test_prune_leaves_another_users_catalog(cache: Path, caplog: pytest.LogCaptureFixture) -> None:
    theirs = cache / "catalog-00000000000000dd"
    (theirs / "env").mkdir(parents=True)
    foreign(theirs)
    ours = cache / "catalog-00000000000000ee"
    (ours / "env").mkdir(parents=True)
    with caplog.at_level(logging.WARNING):
        result = prune_old_catalogs()
    assert result.removed == [ours] and theirs.exists()
    assert f"skipping the cache entry {theirs}: it belongs to uid {OTHER_UID}" in caplog.text
