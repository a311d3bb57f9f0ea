"""``envfarm envs ...`` and ``envfarm tasks ...``: browse and check the catalog."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.measure import Measurement
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from envs.catalog import CatalogEntry
from envs.check import CheckReport, check_env
from envs.formats.file_schemas import format_schema
from envs.quality import ENV_COLUMNS, QualityReport, quality_report, total_lines
from envs.schemas.client_conversions import GEMINI_HINT, GOOGLE_GENAI, Conversions, google_genai_conversions
from envs.schemas.dialects import DEFAULT_DIALECT, SHAPES
from envs.schemas.lint import VENDOR_DIALECT, VENDOR_RULES, VENDORS, lint_environments

from .catalogs import open_catalog

catalog_option = click.option(
    "--catalog",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Catalog directory (default: the reference environments plus the generated catalog, made on first "
    "use; $ENVFARM_CATALOG overrides).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")


def _key_column(header: str, values: list[str]) -> Column:
    """A column of ids that are never wrapped or cut: they are what a user copies into the next command
    (the other columns wrap to make room)."""
    return Column(header, no_wrap=True, min_width=max([len(header), *map(len, values)]))


def _text_column(header: str) -> Column:
    """A column of prose: a word too long for it (an email address, a date) folds instead of being cut."""
    return Column(header, overflow="fold")


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def _named_entries(catalog: Path | None, env_ids: tuple[str, ...]) -> list[CatalogEntry]:
    """The named environments (all if none), every id looked up before any work starts."""
    cat = open_catalog(catalog)
    return [cat.get(i) for i in (list(env_ids) or cat.ids())]


def _progress(verb: str, *, quiet: bool) -> Progress:
    """A transient bar over environments ("checking retail 3/126"), off when the output is JSON."""
    return Progress(
        TextColumn(f"{verb} {{task.description}}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        disable=quiet,
    )


@click.group()
def envs() -> None:
    """List, show and check environments."""


@envs.command("list")
@catalog_option
@json_option
def envs_list(catalog: Path | None, as_json: bool) -> None:
    """List the environments in the catalog."""
    cat = open_catalog(catalog)
    rows: list[dict[str, Any]] = []
    for env_id in cat.ids():
        e = cat.get(env_id)
        writes = sum(t.kind == "write" for t in e.spec.tools)
        rows.append(
            {
                "id": env_id,
                "name": e.spec.name,
                "sector": e.spec.sector,
                "tables": len(e.spec.tables),
                "tools": len(e.spec.tools),
                "write_tools": writes,
                "tasks": len(e.tasks),
            }
        )
    if as_json:
        _echo_json(rows)
        return
    table = Table(
        _key_column("id", [r["id"] for r in rows]),
        "name",
        "sector",
        "tables",
        "tools (write)",
        "tasks",
        title=f"{len(rows)} environments",
    )
    for r in rows:
        table.add_row(
            r["id"], r["name"], r["sector"], str(r["tables"]), f"{r['tools']} ({r['write_tools']})", str(r["tasks"])
        )
    _natural_width_console(table).print(table)


@envs.command("show")
@click.argument("env_id")
@catalog_option
@json_option
def envs_show(env_id: str, catalog: Path | None, as_json: bool) -> None:
    """Show one environment: tables, tools and policy."""
    e = open_catalog(catalog).get(env_id)
    if as_json:
        _echo_json(e.spec.model_dump(mode="json", exclude={"seed"}))
        return
    con = Console()
    con.print(f"[bold]{e.spec.name}[/bold] ({e.spec.id}, {e.spec.sector}) — {e.spec.description}")
    tables = Table("table", "columns", "seed rows", title="State")
    for t in e.spec.tables:
        tables.add_row(t.name, ", ".join(c.name for c in t.columns), str(len(e.spec.seed.get(t.name, []))))
    con.print(tables)
    tools = Table(
        _key_column("tool", [tool.name for tool in e.spec.tools]),
        "kind",
        _text_column("parameters"),
        _text_column("description"),
        title="Tools",
    )
    for tool in e.spec.tools:
        params = ", ".join(tool.parameters.get("properties", {}))
        tools.add_row(tool.name, tool.kind, params, tool.description)
    con.print(tools)
    con.print(f"{len(e.tasks)} tasks. Policy:\n{e.spec.policy}", markup=False)


@envs.command("check")
@click.argument("env_ids", nargs=-1)
@catalog_option
@json_option
def envs_check(env_ids: tuple[str, ...], catalog: Path | None, as_json: bool) -> None:
    """Check environments (all if none named): schema, SQL, sandbox, determinism, every task's gold replay.

    Exits 1 if any environment has a problem.
    """
    entries = _named_entries(catalog, env_ids)
    reports: list[CheckReport] = []
    with _progress("checking", quiet=as_json) as progress:
        job = progress.add_task("", total=len(entries))
        for e in entries:
            progress.update(job, description=e.spec.id)
            reports.append(check_env(e.spec, e.tasks))
            progress.advance(job)
    if as_json:
        _echo_json([r.to_dict() for r in reports])
    else:
        con = Console()
        for r in reports:
            status = "[green]ok[/green]" if r.ok else f"[red]{len(r.problems)} problem(s)[/red]"
            con.print(f"{r.env_id}: {status} — {r.checks_run} checks, {r.tasks_passed} task(s) verified")
            for p in r.problems:
                con.print(f"  [red]✗[/red] {p}", markup=True, highlight=False)
            for w in r.warnings:
                con.print(f"  [yellow]![/yellow] {w}", highlight=False)
    if not all(r.ok for r in reports):
        raise click.exceptions.Exit(1)


@envs.command("lint-schemas")
@click.argument("env_ids", nargs=-1)
@catalog_option
@json_option
@click.option(
    "--source",
    is_flag=True,
    help="Lint the specs' own parameter schemas instead of the schemas clients are shown (for comparison).",
)
@click.option("--show", type=int, default=10, show_default=True, help="Failing tools to list per vendor.")
def envs_lint_schemas(env_ids: tuple[str, ...], catalog: Path | None, as_json: bool, source: bool, show: int) -> None:
    """Check every tool's schemas (all environments if none named) against the rules of OpenAI strict
    function calling and Anthropic strict tool use (on the strict dialect), Gemini function
    declarations and MCP (on the default dialect) (docs/serving.md).

    Exits 1 if any tool fails any vendor's rules.
    """
    entries = _named_entries(catalog, env_ids)
    with _progress("linting", quiet=as_json) as progress:
        job = progress.add_task("", total=len(entries))
        report = lint_environments(
            (e.environment for e in entries),
            source=source,
            progress=lambda env_id: progress.update(job, advance=1, description=env_id),
        )
    conversions = None if source else _client_conversions(entries)
    if as_json:
        _echo_json({**report.to_dict(), "clients": {GOOGLE_GENAI: conversions.to_dict() if conversions else None}})
    else:
        what = "spec parameter schemas" if source else "tool schemas as clients see them"
        columns = ("rules", "tools", "passed", "failed")
        table = Table(
            *columns[:1],
            *(() if source else ("dialect",)),
            *columns[1:],
            title=f"{what}, {len(entries)} environment(s)",
        )
        for vendor in VENDORS:
            counts = (str(len(report.tools)), str(report.passed(vendor)), str(len(report.failures(vendor))))
            table.add_row(VENDOR_RULES[vendor], *(counts if source else (VENDOR_DIALECT[vendor], *counts)))
        con = Console()
        con.print(table)
        for vendor in VENDORS:
            for t in report.failures(vendor)[:show]:
                more = f" (+{len(t.problems[vendor]) - 1} more)" if len(t.problems[vendor]) > 1 else ""
                con.print(f"  ✗ {vendor} {t.env_id}.{t.tool}: {t.problems[vendor][0]}{more}", highlight=False)
        if not source:
            _print_conversions(con, conversions, show)
    if not report.ok:
        raise click.exceptions.Exit(1)


def _client_conversions(entries: list[CatalogEntry]) -> Conversions | None:
    """google-genai's own conversion of every tool as clients see it, in each dialect (None: not installed)."""
    envs_ = [e.environment for e in entries]
    return google_genai_conversions(
        (env.spec.id, t.name, t.description, env.advertised_parameters(t.name)) for env in envs_ for t in env.spec.tools
    )


