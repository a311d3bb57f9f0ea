"""Opening the catalog from the CLI: the default one is generated on first use (with progress)."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from envs.catalog import Catalog


def ensure_generated(console: Console | None = None) -> None:
    """Make sure the generated default catalog exists (a no-op when cached or overridden)."""
    if os.environ.get("ENVFARM_CATALOG") or os.environ.get("ENVFARM_NO_GENERATE") == "1":
        return
    from synthesis.default_catalog import default_catalog_dir, ensure_default_catalog
    from synthesis.ontology import load_ontology

    if (default_catalog_dir() / "COMPLETE").exists():
        ensure_default_catalog()
        return
    total = len(load_ontology())
    with Progress(
        TextColumn("generating the default catalog (first use) {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=True,
    ) as progress:
        job = progress.add_task("", total=total)
        ensure_default_catalog(progress=lambda o: progress.update(job, advance=1, description=o.env_id))


def open_catalog(path: Path | None) -> Catalog:
    """The catalog at ``path``, or the default one (generated on first use)."""
    if path is None:
        ensure_generated()
    return Catalog(path)
