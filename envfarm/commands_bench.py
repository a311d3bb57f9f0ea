"""``envfarm bench ...``: benchmarks that write their results as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from envs.bench import bench_engine


def out_option(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--out``: where a benchmark writes its JSON (``bench-results/<name>.json`` by default)."""
    return click.option(
        "--out",
        type=click.Path(dir_okay=False, path_type=Path),
        default=Path(f"bench-results/{name}.json"),
        show_default=True,
        help="Where to write the JSON results.",
    )


def write_results(out: Path, result: dict[str, Any]) -> None:
    """A benchmark's results as indented JSON at ``out`` (its folder made if needed)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


#: ``--catalog`` of the benchmarks that measure a catalog's environments.
catalog_option = click.option(
    "--catalog",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Catalog directory (default: the reference environments plus the generated catalog).",
)

# How many steps each benchmark announces through its progress callback (for "[2/5]" in progress lines).
SERVE_STEPS = 5  # starting servers, sequential calls, the same payload, concurrent clients, live episode memory
SHARED_STORE_STEPS = 3  # sequential reads, sequential writes, concurrent clients
ISOLATION_STEPS = 16  # the logs to read, B alone, then beside seven kinds of hostile calls, to this farm and another


@click.group()
def bench() -> None:
    """Run benchmarks; results are written as JSON."""


@bench.command("engine")
@out_option("engine")
@click.option(
    "--repeat", type=click.IntRange(min=5), default=200, show_default=True, help="Timed runs per measurement."
)
@click.option(
    "--tau2",
    "tau2_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="ENVFARM_TAU2_DIR",
    help="A tau2-bench data folder (or checkout): adds a tau2_retail row measured on tau2's own retail database "
    "[env: ENVFARM_TAU2_DIR].",
)
def bench_engine_cmd(out: Path, repeat: int, tau2_dir: Path | None) -> None:
    """Episode creation, a write call and a score on a ~1 MB database, beside dict baselines."""
    from clients.progress import stepping

    if tau2_dir is not None:
        from synthesis.tau2 import domain_folders

        domain_folders(tau2_dir)  # a wrong path is refused before anything is measured
    with stepping("bench engine"):
        result = bench_engine(repeat=repeat)
        if tau2_dir is not None:
            from synthesis.bench.tau2 import bench_tau2_retail

            result["tau2_retail"] = bench_tau2_retail(tau2_dir, repeat=repeat)
            from synthesis.bench.tau2_search import banking_folder, bench_tau2_search

            if (banking := banking_folder(tau2_dir)) is not None:
                result["tau2_banking_search"] = bench_tau2_search(banking, repeat=max(5, repeat // 4))
    write_results(out, result)
    con = Console(soft_wrap=True)  # a path or figure is never broken across lines
    for name in ("episode_creation", "write_tool_call", "score"):
        r = result[name]
        con.print(
            f"{name:18} {r['envfarm']['median_ms']:8.3f} ms   baseline {r['dict_baseline']['median_ms']:8.3f} ms"
            f"   speedup {r['speedup_vs_baseline']:7.1f}x"
        )
    con.print(f"database {result['database_bytes'] / 1e6:.2f} MB; results in {out}")
    if (t := result.get("tau2_retail")) is not None:
        tau2 = t["tau2_reported_ms"]
        con.print(
            f"tau2_retail ({t['db_json_bytes'] / 1e6:.1f} MB db.json): reset {t['reset']['median_ms']:.3f} ms "
            f"(tau2 get_environment {tau2['get_environment']} ms), state hash {t['state_hash']['median_ms']:.1f} ms "
            f"(tau2 {tau2['db_hash']} ms), score {t['score']['median_ms']:.3f} ms (tau2 {tau2['score_one_task']} ms)"
        )
    if (s := result.get("tau2_banking_search")) is not None:
        ratio = s.get("kb_search_ratio_vs_rank_bm25")
        con.print(
            f"tau2_banking ({s['documents']} documents): {s['queries_per_search_timing']} KB_search "
            f"{s['kb_search']['median_ms']:.1f} ms"
            + (f" ({ratio:.2f}x rank_bm25's)" if ratio is not None else "")
            + f", grep {s['grep']['median_ms']:.1f} ms ({s['grep_ratio_vs_python_re']:.2f}x re.findall's)"
        )


@bench.command("serve")
@out_option("serve")
@click.option("--calls", type=click.IntRange(min=10), default=2000, show_default=True, help="Sequential calls.")
@click.option("--clients", type=click.IntRange(min=1), default=32, show_default=True, help="Concurrent clients.")
@click.option("--per-client", type=click.IntRange(min=1), default=100, show_default=True, help="Calls per client.")
@click.option(
    "--episodes",
    "memory_counts",
    type=int,
    multiple=True,
    default=(1000, 10000),
    show_default=True,
    help="Live-episode counts to measure memory for (repeatable).",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Sequential measurements to take the median of.",
)
@click.option(
    "--shared-store-url",
    metavar="URL",
    default=None,
    help="Also measure a farm on this shared store (e.g. postgresql+psycopg://...) beside the embedded one.",
)
def bench_serve_cmd(
    out: Path,
    calls: int,
    clients: int,
    per_client: int,
    memory_counts: tuple[int, ...],
    repeats: int,
    shared_store_url: str | None,
) -> None:
    """Tool calls/s through the farm beside a bare MCP server, and memory of many live episodes."""
    from clients.progress import stepping
    from server.bench.serve import bench_serve, bench_shared_store

    with stepping("bench serve", SERVE_STEPS + (SHARED_STORE_STEPS if shared_store_url else 0)) as steps:
        result = bench_serve(
            calls=calls,
            clients=clients,
            per_client=per_client,
            repeats=repeats,
            memory_counts=memory_counts,
            progress=steps.step,
        )
        if shared_store_url:
            result["shared_store"] = bench_shared_store(
                shared_store_url, calls=calls, clients=clients, per_client=per_client, progress=steps.step
            )
    write_results(out, result)
    con = Console(soft_wrap=True)  # a path or figure is never broken across lines
    for key, figures in result.items():
        if key.endswith("_calls_per_s") and isinstance(figures, dict):
            baseline = next(v for k, v in figures.items() if k.startswith("bare_mcp"))
            con.print(
                f"{key.removesuffix('_calls_per_s'):22} {figures['envfarm']:8.1f} calls/s  bare MCP server "
                f"{baseline:8.1f}  ratio {figures['ratio']:.3f}"
            )
    for count, memory in result.get("live_episode_memory", {}).items():
        if isinstance(memory, dict) and "kb_per_episode" in memory:
            con.print(
                f"{count} live episodes: {memory['rss_growth_mb']:.0f} MB ({memory['kb_per_episode']:.0f} KB each)"
            )
    con.print(f"results in {out}")


@bench.command("synthesis")
@out_option("synthesis")
@click.option(
    "--envs",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Environments to synthesize (variants of the built-in domains are used to reach it).",
)
@click.option("--tasks-per-env", type=click.IntRange(min=1), default=30, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Default: one per CPU.")
def bench_synthesis_cmd(out: Path, envs: int, tasks_per_env: int, workers: int | None) -> None:
    """Environments and verified tasks per minute; projects the time for 1,000 environments."""
    from clients.progress import counting
    from synthesis.bench.throughput import baseline_envs, bench_synthesis

    with counting("bench synthesis", baseline_envs(envs) + envs, "environments") as progress:
        result = bench_synthesis(
            envs=envs,
            tasks_per_env=tasks_per_env,
            workers=workers,
            progress=lambda run, o: progress.advance(note=f"{run}: {o.env_id} {o.status}"),
        )
    write_results(out, result)
    full = result["all_workers"]
    Console(soft_wrap=True).print(
        f"{full['environments_accepted']} of {full['environments_attempted']} environments, "
        f"{full['verified_tasks']} verified tasks in {full['seconds']:.0f} s on {full['workers']} workers "
        f"({result['parallel_speedup_vs_baseline']:.2f}x one worker); 1,000 environments would take "
        f"{result['projected_seconds_for_1000_envs']:.0f} s (target {result['target_seconds_for_1000_envs']} s); "
        f"results in {out}"
    )


@bench.command("isolation")
@out_option("isolation")
@click.option(
    "--calls", type=click.IntRange(min=10), default=400, show_default=True, help="Tenant B's calls per phase."
)
@click.option(
    "--attackers", type=click.IntRange(min=1), default=4, show_default=True, help="Tenant A's hostile clients."
)
@click.option(
    "--readers", type=click.IntRange(min=1), default=8, show_default=True, help="Tenant A's clients reading a log."
)
@click.option(
    "--log-calls", type=click.IntRange(min=1), default=500, show_default=True, help="Calls in the log they read."
)
@click.option(
    "--tenant-quota-mb",
    type=click.IntRange(min=4),
    default=64,
    show_default=True,
    help="Tenant A's store quota, which ends the text flood.",
)
@click.option(
    "--idle-sockets",
    type=click.IntRange(min=1, max=60_000),
    default=20_000,
    show_default=True,
    help="Sockets the header flood holds open, in all.",
)
def bench_isolation_cmd(
    out: Path, calls: int, attackers: int, readers: int, log_calls: int, tenant_quota_mb: int, idle_sockets: int
) -> None:
    """Tenant B's call latency alone and while tenant A sends calls that once stalled the farm."""
    from clients.progress import stepping
    from server.bench.isolation import bench_isolation

    with stepping("bench isolation", ISOLATION_STEPS) as steps:
        result = bench_isolation(
            calls=calls,
            attackers=attackers,
            readers=readers,
            log_calls=log_calls,
            tenant_quota_bytes=tenant_quota_mb * 1_000_000,
            idle_sockets=idle_sockets,
            progress=steps.step,
        )
    write_results(out, result)
    con = Console(soft_wrap=True)  # a path or figure is never broken across lines
    alone = result["bystander_alone"]
    for kind, beside in result["bystander_beside"].items():
        con.print(
            f"tenant B p99 {alone['p99_ms']:.2f} ms alone, {beside['p99_ms']:.2f} ms beside {kind} calls "
            f"(ratio {result['p99_ratio'][kind]:.2f}, p50 {result['p50_ratio'][kind]:.2f}; the same calls to another "
            f"farm process: p99 {result['floor_p99_ratio'][kind]:.2f}, p50 {result['floor_p50_ratio'][kind]:.2f}); "
            f"tenant A's calls meanwhile: {result['attack_calls'].get(kind, {}).get('calls', 0)} "
            f"({result['attack_calls_other_farm'].get(kind, {}).get('calls', 0)} to the other farm)"
        )
    flood = result["flood"]
    con.print(
        f"the flood reached tenant A's store quota ({flood['max_store_bytes_per_tenant']:,} bytes): "
        + ", ".join(f"{farm} {'yes' if done else 'no'}" for farm, done in flood["quota_reached"].items())
    )
    for farm, figures in result["farm_processes"].items():
        rss, store = figures["pid_rss_mb"], figures["store_bytes"]
        con.print(
            f"{farm} process: RSS {rss['start']:.0f} MB at start, peak {rss['peak']:.0f} MB "
            f"(+{rss['growth_to_peak']:.0f} MB); store grew {store['growth']:,} bytes"
        )
    outcomes = result["attack_outcomes"]["header_flood"]
    con.print(
        f"header flood of {idle_sockets:,} sockets: "
        + ", ".join(f"{what} {n:,}" for what, n in sorted(outcomes.items()))
        + "; temporary files beside the spill peaked at "
        + ", ".join(
            f"{farm} {n / 2**20:.1f} MiB" for farm, n in result["acceptance"]["spill_temp_file_bytes_peak"].items()
        )
    )
    con.print(f"5xx seen: {len(result['server_errors'])}; results in {out}")