def _print_conversions(con: Console, conversions: Conversions | None, show: int) -> None:
    """The clients that convert schemas themselves: what each makes of the tools, per dialect. Not
    part of the exit code: the strict dialect fails google-genai by design (it is for clients that
    convert nothing), and the default is what it is served."""
    if conversions is None:
        con.print(f"{GOOGLE_GENAI} is not installed: its own conversion (mcp_to_gemini_tool) was not checked")
        return
    title = "clients that convert tool schemas themselves (their own code, as installed)"
    table = Table("client", "dialect", "tools", "converted", "failed", title=title)
    for dialect in SHAPES:
        name = f"{conversions.client} {conversions.version}"
        failed = len(conversions.failures[dialect])
        table.add_row(name, dialect, str(conversions.tools), str(conversions.converted(dialect)), str(failed))
    con.print(table)
    # the strict dialect fails google-genai on every tool by design: only the default's failures are news
    for env_id, tool, problem in conversions.failures[DEFAULT_DIALECT][:show]:
        con.print(f"  ✗ {conversions.client} ({DEFAULT_DIALECT}) {env_id}.{tool}: {problem}", highlight=False)
    if conversions.failures["strict"] and not conversions.failures[DEFAULT_DIALECT]:
        con.print(f"  → {GEMINI_HINT}", highlight=False)


