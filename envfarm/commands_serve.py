"""``envfarm serve`` (HTTP: task service + MCP) and ``envfarm mcp`` (one episode over stdio)."""

from __future__ import annotations

import gc
import json
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from envs.errors import EnvFarmError
from envs.schemas.dialects import DEFAULT_DIALECT, DIALECTS, parse_dialect

if TYPE_CHECKING:
    from envs import CatalogEntry, Task

SWITCH_INTERVAL = 0.0005  # seconds


@click.command()
@click.option("--host", default=None, help="Interface to bind [env ENVFARM_HOST, default 127.0.0.1].")
@click.option("--port", type=int, default=None, help="Port [env ENVFARM_PORT, default 8765].")
@click.option("--catalog", type=click.Path(file_okay=False, path_type=Path), default=None, help="Catalog directory.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the embedded episode database lives [default ./data].",
)
@click.option(
    "--database-url",
    default=None,
    help="SQLAlchemy URL of the episode store, e.g. postgresql+psycopg://... for replicas sharing it "
    "[env ENVFARM_DATABASE_URL, default: SQLite under the data dir].",
)
@click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of envfarm eval run folders the web console shows [env ENVFARM_RUNS_DIR].",
)
@click.option(
    "--embeddings",
    default=None,
    help="Serve the 'embeddings' knowledge mode (documents ranked by meaning) with this model: 'local' "
    "(all-MiniLM-L6-v2, in this process) or an OpenAI-compatible model as MODEL or MODEL@BASE_URL "
    "[env ENVFARM_EMBEDDINGS; default: that mode is refused].",
)
@click.option("--log-level", default=None, help="DEBUG, INFO, WARNING ...")
def serve(
    host: str | None,
    port: int | None,
    catalog: Path | None,
    data_dir: Path | None,
    database_url: str | None,
    runs_dir: Path | None,
    embeddings: str | None,
    log_level: str | None,
) -> None:
    """Serve the task service (REST, OpenAPI at /docs), every episode's MCP endpoint and the web console (/)."""
    import uvicorn

    from server.api import create_app
    from server.connections import raise_open_file_limit, uvicorn_options
    from server.logs import configure_logging
    from server.settings import LOOPBACK_HOSTS, Settings
    from server.store import safe_url

    from .catalogs import ensure_generated

    overrides = {
        k: v
        for k, v in {
            "host": host,
            "port": port,
            "catalog": catalog,
            "data_dir": data_dir,
            "database_url": database_url,
            "runs_dir": runs_dir,
            "embeddings": embeddings,
            "log_level": log_level,
        }.items()
        if v is not None
    }
    settings = Settings.load(**overrides)
    _check_port_free(settings.host, settings.port)  # before anything is built or announced
    if settings.catalog is None:
        ensure_generated()
    raise_open_file_limit()  # before the connection cap is derived from it
    app = create_app(settings)
    if app.state.farm.keys.local_mode and settings.host not in LOOPBACK_HOSTS:
        raise EnvFarmError(
            f"refusing to bind {settings.host} without API keys: set ENVFARM_API_KEYS or ENVFARM_API_KEYS_FILE, "
            "or bind 127.0.0.1"
        )
    if settings.host not in LOOPBACK_HOSTS and not settings.public_url and not settings.allowed_hosts:
        # Otherwise the first remote client learns it from a 421 (DNS-rebinding protection, server/api/hosts.py)
        click.echo(
            "warning: only requests naming a loopback address or the bind address in their Host header are "
            "answered; set ENVFARM_PUBLIC_URL or ENVFARM_ALLOWED_HOSTS to serve under a host name",
            err=True,
        )
    configure_logging(settings.log_level)
    # What is alive now (catalog, compiled environments, modules) lives as long as the server: freezing
    # it keeps full garbage collections from scanning it; one such scan took ~70 ms, stalling every
    # request in flight.
    gc.collect()
    gc.freeze()
    # Tool calls run in worker threads; a thread busy in Python holds the GIL for a whole switch
    # interval (5 ms by default) each time the event loop wants it back, which every other request waits for.
    sys.setswitchinterval(SWITCH_INTERVAL)
    click.echo(
        f"envfarm serving {len(app.state.farm.catalog.ids())} environments on http://{settings.host}:{settings.port}"
        f" (store: {safe_url(settings.store_url())}{', shared by replicas' if settings.store_is_shared() else ''})",
        err=True,
    )
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False, **uvicorn_options(app))


def _check_port_free(host: str, port: int) -> None:
    """Refuse, in one line, a port something already listens on (uvicorn would say so only after
    this command had announced that it serves)."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no obstacle
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise EnvFarmError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc} (another envfarm serve?); "
                "choose another port with --port"
            ) from None


@click.command("mcp")
@click.option("--task", "task_id", default=None, help="Serve an episode of this task.")
@click.option("--env", "env_id", default=None, help="Serve free play in this environment.")
@click.option("--catalog", type=click.Path(file_okay=False, path_type=Path), default=None, help="Catalog directory.")
@click.option("--score-on-exit", is_flag=True, help="Print the task's score as JSON on stderr when the client leaves.")
@click.option(
    "--answer-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Read the agent's final answer from this file when the client leaves (paste it there), for scoring "
    "the task's required outputs; stdio has no channel for it.",
)
@click.option(
    "--dialect",
    default=DEFAULT_DIALECT,
    show_default=True,
    help=f"The schema dialect of the tools' input schemas, one of {', '.join(DIALECTS)}: strict for "
    "code that hands the schemas to a model API with strict: true and converts nothing (docs/serving.md, "
    "'Schema dialects').",
)
def mcp_stdio(
    task_id: str | None,
    env_id: str | None,
    catalog: Path | None,
    score_on_exit: bool,
    answer_file: Path | None,
    dialect: str,
) -> None:
    """Serve one episode over stdio, for desktop MCP clients (Claude Desktop, Cursor, ...)."""
    from server.stdio import run_stdio

    from .catalogs import episode_source

    if (task_id is None) == (env_id is None):
        raise click.UsageError("give exactly one of --task or --env")
    chosen = parse_dialect(dialect, field="--dialect")  # an unknown one is refused in one line, before serving

    def notice(text: str) -> None:
        click.echo(f"envfarm: {text}", err=True)

    source = episode_source(catalog, task_id, env_id, notice=notice)
    failed: list[EnvFarmError] = []

    def open_episode() -> tuple[CatalogEntry, Task | None]:
        try:
            return source()
        except EnvFarmError as exc:  # said at once: the client may stay connected for a long time
            click.echo(f"error: {exc}", err=True)
            failed.append(exc)
            raise

    def final_answer() -> str:
        if answer_file is None or not answer_file.is_file():
            return ""
        return answer_file.read_text(encoding="utf-8", errors="replace")

    try:
        episode, score = run_stdio(open_episode, final_answer, chosen)
    except EnvFarmError as exc:
        if failed and exc is failed[0]:
            raise click.exceptions.Exit(1) from None  # already said
        raise
    if score_on_exit:
        report = {
            "calls": len(episode.trajectory),
            "answer_given": bool(final_answer().strip()),
            "score": score.model_dump(mode="json") if score else None,
        }
        click.echo(json.dumps(report), err=True)
