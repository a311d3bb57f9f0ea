"""``envfarm import tau2``: tau2-bench domains as envfarm environments (docs/tau2.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console
from rich.progress import Progress


def _advance(progress: Progress, label: str) -> Callable[[int, int], None]:
    bar = progress.add_task(label, total=None)
    return lambda done, total: progress.update(bar, completed=done, total=total)


@click.group(name="import")
def import_group() -> None:
    """Import environments from other benchmarks."""


@import_group.command(name="tau2")
@click.argument("data_dir", type=click.Path(path_type=Path))
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Catalog directory to write."
)
def import_tau2(data_dir: Path, out: Path) -> None:
    """Import tau2-bench's retail, airline, telecom and banking_knowledge domains from DATA_DIR.

    DATA_DIR is one domain folder (db.json, tasks.json, policy.md; telecom: db.toml, user_db.toml,
    main_policy.md, tech_support_manual.md, tasks_small.json), a folder holding retail/, airline/
    and telecom/, or a tau2-bench checkout. Every gold action is replayed while importing.
    """
    from synthesis.tau2 import domain_folders, prepare_domain, write_import  # only when importing

    folders = domain_folders(data_dir)  # before anything is written: a wrong path writes nothing
    console = Console(stderr=True, soft_wrap=True)
    prepared = []
    # Every domain is read, checked and converted before any is written: a malformed file in one
    # leaves the output folder as it was (a Tau2ImportError is one line on stderr and exit code 1).
    for folder in folders:
        # off when stderr is no terminal: a stopped live display would leave a blank line before an error
        with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
            prepared.append(prepare_domain(folder, progress=_advance(progress, f"importing {folder.name}")))
    for one in prepared:
        result = write_import(one, out)
        failing = len(result.failing_gold_actions)
        click.echo(
            f"{result.env_id}: {result.tasks} tasks, {result.gold_actions} gold actions "
            f"({failing} fail in tau2 too and are left out of the gold) -> {result.path}"
        )
        if result.left_out:
            click.echo(
                f"{result.env_id}: {len(result.left_out)} task(s) not imported: their gold actions use a "
                "discoverable tool this version does not have yet"
            )
    click.echo(f"serve it with: envfarm serve --catalog {out}")
