"""``envfarm bench ...``: benchmarks that write their results as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from envs.bench import bench_engine


@click.group()
def bench() -> None:
    """Run benchmarks; results are written as JSON."""


@bench.command("engine")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("bench-results/engine.json"),
    show_default=True,
    help="Where to write the JSON results.",
)
@click.option(
    "--repeat", type=click.IntRange(min=5), default=200, show_default=True, help="Timed runs per measurement."
)
def bench_engine_cmd(out: Path, repeat: int) -> None:
    """Episode creation, a write call and a score on a ~1 MB database, beside dict baselines."""
    with Console(stderr=True).status("benchmarking the engine"):
        result = bench_engine(repeat=repeat)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    con = Console()
    for name in ("episode_creation", "write_tool_call", "score"):
        r = result[name]
        con.print(
            f"{name:18} {r['envfarm']['median_ms']:8.3f} ms   baseline {r['dict_baseline']['median_ms']:8.3f} ms"
            f"   speedup {r['speedup_vs_baseline']:7.1f}x"
        )
    con.print(f"database {result['database_bytes'] / 1e6:.2f} MB; results in {out}")