@bench.command("load")
@out_option("load")
@click.option("--clients", type=click.IntRange(min=1, max=256), default=16, show_default=True, help="MCP clients.")
@click.option(
    "--seconds", type=click.FloatRange(min=1, max=3600), default=20.0, show_default=True, help="How long to run."
)
@click.option("--calls-per-episode", type=click.IntRange(min=1, max=500), default=20, show_default=True)
def bench_load_cmd(out: Path, clients: int, seconds: float, calls_per_episode: int) -> None:
    """A soak: concurrent MCP clients creating episodes and calling tools; calls/s, latency, errors, memory."""
    from clients.progress import stepping
    from server.bench.load import bench_load

    with stepping("bench load") as steps:
        result = bench_load(clients=clients, seconds=seconds, calls_per_episode=calls_per_episode, progress=steps.step)
    write_results(out, result)
    rss = result["rss_mb"]
    Console(soft_wrap=True).print(
        f"{result['calls_per_s']:.0f} calls/s, p50 {result['p50_ms']:.2f} ms, p99 {result['p99_ms']:.2f} ms, "
        f"{result['errors']} errors; server RSS {rss['before']:.0f} MB before, {rss['peak']:.0f} peak, "
        f"{rss['after']:.0f} after closing every episode; results in {out}"
    )


