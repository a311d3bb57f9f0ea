"""Where shipped and generated data lives. The only module that knows file locations."""

from __future__ import annotations

import os
from pathlib import Path

from .cache_files import UnsafeCacheEntry, read_pointer, require_trusted

PACKAGE_DIR = Path(__file__).resolve().parent
#: The hand-written reference environments shipped with the package.
BUILTIN_CATALOG = PACKAGE_DIR / "catalog"
SPEC_FILE = "spec.json"
SEED_FILE = "seed.json"
POLICY_FILE = "policy.md"
TASKS_FILE = "tasks.json"
#: Written by the synthesis pipeline: the path of the generated default catalog.
CURRENT_POINTER = "current-catalog"


def cache_dir() -> Path:
    """``$ENVFARM_CACHE_DIR``, else ``$XDG_CACHE_HOME/envfarm``, else ``~/.cache/envfarm``."""
    if override := os.environ.get("ENVFARM_CACHE_DIR"):
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "envfarm"


def generated_catalog() -> Path | None:
    """The generated default catalog, if one has been generated on this machine.

    Raises:
        UnsafeCacheEntry: the pointer file, or the catalog it names, is a symlink or another user's
            (another user who can write to the cache folder must not choose the catalog loaded), or
            the pointer names a folder that is not a catalog of the cache folder itself.
    """
    pointer = cache_dir() / CURRENT_POINTER
    try:
        text = read_pointer(pointer)
    except OSError:
        return None
    if not text:
        return None
    path = Path(text)
    inside = Path(os.path.abspath(path)).parent == Path(os.path.abspath(cache_dir()))
    if not inside or not path.name.startswith("catalog-"):
        raise UnsafeCacheEntry(pointer, f"it names {text}, which is not a catalog folder of the cache")
    require_trusted(path)
    return path if path.is_dir() else None


def default_catalog_roots() -> list[Path]:
    """``$ENVFARM_CATALOG`` (one or more dirs, ``os.pathsep``-separated) if set, else the built-in
    reference environments followed by the generated catalog (when present)."""
    override = os.environ.get("ENVFARM_CATALOG")
    if override:
        return [Path(p) for p in override.split(os.pathsep) if p]
    generated = generated_catalog()
    return [BUILTIN_CATALOG] + ([generated] if generated else [])


def default_catalog() -> Path:
    """The first default catalog root (kept for callers that need one directory)."""
    return default_catalog_roots()[0]
