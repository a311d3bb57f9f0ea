"""``envfarm eval`` and ``envfarm export ...``: evaluate agents, export trajectories and tasks.

Without ``--server`` these commands start an embedded farm (the real server on a loopback port,
with a temporary data directory) and talk to it over HTTP and MCP like any remote farm.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

server_option = click.option(
    "--server",
    envvar="ENVFARM_SERVER",
    default=None,
    help="Task service URL [env ENVFARM_SERVER]; default: start an embedded farm.",
)
server_key_option = click.option(
    "--server-key", envvar="ENVFARM_SERVER_KEY", default=None, help="API key for --server [env ENVFARM_SERVER_KEY]."
)
catalog_option = click.option(
    "--catalog",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Catalog directory of the embedded farm.",
)


@contextmanager
def farm_url(server: str | None, catalog: Path | None) -> Iterator[str]:
    """``server`` itself, or the URL of an embedded farm that lives for the ``with`` block."""
    if server:
        yield server
        return
    from .catalogs import ensure_generated
    from .embedded import EmbeddedServer

    if catalog is None:
        ensure_generated()  # the default catalog is generated on first use, as for `envfarm serve`

    with EmbeddedServer(catalog=catalog) as url:
        click.echo(f"started an embedded farm at {url}", err=True)
        yield url


def check_selector(selector: str, server: str | None, catalog: Path | None) -> None:
    """Without ``--server``, refuse a selector that names nothing in the local catalog before an
    embedded farm starts for it (the farm would only refuse it after seconds of start-up)."""
    if server:
        return
    from clients.selection import select
    from envs.errors import UnknownTask

    from .catalogs import open_catalog

    text = selector.strip()
    cat = open_catalog(catalog)
    env_ids = cat.ids()
    if not text:
        select(text, env_ids, [])  # raises: an empty selector, in the farm's words
    if text == "all":
        return
    for item in (i.strip() for i in text.removeprefix("env:").split(",") if i.strip()):
        if item in env_ids:
            continue
        if not text.startswith("env:"):
            try:
                cat.task(item)
                continue
            except UnknownTask:
                pass
        select(("env:" if text.startswith("env:") else "") + item, env_ids, [])  # raises, with suggestions


def check_knowledge(knowledge: str | None, server: str | None) -> None:
    """Without ``--server``, refuse ``--knowledge embeddings`` when the embedded farm would have no model
    (every trial would be refused, one by one)."""
    import os

    from envs.errors import EnvFarmError

    if knowledge == "embeddings" and not server and not os.environ.get("ENVFARM_EMBEDDINGS"):
        raise EnvFarmError(
            "--knowledge embeddings needs an embedding model: set ENVFARM_EMBEDDINGS=local (or an OpenAI-compatible "
            "MODEL or MODEL@BASE_URL) for the embedded farm, or give --server a farm started with --embeddings"
        )


EXIT_INCOMPLETE = 3  # the run finished, but its report lacks trials: a script should run it again


@click.command("eval")
@click.option("--agent", type=click.Choice(["oracle", "openai", "anthropic"]), required=True, help="The agent.")
@click.option("--model", default=None, help="The agent's model (openai, anthropic).")
@click.option("--base-url", default=None, help="The agent API's base URL (any OpenAI-compatible server).")
@click.option("--api-key-env", default=None, help="Variable holding the agent's API key [OPENAI_/ANTHROPIC_API_KEY].")
@click.option(
    "--user",
    type=click.Choice(["solo", "llm", "oracle"]),
    default="solo",
    show_default=True,
    help="The user side (with --agent oracle, solo means oracle: it takes the gold's user actions in dual control).",
)
@click.option("--user-model", default=None, help="The LLM user simulator's model [default: the agent's].")
@click.option("--user-base-url", default=None, help="The simulator's OpenAI-compatible base URL.")
@click.option("--user-api-key-env", default=None, help="Variable holding the simulator's API key.")
@click.option("--tasks", "selector", default="all", show_default=True, help="all, ENV, TASK, a comma list, env:A,B.")
@click.option("--trials", type=click.IntRange(min=1), default=1, show_default=True, help="Trials per task (k).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Trials at once.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Run directory.")
@click.option("--max-turns", type=click.IntRange(min=1), default=30, show_default=True, help="Agent turns/episode.")
@click.option("--max-tool-calls", type=click.IntRange(min=1), default=50, show_default=True, help="Calls/episode.")
@click.option("--max-tokens", type=click.IntRange(min=1), default=4096, show_default=True, help="Per response.")
@click.option("--temperature", type=float, default=None, help="Sampling temperature [API default].")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True, help="Retries per API call.")
@click.option("--retry-delay", type=float, default=1.0, show_default=True, help="First backoff, seconds.")
@click.option(
    "--knowledge",
    type=click.Choice(["search", "full", "required", "none", "embeddings"]),
    default=None,
    help="Where the agent finds an environment's documents: searched with tools [default], all in the policy, "
    "the task's required ones in the policy, none, or searched by meaning (a farm started with --embeddings; "
    "docs/serving.md).",
)
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@server_option
@server_key_option
@catalog_option
def eval_cmd(
    agent: str,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    user: str,
    user_model: str | None,
    user_base_url: str | None,
    user_api_key_env: str | None,
    selector: str,
    trials: int,
    concurrency: int,
    out: Path,
    max_turns: int,
    max_tool_calls: int,
    max_tokens: int,
    temperature: float | None,
    retries: int,
    retry_delay: float,
    knowledge: str | None,
    no_progress: bool,
    server: str | None,
    server_key: str | None,
    catalog: Path | None,
) -> None:
    """Evaluate an agent on tasks; write results.jsonl and a report (pass^k) to --out.

    Running the same command again resumes: finished trials are kept, the rest are run. Exit code 3:
    the run finished, but some trials hit infrastructure errors and were not counted.
    """
    from clients import EvalConfig, run_eval
    from clients.report import headline

    config = EvalConfig(
        agent=agent,
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        user=user,
        user_model=user_model,
        user_base_url=user_base_url,
        user_api_key_env=user_api_key_env,
        tasks=selector,
        trials=trials,
        concurrency=concurrency,
        out=out,
        server=server or "http://127.0.0.1",  # the embedded farm's URL is known once it runs
        server_key=server_key,
        max_turns=max_turns,
        max_tool_calls=max_tool_calls,
        max_tokens=max_tokens,
        temperature=temperature,
        retry_attempts=retries + 1,
        retry_base_delay=retry_delay,
        knowledge=knowledge,
        show_progress=not no_progress,
    )
    config.check()  # before an embedded farm starts: a bad flag should not wait for it
    check_selector(selector, server, catalog)
    check_knowledge(knowledge, server)
    with farm_url(server, catalog) as url:
        report = run_eval(config.model_copy(update={"server": url}))
    for line in headline(report, out / "report.html"):
        click.echo(line)
    if report.infra_errors:
        click.echo(
            f"warning: {len(report.infra_errors)} trial(s) hit infrastructure errors and were not counted; "
            "run the same command again to retry them",
            err=True,
        )
        click.get_current_context().exit(EXIT_INCOMPLETE)


@click.group()
def export() -> None:
    """Export trajectories (SFT) or tasks (RL) as JSONL."""


@export.command("sft")
@click.option("--from", "run_dir", type=click.Path(file_okay=False, path_type=Path), required=True, help="Run dir.")
@click.option("--min-reward", type=float, default=1.0, show_default=True, help="Keep trials with reward ≥ this.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["openai", "sharegpt"]),
    default="openai",
    show_default=True,
    help="openai: {messages, tools} (TRL, LLaMA-Factory openai); sharegpt: LLaMA-Factory sharegpt.",
)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Output JSONL.")
def export_sft_cmd(run_dir: Path, min_reward: float, fmt: str, out: Path) -> None:
    """Trajectories of an eval run as chat messages with tool definitions."""
    from clients import export_sft

    n = export_sft(run_dir, out, min_reward=min_reward, fmt=fmt)  # type: ignore[arg-type]
    click.echo(f"wrote {n} trajectories to {out}", err=True)


@export.command("tasks")
@click.option("--tasks", "selector", default="all", show_default=True, help="all, ENV, TASK, a comma list, env:A,B.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Output JSONL.")
@server_option
@server_key_option
@catalog_option
def export_tasks_cmd(
    selector: str, out: Path, server: str | None, server_key: str | None, catalog: Path | None
) -> None:
    """Tasks without gold (id, env, instruction, user profile, difficulty) for RL trainers."""
    from clients import export_tasks

    check_selector(selector, server, catalog)
    with farm_url(server, catalog) as url:
        n = export_tasks(url, selector, out, api_key=server_key)
    click.echo(f"wrote {n} tasks to {out}", err=True)
