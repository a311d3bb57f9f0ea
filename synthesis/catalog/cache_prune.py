"""Remove default catalogs that an older envfarm generated: every change to the synthesis code or
ontology gets a catalog of its own in the cache (``catalog-<fingerprint>``, ``envs-<fingerprint>``),
and the old ones are never read again. A catalog another process is building (its lock is held), the
current one, and the one the pointer file names are kept. So is whatever is a symlink or another
user's (the cache folder may be shared): it is skipped with a warning, never followed nor removed."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from envs import paths
from envs.cache_files import trusted

from .default_catalog import fingerprint, lock_held

_CACHED = re.compile(r"^(?:catalog|envs)-(?P<fingerprint>[0-9a-f]{16})$")


@dataclass
class Pruned:
    removed: list[Path]
    kept_in_use: list[Path]
    bytes_freed: int


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def prune_old_catalogs(*, dry_run: bool = False) -> Pruned:
    """Remove (or, with ``dry_run``, list) the cache's catalogs of other fingerprints.

    Raises:
        UnsafeCacheEntry: the pointer file is a symlink or another user's (what is in use is unknown).
    """
    root = paths.cache_dir()
    current = fingerprint()
    pointed = paths.generated_catalog()
    removed: list[Path] = []
    kept: list[Path] = []
    freed = 0
    try:
        entries = sorted(root.iterdir())
    except OSError:
        return Pruned([], [], 0)
    for path in entries:
        m = _CACHED.match(path.name)
        if m is None or m["fingerprint"] == current or not trusted(path) or not path.is_dir():
            continue
        lock = path.with_name(f"{path.name}.lock")
        if lock_held(lock) or (pointed is not None and path.resolve() == pointed.resolve()):
            kept.append(path)
            continue
        size = _size(path)
        if not dry_run:
            shutil.rmtree(path, ignore_errors=True)
            lock.unlink(missing_ok=True)
            if path.exists():
                continue
        removed.append(path)
        freed += size
    return Pruned(removed, kept, freed)
