"""The default catalog: every built-in domain synthesized deterministically on first use, then cached,
with the built-in dual-control domains (``synthesis.dual``: the customer holds part of the state) and
the knowledge-base variants of the synthesized environments that qualify (``synthesis.knowledge``:
the rules live in a help center the agent searches).

Why generated rather than committed: about 120 environments with seed data and 30 tasks each is
~20 MB of JSON that any change to the generator would rewrite; the pipeline makes it in about half a
minute on two cores, byte for byte the same from the same inputs. The cache directory is keyed by
a fingerprint of the ontology, the synthesis code and the Faker version, so a change to any of them
regenerates it; ``envs.paths.generated_catalog()`` finds it through a pointer file.

Writing is crash-safe and safe for concurrent processes:

* a writer builds into a staging directory beside the target (``<target>.tmp<pid>-<token>``) and
  renames it into place only when it is complete, so the target is either absent or whole;
* while it writes, it holds an exclusive ``flock`` on ``<staging>/.writer`` (a lock the kernel drops
  when the process dies, however it dies); a staging directory whose lock is free, or that has no lock
  file and whose pid is dead, belongs to a crashed writer and is removed by the next one
  (:func:`clean_stale`);
* whole-catalog builds take ``catalog-<fingerprint>.lock`` first, so a second process waits for the
  first one instead of building the same catalog beside it.

The cache folder may be writable by other local users: no entry that is a symlink or another user's is
followed, removed, locked or loaded (``envs.cache_files``). Cleaning skips such an entry with a warning;
a lock, catalog or pointer that is one stops with ``UnsafeCacheEntry`` naming it.

One environment can also be generated alone (:func:`default_env_dir`), into
``envs-<fingerprint>/<env_id>``: synthesis is deterministic per domain, so it is the same
environment, byte for byte, as the one in the whole catalog, made in about a second. ``envfarm mcp``
uses it to serve a synthesized environment at once on a cold cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator
from importlib.metadata import version
from pathlib import Path
from typing import IO, TYPE_CHECKING

from envs import paths
from envs.cache_files import UnsafeCacheEntry, open_lock, read_pointer, require_trusted, trusted, write_new
from envs.errors import EnvFarmError

from ..domains.ontology import ONTOLOGY_DIR, load_ontology

if TYPE_CHECKING:  # the pipeline is imported when something is generated: looking up costs less
    from ..dual import DualDomain
    from .pipeline import EnvOutcome, SynthesisConfig

try:
    import fcntl
except ImportError:  # not POSIX: no locks; a staging directory is judged by the pid in its name alone
    fcntl = None  # type: ignore[assignment]

DEFAULT_SEED = 0
_COMPLETE = "COMPLETE"
_WRITER_LOCK = ".writer"
# Subpackages of synthesis/ the default catalog does not depend on: editing them keeps the cache.
_NOT_IN_CATALOG = frozenset({"tau2", "bench"})
log = logging.getLogger("envfarm.cache")
_STAGING = re.compile(r"\.tmp(?P<pid>\d+)(?:-[0-9a-f]+)?$")


class SynthesisFailed(EnvFarmError):
    """A built-in domain did not pass synthesis, so the default catalog has no environment for it."""


def fingerprint() -> str:
    """Hash of everything the default catalog depends on: synthesis's code and ontology, and the
    ``envs`` library it builds with (the seeds keep the quality measures' rules, tasks are checked by
    its engine)."""
    h = hashlib.sha256(f"faker={version('faker')};seed={DEFAULT_SEED}".encode())
    root = Path(__file__).resolve().parent.parent
    code = [p for p in root.rglob("*.py") if p.relative_to(root).parts[0] not in _NOT_IN_CATALOG]
    library = root.parent / "envs"
    for path in sorted([*code, *ONTOLOGY_DIR.glob("*.json")]):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    for path in sorted(library.rglob("*.py")):
        h.update(path.relative_to(root.parent).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def default_catalog_dir() -> Path:
    return paths.cache_dir() / f"catalog-{fingerprint()}"


def default_envs_dir() -> Path:
    """Where environments generated one at a time live (those of this fingerprint)."""
    return paths.cache_dir() / f"envs-{fingerprint()}"


def is_built(target: Path | None = None) -> bool:
    """Whether the whole default catalog is in the cache."""
    return ((target or default_catalog_dir()) / _COMPLETE).exists()


def synthesis_config(out: Path, workers: int = 1) -> SynthesisConfig:
    """The configuration the default catalog is made with (one environment or all of them)."""
    from .pipeline import SynthesisConfig

    return SynthesisConfig(out=out, seed=DEFAULT_SEED, workers=workers, quality=False)


# -- locks and staging --------------------------------------------------------------------------


def _try_lock(f: IO[str] | int) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _lock(f: IO[str] | int) -> None:
    if fcntl is not None:
        fcntl.flock(f, fcntl.LOCK_EX)


def lock_held(lock: Path) -> bool:
    """Whether a process holds the lock file ``lock`` (builds that catalog right now). A lock that is a
    symlink or another user's is never opened through; it counts as held, so what it guards is kept."""
    try:
        fd = open_lock(lock, create=False)
    except FileNotFoundError:
        return False
    except UnsafeCacheEntry as exc:
        log.warning("%s", exc)
        return True
    except OSError:
        return True
    try:
        return not _try_lock(fd)
    finally:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except OSError:  # no signals on this platform: assume alive, never remove a live writer's files
        return True
    return True


