"""``envfarm synthesize`` and ``envfarm envs graph``."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import click
from rich.console import Console

from envs.errors import EnvFarmError


@click.command()
@click.option(
    "--domains",
    default="all",
    show_default=True,
    help="'all', a number N (the first N built-in domains by id), or a text file of task descriptions "
    "or domain names (mined into topics).",
)
@click.option(
    "--variants",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Environments per domain, each with its own seed data and tasks.",
)
@click.option("--tasks-per-env", type=click.IntRange(min=1), default=30, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Catalog directory to write."
)
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True)
@click.option(
    "--llm-base-url",
    default=None,
    help="OpenAI-compatible API: writes domains for topics mined from a file, and rewrites task texts "
    "(each rewrite is re-verified to keep every fact).",
)
@click.option("--llm-model", default=None, help="Model name for the LLM backend.")
@click.option("--llm-api-key-env", default="OPENAI_API_KEY", show_default=True, help="Env var holding the API key.")
@click.option(
    "--substitute-nearest",
    is_flag=True,
    help="Offline, synthesize the nearest built-in domain for a topic no built-in domain fits (default: skip it).",
)
def synthesize(
    domains: str,
    variants: int,
    tasks_per_env: int,
    seed: int,
    out: Path,
    workers: int,
    llm_base_url: str | None,
    llm_model: str | None,
    llm_api_key_env: str,
    substitute_nearest: bool,
) -> None:
    """Synthesize verified environments and tasks into a catalog, with a report."""
    from clients.progress import counting, stepping
    from synthesis.catalog.pipeline import SynthesisConfig, run_pipeline
    from synthesis.sources.selection import select

    with contextlib.ExitStack() as stack:
        if Path(domains).is_file():  # the first match embeds every domain's examples: about a minute, once
            stack.enter_context(stepping("matching the requests to domains"))
        selection = select(
            domains,
            llm_base_url=llm_base_url,
            llm_model=llm_model,
            llm_api_key_env=llm_api_key_env,
            substitute=substitute_nearest,
        )
    con = Console(soft_wrap=True, stderr=True)
    for t in selection.topics:
        if t.decision != "built-in":
            nearest = ", ".join(f"{d} {s:.2f}" for d, s in t.nearest)
            con.print(
                f"no built-in domain fits '{t.topic}' (nearest: {nearest}); {t.decision.removeprefix('no fit: ')}"
            )
    chosen = selection.domains
    if not chosen:
        hint = (
            " (no topic fits a built-in domain: add --substitute-nearest or an LLM backend)" if selection.topics else ""
        )
        raise EnvFarmError(f"--domains {domains!r} selects no domain{hint}")
    llm = None
    if llm_base_url:
        from synthesis.sources.llm import ClientConfig

        if not llm_model:
            raise EnvFarmError("--llm-model is required with --llm-base-url")
        llm = ClientConfig(base_url=llm_base_url, model=llm_model, api_key_env=llm_api_key_env)
    config = SynthesisConfig(
        out=out,
        seed=seed,
        tasks_per_env=tasks_per_env,
        variants=variants,
        workers=workers,
        llm=llm,
        topics=[t.to_dict() for t in selection.topics],
    )
    with counting("synthesize", len(chosen) * variants, "environments") as progress:
        report = run_pipeline(chosen, config, progress=lambda o: progress.advance(note=f"{o.env_id} {o.status}"))
    envs = report["environments"]
    Console(soft_wrap=True).print(  # a path is never broken across lines
        f"{envs['accepted']} of {envs['attempted']} environments accepted ({report['domains']} domains, "
        f"{len(report['sectors'])} sectors), {report['tasks']['total']} verified tasks, "
        f"{report['tools']['average']} tools per env, in {report['seconds']:.1f} s. "
        f"Report: {out / 'synthesis-report.md'}"
    )


@click.command("graph")
@click.argument("env_id")
@click.option("--format", "fmt", type=click.Choice(["json", "graphml", "png"]), default="json", show_default=True)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Output file (default: <env_id>.graph.<ext>).",
)
@click.option("--catalog", type=click.Path(file_okay=False, path_type=Path), default=None)
def envs_graph(env_id: str, fmt: str, out: Path | None, catalog: Path | None) -> None:
    """Export an environment's tool dependency graph (json, graphml or png)."""
    from synthesis.tasks.graph import export_graph, graph_from_json, graph_from_spec

    from .catalogs import open_catalog

    entry = open_catalog(catalog).get(env_id)
    saved = entry.path / "graph.json" if entry.path else None
    g = graph_from_json(json.loads(saved.read_text())) if saved and saved.exists() else graph_from_spec(entry.spec)
    target = out or Path(f"{env_id}.graph.{fmt}")
    export_graph(g, target, fmt)  # type: ignore[arg-type]
    click.echo(f"{g.number_of_nodes()} tools, {g.number_of_edges()} edges -> {target}")
