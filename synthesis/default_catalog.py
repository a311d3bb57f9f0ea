"""The default catalog: every built-in domain synthesized deterministically on first use, then cached.

Why generated rather than committed: about 120 environments with seed data and 30 tasks each is
~20 MB of JSON that any change to the generator would rewrite; the pipeline makes it in about a
minute on two cores, byte for byte the same from the same inputs. The cache directory is keyed by
a fingerprint of the ontology, the synthesis code and the Faker version, so a change to any of them
regenerates it; ``envs.paths.generated_catalog()`` finds it through a pointer file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from envs import paths

from .ontology import ONTOLOGY_DIR, load_ontology
from .pipeline import EnvOutcome, SynthesisConfig, run_pipeline

DEFAULT_SEED = 0
_COMPLETE = "COMPLETE"


def fingerprint() -> str:
    """Hash of everything the default catalog depends on."""
    h = hashlib.sha256(f"faker={version('faker')};seed={DEFAULT_SEED}".encode())
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), *ONTOLOGY_DIR.glob("*.json")]):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def default_catalog_dir() -> Path:
    return paths.cache_dir() / f"catalog-{fingerprint()}"


def ensure_default_catalog(
    *, workers: int | None = None, progress: Callable[[EnvOutcome], None] = lambda o: None
) -> Path:
    """Generate the default catalog unless the cache already holds it; point ``envs`` at it."""
    target = default_catalog_dir()
    if not (target / _COMPLETE).exists():
        domains = load_ontology()
        staging = target.with_name(target.name + f".tmp{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        run_pipeline(
            domains,
            SynthesisConfig(out=staging, seed=DEFAULT_SEED, workers=workers or os.cpu_count() or 1, quality=False),
            progress=progress,
        )
        (staging / _COMPLETE).write_text(fingerprint() + "\n", encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    pointer = paths.cache_dir() / paths.CURRENT_POINTER
    if not pointer.exists() or pointer.read_text(encoding="utf-8").strip() != str(target):
        tmp = pointer.with_name(pointer.name + f".tmp{os.getpid()}")
        tmp.write_text(str(target) + "\n", encoding="utf-8")
        tmp.replace(pointer)
    return target