def _is_stale(path: Path) -> bool:
    """Whether ``path`` is staging left by a writer that is gone."""
    m = _STAGING.search(path.name)
    if m is None:
        return False
    if fcntl is not None and path.is_dir() and not path.is_symlink():
        try:
            fd = open_lock(path / _WRITER_LOCK, create=False)
        except FileNotFoundError:  # a writer just starting, or one from before locks existed
            pass
        except (OSError, UnsafeCacheEntry):
            return False
        else:
            try:
                # a writer holds its lock from before the file has this name until it is gone
                return _try_lock(fd)
            finally:
                os.close(fd)
    return not _pid_alive(int(m["pid"]))


def clean_stale() -> list[Path]:
    """Remove the staging left in the cache by writers that died (killed, crashed); return it.

    Symlinks and other users' entries are skipped with a warning, never followed nor removed.
    """
    root = paths.cache_dir()
    try:
        candidates = [*root.iterdir()]
    except OSError:
        return []
    for envs in [p for p in candidates if p.name.startswith("envs-")]:
        if trusted(envs) and envs.is_dir():
            with contextlib.suppress(OSError):
                candidates += envs.iterdir()
    removed = []
    for path in candidates:
        if _STAGING.search(path.name) is None or not trusted(path) or not _is_stale(path):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        if not path.exists():
            removed.append(path)
    return removed


@contextlib.contextmanager
def _staging(target: Path) -> Iterator[Path]:
    """A fresh directory beside ``target``, locked as this process's while the block runs, and
    removed at its end (what the block moved out of it stays)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f"{target.name}.tmp{os.getpid()}-{secrets.token_hex(4)}")
    staging.mkdir()
    try:
        # Lock first, then give the lock file its name: a cleaner never finds it unlocked.
        pending = staging / f"{_WRITER_LOCK}.{secrets.token_hex(4)}"
        with open(pending, "w", encoding="utf-8") as lock:
            _lock(lock)
            pending.rename(staging / _WRITER_LOCK)
            yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def _build_lock(target: Path, on_wait: Callable[[], None]) -> Iterator[None]:
    """Hold ``<target>.lock``: one process builds a given catalog at a time."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = open_lock(target.with_name(target.name + ".lock"), create=True)
    try:
        if not _try_lock(fd):
            on_wait()
            _lock(fd)
        yield
    finally:
        os.close(fd)


def _point_at(target: Path) -> None:
    """Make the pointer name ``target``. A pointer that is a symlink or another user's is not replaced:
    it is an error (UnsafeCacheEntry), since whoever planted it could plant it again."""
    pointer = paths.cache_dir() / paths.CURRENT_POINTER
    try:
        if read_pointer(pointer) == str(target):
            return
    except OSError:
        pass
    tmp = pointer.with_name(f"{pointer.name}.tmp{os.getpid()}-{secrets.token_hex(4)}")
    write_new(tmp, str(target) + "\n")
    tmp.replace(pointer)