@bench.command("rollouts")
@out_option("rollouts")
@click.option("--rollouts", type=click.IntRange(min=1), default=200, show_default=True, help="Rollouts to run.")
@click.option("--concurrency", type=click.IntRange(min=1), default=16, show_default=True, help="Rollouts at once.")
@click.option("--tasks", default="all", show_default=True, help="Task selector; rollouts cycle through the tasks.")
@click.option(
    "--transport",
    type=click.Choice(["mcp", "rest"]),
    default="mcp",
    show_default=True,
    help="How the adapter reaches each episode's tools.",
)
@click.option(
    "--server",
    envvar="ENVFARM_SERVER",
    default=None,
    help="A farm to measure [env ENVFARM_SERVER]; default: start `envfarm serve` on a free port.",
)
@click.option("--server-key", envvar="ENVFARM_SERVER_KEY", default=None, help="An admin key for --server.")
def bench_rollouts_cmd(
    out: Path, rollouts: int, concurrency: int, tasks: str, transport: str, server: str | None, server_key: str | None
) -> None:
    """Oracle rollouts through the adapters' episode layer: rollouts/s and the farm's share of rollout time."""
    import tempfile

    from clients.progress import counting
    from clients.training.bench import RolloutBench
    from server.bench.serve import _bench_env, _farm_command, _server
    from server.threaded import free_port

    def run(url: str) -> dict[str, Any]:
        prepared = RolloutBench(
            url,
            rollouts=rollouts,
            concurrency=concurrency,
            tasks=tasks,
            api_key=server_key,
            transport="rest" if transport == "rest" else "mcp",
        )
        with counting("bench rollouts", rollouts, "rollouts") as progress:
            return prepared.run(lambda: progress.advance())

    if server:
        result = run(server)
    else:
        port = free_port()
        with tempfile.TemporaryDirectory() as tmp, _server(_farm_command(port, tmp), port, _bench_env()) as url:
            result = run(url)
    write_results(out, result)
    Console(soft_wrap=True).print(
        f"{result['rollouts']} oracle rollouts ({result['tool_calls']} tool calls, {result['tasks']} tasks) over "
        f"{transport}, {concurrency} at a time: {result['rollouts_per_s']:.1f} rollouts/s, "
        f"{result['rollout_ms']['p50']:.0f} ms each (p50), {result['farm_share_of_rollout_time']:.0%} of it waiting "
        f"on the farm; results in {out}"
    )