@envs.command("quality")
@click.argument("env_ids", nargs=-1)
@catalog_option
@json_option
def envs_quality(env_ids: tuple[str, ...], catalog: Path | None, as_json: bool) -> None:
    """Measure environments (all if none named): refusals, tool use and variety, seed coherence,
    user facts, ambiguous and cross-user goals, staff tools, dependent writes (docs/synthesis.md)."""
    entries = _named_entries(catalog, env_ids)
    with _progress("measuring", quiet=as_json) as progress:
        job = progress.add_task("", total=len(entries))
        report = quality_report(entries, progress=lambda e: progress.update(job, advance=1, description=e.env_id))
    if as_json:
        click.echo(report.to_json(), nl=False)
        return
    _print_quality(report)


def _natural_width_console(table: Table, *, even_on_a_terminal: bool = False) -> Console:
    """A console as wide as ``table`` needs, where rich would squeeze it to 80 columns: output to a
    pipe or file (whose lines nothing wraps), or any output when ``even_on_a_terminal`` (a table whose
    every column is a number that an ellipsis would destroy; the terminal wraps the long lines)."""
    con = Console()
    sized = con.is_terminal or "COLUMNS" in os.environ
    if sized and not even_on_a_terminal:
        return con
    natural = Measurement.get(con, con.options.update_width(1_000), table).maximum
    return Console(width=natural) if natural > con.width else con


def _print_quality(report: QualityReport) -> None:
    table = Table(
        _key_column("environment", [e.env_id for e in report.envs]),
        *(Column(header, justify="right") for header, _ in ENV_COLUMNS),
        title=f"Quality of {len(report.envs)} environment(s)",
    )
    for e in report.envs:
        table.add_row(e.env_id, *(show(e.counts) for _, show in ENV_COLUMNS))
    con = _natural_width_console(table, even_on_a_terminal=True)
    con.print(table)
    totals = Table("measure", _text_column("total"), title="Totals")
    for name, value in total_lines(report.totals, len(report.envs)):
        totals.add_row(name, value)
    con.print(totals)


@envs.command("schema")
@click.argument("kind", type=click.Choice(["spec", "task", "tasks"]))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file instead of stdout.")
def envs_schema(kind: str, out: Path | None) -> None:
    """Print the JSON Schema of the spec, task or tasks-file format."""
    text = json.dumps(format_schema(kind), indent=2)  # type: ignore[arg-type]
    if out:
        out.write_text(text + "\n", encoding="utf-8")
    else:
        click.echo(text)


@click.group()
def tasks() -> None:
    """List and show tasks."""


@tasks.command("list")
@click.argument("env_id")
@catalog_option
@json_option
def tasks_list(env_id: str, catalog: Path | None, as_json: bool) -> None:
    """List the tasks of one environment."""
    e = open_catalog(catalog).get(env_id)
    if as_json:
        _echo_json(
            [
                {"id": t.id, "difficulty": t.difficulty, "calls": len(t.gold_actions), "instruction": t.instruction}
                for t in e.tasks
            ]
        )
        return
    table = Table(
        _key_column("id", [t.id for t in e.tasks]),
        "difficulty",
        "calls",
        _text_column("instruction"),
        title=f"{len(e.tasks)} tasks in {env_id}",
    )
    for t in e.tasks:
        table.add_row(t.id, t.difficulty, str(len(t.gold_actions)), t.instruction)
    Console().print(table)


@tasks.command("show")
@click.argument("task_id")
@catalog_option
def tasks_show(task_id: str, catalog: Path | None) -> None:
    """Show one task as JSON (including its gold actions)."""
    _, task = open_catalog(catalog).task(task_id)
    _echo_json(task.model_dump(mode="json"))
