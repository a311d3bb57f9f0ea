"""Opening the catalog from the CLI: the default one is generated on first use (with progress), or
ahead of time by ``envfarm catalog build``; ``envfarm mcp`` needs only the environment it serves."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from envs import paths
from envs.catalog import Catalog, CatalogEntry
from envs.errors import UnknownEnvironment, UnknownTask
from envs.formats.task import Task

if TYPE_CHECKING:
    from clients.progress import Counter
    from synthesis.catalog.pipeline import EnvOutcome

#: What progress on the first use says: ``generating the default catalog (first use) 12/124 environments, ...``
GENERATING = "generating the default catalog (first use)"

#: What ``envfarm mcp`` serves: the environment and the task (None in free play).
EpisodeSource = Callable[[], tuple[CatalogEntry, Task | None]]


def _waiting(console: Console) -> Callable[[], None]:
    def say() -> None:
        console.print(
            "another envfarm process is generating the default catalog; waiting for it to finish", soft_wrap=True
        )

    return say


@dataclass
class BuildResult:
    """What ``build_default_catalog`` did."""

    path: Path
    built: bool  # False: it was in the cache already (or another process made it while this one waited)
    seconds: float
    environments: int
    tasks: int
    removed: list[Path]  # staging left by writers that died, cleaned up first
    dual_environments: int = 0  # the dual-control ones (the customer holds part of the state)
    dual_tasks: int = 0
    kb_environments: int = 0  # knowledge-base variants (the rules live in a help center)
    kb_tasks: int = 0


def _generate(console: Console, workers: int | None = None) -> tuple[Path, bool]:
    """The default catalog, generated with progress (a bar on a terminal, lines to a pipe or a log)
    unless the cache holds it; and whether this process generated it."""
    from clients.progress import counting
    from synthesis.catalog.default_catalog import default_catalog_dir, ensure_default_catalog, is_built
    from synthesis.domains.ontology import load_ontology

    if is_built(default_catalog_dir()):
        return ensure_default_catalog(), False
    made: list[str] = []
    with ExitStack() as stack:
        progress: list[Counter] = []  # started by the first environment made, so that a refusal
        # before any work (an unsafe cache entry, a lock) stays the command's only line

        def advance(outcome: EnvOutcome) -> None:
            if not progress:
                progress.append(stack.enter_context(counting(GENERATING, len(load_ontology()), "environments")))
            made.append(outcome.env_id)
            progress[0].advance(note=outcome.env_id)

        path = ensure_default_catalog(workers=workers, progress=advance, on_wait=_waiting(console))
    return path, bool(made)


def build_default_catalog(console: Console | None = None, *, workers: int | None = None) -> BuildResult:
    """Generate the default catalog into the cache unless it is there (progress on ``console``)."""
    from synthesis.catalog.default_catalog import clean_stale

    t0 = time.perf_counter()
    removed = clean_stale()
    path, built = _generate(console or Console(stderr=True), workers)
    report = json.loads((path / "synthesis-report.json").read_text(encoding="utf-8"))
    dual_file = path / "dual-control-measures.json"
    dual = json.loads(dual_file.read_text(encoding="utf-8"))["total"] if dual_file.is_file() else {}
    kb_file = path / "knowledge-base-measures.json"
    kb = json.loads(kb_file.read_text(encoding="utf-8"))["total"] if kb_file.is_file() else {}
    return BuildResult(
        path=path,
        built=built,
        seconds=time.perf_counter() - t0,
        environments=int(report["environments"]["accepted"]),
        tasks=int(report["tasks"]["total"]),
        removed=removed,
        dual_environments=int(dual.get("envs", 0)),
        dual_tasks=int(dual.get("tasks", 0)),
        kb_environments=int(kb.get("envs", 0)),
        kb_tasks=int(kb.get("tasks", 0)),
    )


def _generation_off() -> bool:
    return bool(os.environ.get("ENVFARM_CATALOG")) or os.environ.get("ENVFARM_NO_GENERATE") == "1"


def ensure_generated(console: Console | None = None) -> None:
    """Make sure the generated default catalog exists (a no-op when cached or overridden)."""
    if _generation_off():
        return
    _generate(console or Console(stderr=True))


def open_catalog(path: Path | None) -> Catalog:
    """The catalog at ``path``, or the default one (generated on first use)."""
    if path is None:
        ensure_generated()
    return Catalog(path)


def episode_source(
    catalog: Path | None, task_id: str | None, env_id: str | None, *, notice: Callable[[str], None]
) -> EpisodeSource:
    """What ``envfarm mcp`` serves: a call that opens it, at once or (generating it) in about a second.

    Without the whole default catalog in the cache, a reference environment is served at once and a
    synthesized one is generated alone (about a second; ``notice`` says so): the MCP session can
    start meanwhile. Otherwise the catalog is opened as every command opens it. An id that cannot be
    in the catalog is refused here, before anything is served.
    """
    from synthesis.catalog.default_catalog import (
        default_catalog_dir,
        default_env_dir,
        default_env_ids,
        default_envs_dir,
        is_built,
    )

    def pick(cat: Catalog) -> tuple[CatalogEntry, Task | None]:
        if task_id is not None:
            return cat.task(task_id)
        return cat.get(env_id or ""), None

    if catalog is not None or _generation_off() or is_built(default_catalog_dir()):
        found = pick(open_catalog(catalog))
        return lambda: found
    reference = Catalog(paths.BUILTIN_CATALOG)
    wanted = env_id if env_id is not None else (task_id or "").rsplit("-", 1)[0]
    if wanted in reference.ids():
        found = pick(reference)
        return lambda: found
    synthesized = default_env_ids()
    from synthesis.knowledge import SUFFIX

    variant_of = wanted.removesuffix(SUFFIX) if wanted.endswith(SUFFIX) else None
    if wanted not in synthesized and variant_of not in synthesized:
        if task_id is not None:
            suffix = task_id.rsplit("-", 1)[-1] if "-" in task_id else "001"
            known = [t.id for e in reference.ids() for t in reference.get(e).tasks]
            raise UnknownTask(task_id, known + [f"{e}-{suffix}" for e in synthesized])
        raise UnknownEnvironment(wanted, reference.ids() + synthesized)

    def generate() -> tuple[CatalogEntry, Task | None]:
        where = default_env_dir(wanted)
        if where is None:  # a knowledge-base variant of a domain with too few tasks a document decides
            raise UnknownEnvironment(wanted, reference.ids() + synthesized)
        return pick(Catalog([paths.BUILTIN_CATALOG, where.parent]))

    # Whether a domain gets a knowledge-base variant is known once its environment is made: before serving.
    if variant_of is not None or (default_envs_dir() / wanted / paths.SPEC_FILE).is_file():
        found = generate()
        return lambda: found
    notice(
        f"the default catalog is not built yet: generating environment '{wanted}' alone "
        "(about a second; `envfarm catalog build` generates the whole catalog ahead of time)"
    )
    return generate