@bench.command("gaming")
@click.argument("env_ids", nargs=-1)
@catalog_option
@out_option("gaming")
def bench_gaming_cmd(env_ids: tuple[str, ...], catalog: Path | None, out: Path) -> None:
    """Scripted agents that try to pass tasks without judgment (claims however framed, every value quoted,
    dumps, acting anyway, the policy parroted …) beside the oracle, and correct answers in many natural
    forms, over every task: the grader's false positives and false negatives (docs/synthesis.md)."""
    from rich.table import Table

    from clients.progress import counting
    from envs.quality.gaming import AGENTS, CLASSES, OPEN_AGENTS, TARGETS, bench_gaming

    from .catalogs import open_catalog

    cat = open_catalog(catalog)
    entries = [cat.get(i) for i in (list(env_ids) or cat.ids())]
    with counting("bench gaming", len(entries), "environments") as progress:
        report = bench_gaming(entries, progress=lambda env_id: progress.advance(note=env_id))
    result = report.as_json()
    write_results(out, result)
    table = Table("agent", *(f"{c} ({report.tasks[c]})" for c in CLASSES), title="Pass rate by task class")
    for agent in AGENTS:
        cells = []
        for c in CLASSES:
            rate = report.rate(agent, c)
            text = "–" if rate is None else f"{rate:.1%}"
            cells.append(f"[bold]{text}[/bold]" if c in TARGETS[agent] else f"[dim]{text}[/dim]")
        table.add_row(f"{agent} (open)" if agent in OPEN_AGENTS else agent, *cells)
    correct = Table("correct answers", *(c for c in CLASSES), "all", title="Correct answers in natural forms that pass")
    correct.add_row(
        str(sum(report.natural.values())),
        *(f"{r:.1%}" if (r := report.natural_rate(c)) is not None else "–" for c in CLASSES),
        f"{report.natural_rate() or 0:.1%}",
    )
    con = Console(soft_wrap=True)
    con.print(table)
    con.print(correct)
    con.print(
        "bold: the classes each agent targets; (open): a strategy the answer alone cannot tell from judgment, "
        f'measured apart (docs/synthesis.md, "Gaming"); results in {out}'
    )