# -- the catalog and its environments -----------------------------------------------------------


def ensure_default_catalog(
    *,
    workers: int | None = None,
    progress: Callable[[EnvOutcome], None] = lambda o: None,
    on_wait: Callable[[], None] = lambda: None,
) -> Path:
    """Generate the default catalog unless the cache already holds it; point ``envs`` at it.

    Staging left by a writer that died is removed first. If another process is generating the same
    catalog, ``on_wait`` is called and this one waits for it, then uses its result.

    Raises:
        UnsafeCacheEntry: the catalog folder, its lock or the pointer is a symlink or another user's.
    """
    target = default_catalog_dir()
    require_trusted(target)  # another user's catalog, complete or not, is not loaded nor replaced
    clean_stale()
    if not is_built(target):
        with _build_lock(target, on_wait):
            clean_stale()  # a writer we waited for may have died instead of finishing
            if not is_built(target):
                from .pipeline import run_pipeline

                with _staging(target) as staging:
                    config = synthesis_config(staging, workers=workers or os.cpu_count() or 1)
                    run_pipeline(load_ontology(), config, progress=progress)
                    from ..dual import write_dual_catalog

                    write_dual_catalog(staging, seed=DEFAULT_SEED, domains=dual_domains())
                    from ..knowledge import write_kb_catalog

                    write_kb_catalog(staging, sources=[d.id for d in load_ontology()])
                    (staging / _COMPLETE).write_text(fingerprint() + "\n", encoding="utf-8")
                    (staging / _WRITER_LOCK).unlink()
                    shutil.rmtree(target, ignore_errors=True)  # an incomplete one (no COMPLETE): not ours to keep
                    staging.rename(target)
    _point_at(target)
    return target


def default_env_ids() -> list[str]:
    """Ids of the environments the default catalog synthesizes (one per built-in domain, the
    dual-control ones after the others)."""
    return [d.id for d in load_ontology()] + [d.id for d in dual_domains()]


def dual_domains() -> list[DualDomain]:
    """The built-in dual-control domains (``synthesis.dual``), imported when asked for."""
    from ..dual.devices import built_in_domains

    return list(built_in_domains())


def default_env_dir(env_id: str) -> Path | None:
    """The directory of the synthesized environment ``env_id`` of the default catalog, generating
    only that environment when the whole catalog is not built; None when no built-in domain has
    that id. A knowledge-base variant (``<id>_kb``) is made from its source environment, made alone
    first; None when that source gets no variant.

    Raises:
        SynthesisFailed: the domain did not pass synthesis (the whole catalog would lack it too).
        UnsafeCacheEntry: the catalog or environments folder is a symlink or another user's.
    """
    full = default_catalog_dir()
    require_trusted(full)
    if is_built(full):
        found = full / env_id
        return found if (found / paths.SPEC_FILE).is_file() else None
    require_trusted(default_envs_dir())
    target = default_envs_dir() / env_id
    if (target / paths.SPEC_FILE).is_file():
        return target
    from ..dual import build_dual_env, write_env
    from ..knowledge import SUFFIX, variant_for

    source = env_id.removesuffix(SUFFIX)  # a knowledge-base variant is made from its source environment
    domain = next((d for d in load_ontology() if d.id == source), None)
    dual = next((d for d in dual_domains() if d.id == env_id), None)
    if domain is None and dual is None:
        return None
    from .pipeline import synthesize_one

    clean_stale()
    with _staging(target) as staging:
        if dual is not None:
            write_env(*build_dual_env(dual, seed=DEFAULT_SEED), staging)
        else:
            assert domain is not None
            outcome = synthesize_one(domain, 0, synthesis_config(staging))
            if outcome.status != "accepted":
                raise SynthesisFailed(f"environment '{source}' did not pass synthesis ({outcome.reason})")
            if source != env_id:
                variant = variant_for(staging / source)
                if variant is None:  # the source has too few tasks a document decides: no variant
                    return None
                write_env(variant.spec, variant.tasks, staging)
        try:
            (staging / env_id).rename(target)
        except OSError:
            if not (target / paths.SPEC_FILE).is_file():  # not a concurrent writer's identical result
                raise
    return target
