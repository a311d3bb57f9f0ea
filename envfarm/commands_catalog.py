"""``envfarm catalog build``: generate the default catalog ahead of time."""

from __future__ import annotations

import os

import click
from rich.console import Console

from envs import paths
from envs.catalog import Catalog


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@click.group("catalog")
def catalog() -> None:
    """The default catalog: the reference environments plus every built-in domain, synthesized."""


@catalog.command("build")
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Processes to synthesize with [default: one per CPU]."
)
def catalog_build(workers: int | None) -> None:
    """Generate the default catalog into the cache now, instead of on first use.

    Run it where a first start must be quick: when building an image, in CI before anything that
    serves or evaluates the default catalog, or on a new machine before `envfarm serve` or `envfarm
    eval`. (`envfarm mcp` does not wait for it: it generates only the environment it serves.) It
    does nothing when the cache holds the catalog already.
    """
    from .catalogs import build_default_catalog

    result = build_default_catalog(Console(stderr=True), workers=workers)
    for path in result.removed:
        click.echo(f"removed {path.name}, left unfinished by an envfarm process that was stopped", err=True)
    reference = len(Catalog(paths.BUILTIN_CATALOG).ids())
    dual = (
        f"{_count(result.dual_environments, 'dual-control environment')} with {_count(result.dual_tasks, 'task')}, "
        if result.dual_environments
        else ""
    )
    kb = (
        f"{_count(result.kb_environments, 'knowledge-base variant')} with {_count(result.kb_tasks, 'task')}, "
        if result.kb_environments
        else ""
    )
    what = (
        f"{_count(result.environments, 'environment')} with {_count(result.tasks, 'task')}, {dual}{kb}"
        f"plus {_count(reference, 'reference environment')}"
    )
    if result.built:
        click.echo(f"built the default catalog in {result.seconds:.0f} s at {result.path}: {what}")
    else:
        click.echo(f"the default catalog is already built at {result.path}: {what}")
    if os.environ.get("ENVFARM_CATALOG"):
        click.echo(
            "note: ENVFARM_CATALOG is set, so envfarm commands use that catalog instead until it is unset", err=True
        )


@catalog.command("prune")
@click.option("--dry-run", is_flag=True, help="Only say what would be removed.")
def catalog_prune(dry_run: bool) -> None:
    """Remove default catalogs that older envfarm versions generated into the cache.

    Each change to the synthesis code gets a catalog of its own; the old ones are never read again.
    The current catalog, the one in use, and any another process is building are kept.
    """
    from synthesis.catalog.cache_prune import prune_old_catalogs

    result = prune_old_catalogs(dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    for path in result.removed:
        click.echo(f"{verb} {path}")
    for path in result.kept_in_use:
        click.echo(f"kept {path}: another process is building it, or it is the catalog in use", err=True)
    if not result.removed:
        click.echo(f"no old catalogs in {paths.cache_dir()}")
    else:
        click.echo(f"{verb} {_count(len(result.removed), 'old catalog')}, {result.bytes_freed / 1e6:,.1f} MB")