@bench.command("retrieval")
@click.argument("env_ids", nargs=-1)
@catalog_option
@click.option(
    "--embeddings",
    default="local",
    show_default=True,
    help="The model that ranks by meaning: 'local', MODEL or MODEL@BASE_URL (OpenAI-compatible).",
)
@out_option("retrieval")
def bench_retrieval_cmd(env_ids: tuple[str, ...], catalog: Path | None, embeddings: str, out: Path) -> None:
    """How often each task's request finds a document it needs in the top 3, by BM25 and by an
    embedding model, in the same run (docs/serving.md, "Documents: searched or in the prompt")."""
    from clients.progress import counting
    from envs.embeddings import embedder
    from synthesis.bench.retrieval import bench_retrieval

    from .catalogs import open_catalog

    model = embedder(embeddings)
    cat = open_catalog(catalog)
    entries = [cat.get(i) for i in (list(env_ids) or cat.ids())]
    with counting("bench retrieval", len(entries), "environments") as progress:
        result = bench_retrieval(entries, model, progress=lambda env_id: progress.advance(note=env_id))
    write_results(out, result)
    totals = result["totals"]
    Console(soft_wrap=True).print(
        f"{totals['tasks']} tasks in {totals['environments']} environments: a required document in the top 3 "
        f"for {totals['bm25_top3']} by BM25, {totals['embeddings_top3']} by {result['model']}; results in {out}"
    )


@bench.command("mining")
@out_option("mining")
def bench_mining_cmd(out: Path) -> None:
    """Requests matched to built-in domains on four labelled sets (the later ones in everyday words
    written apart): fit accuracy and no-fit recall and precision, the threshold calibrated on their dev
    parts (docs/synthesis.md, "Topics to domains")."""
    from clients.progress import stepping
    from synthesis.bench.mining import bench_mining, summary_lines

    with stepping("bench mining"):
        result = bench_mining()
    write_results(out, result)
    con = Console(soft_wrap=True)
    for line in summary_lines(result):
        con.print(line)
    con.print(f"results in {out}")


@bench.command("stdio")
@click.option("--runs", type=click.IntRange(1, 100), default=5, show_default=True, help="Starts of each process.")
@click.option("--task", "task_id", default="retail-001", show_default=True, help="The task envfarm mcp serves.")
@out_option("stdio")
def bench_stdio_cmd(runs: int, task_id: str, out: Path) -> None:
    """CPU seconds and wall time `envfarm mcp` takes to answer initialize, beside a process that only
    imports the MCP SDK's server and answers it (the floor), measured alternately in the same run."""
    from clients.progress import counting
    from server.bench.stdio import bench_stdio

    with counting("bench stdio", runs, "starts") as progress:
        result = bench_stdio(runs=runs, task=task_id, progress=lambda _: progress.advance())
    write_results(out, result)
    mine, floor = result["envfarm_mcp"], result["sdk_floor"]
    Console(soft_wrap=True).print(
        f"envfarm mcp answered initialize after {mine['cpu_s']} s of CPU ({mine['wall_s']} s wall); "
        f"the SDK floor {floor['cpu_s']} s ({floor['wall_s']} s); ratio {result['cpu_ratio']}, "
        f"{result['extra_cpu_s']} s more; results in {out}"
    )
