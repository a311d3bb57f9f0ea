"""``envfarm bench serve``: both servers really serve the measured calls, and the report is complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from envfarm.cli import cli
from server.bench.serve import bench_shared_store

# Beside another worker's tests the clock these tests read is no longer the farm's alone (scripts/test).
pytestmark = pytest.mark.alone


def test_bench_serve_measures_calls_that_went_through_the_farm(tmp_path: Path) -> None:
    out = tmp_path / "serve.json"
    calls, clients, per_client = 60, 2, 10
    argv = ["bench", "serve", "--out", str(out), "--calls", str(calls), "--clients", str(clients)]
    result = CliRunner().invoke(cli, [*argv, "--per-client", str(per_client), "--episodes", "20", "--repeats", "2"])
    assert result.exit_code == 0, result.output
    assert "calls/s" in result.output and f"results in {out}" in result.output  # a summary a person reads
    data = json.loads(out.read_text())
    block, rounds, repeats = data["sequential_block"], data["concurrent_rounds"], data["sequential_repeats"]
    assert repeats == 2
    measured = (calls // block) * block
    burst = max(1, per_client // rounds)
    # sequential and same-payload phases (warm-up + measured, each `repeats` times) on one episode, the REST
    # call that samples the payload, then per concurrent client one warm-up burst and `rounds` measured ones
    expected = 2 * repeats * (min(50, calls) + measured) + 1 + clients * burst * (rounds + 1)
    assert data["farm_calls_logged"] == expected
    for key in ("sequential_calls_per_s", "sequential_same_payload_calls_per_s", f"concurrent_{clients}_calls_per_s"):
        figures = data[key]
        assert figures["envfarm"] > 0
        baseline = figures.get("bare_mcp") or figures["bare_mcp_echo"]
        runs = figures.get("ratio_runs", [figures["envfarm"] / baseline])
        assert len(runs) in (1, repeats) and min(runs) - 0.001 <= figures["ratio"] <= max(runs) + 0.001
        if "ratio_runs" in figures:  # sequential: the same difference as milliseconds per call, run by run
            extra = figures["extra_ms_runs"]
            assert len(extra) == len(runs)
            assert min(extra) - 0.001 <= figures["extra_ms_per_call"] <= max(extra) + 0.001
            # a run slower than its baseline costs extra time, a faster one saves it
            assert all((ms > 0) == (ratio < 1) for ms, ratio in zip(extra, runs, strict=True) if ratio != 1)
    memory = data["live_episode_memory"]["20"]
    assert memory["create_per_s"] > 0 and memory["image_kb"] > 10


def test_bench_shared_store_drives_a_farm_on_postgresql(postgres_url: str) -> None:
    calls, clients, per_client = 50, 2, 8
    data = bench_shared_store(postgres_url, calls=calls, clients=clients, per_client=per_client, rounds=2, block=25)
    assert data["database"] == "postgresql"
    for key in ("sequential_read_calls_per_s", "sequential_write_calls_per_s", f"concurrent_{clients}_calls_per_s"):
        figures = data[key]
        assert figures["shared"] > 0 and abs(figures["ratio"] - figures["shared"] / figures["embedded"]) < 0.002
    # per sequential episode: warm-up + measured calls; per concurrent one: a warm-up burst and two measured
    assert data["shared_calls_logged"] == 2 * (min(50, calls) + calls) + clients * (per_client // 2) * 3


def test_bench_isolation_measures_a_bystander_beside_hostile_calls(tmp_path: Path) -> None:
    out = tmp_path / "isolation.json"
    argv = ["bench", "isolation", "--out", str(out), "--calls", "30", "--attackers", "2"]
    options = ["--readers", "2", "--log-calls", "100", "--tenant-quota-mb", "8", "--idle-sockets", "1400"]
    result = CliRunner().invoke(cli, [*argv, *options])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    kinds = {"spin", "spill", "unique_items", "longest_list", "text_flood", "log_reads", "header_flood"}
    assert data["bystander_alone"]["calls"] == 30
    phases = {kind: p["calls"] for kind, p in data["bystander_beside"].items()}
    assert set(phases) == kinds and all(n == 30 for kind, n in phases.items() if kind != "text_flood")
    assert phases["text_flood"] >= 30  # B measures until the flood meets tenant A's quota
    assert data["server_errors"] == []
    for kind, phase in data["bystander_beside"].items():
        assert data["p99_ratio"][kind] == round(phase["p99_ms"] / data["bystander_alone"]["p99_ms"], 3)
        floor = data["bystander_beside_other_farm"][kind]
        assert floor["calls"] >= 30
        assert data["floor_p99_ratio"][kind] == round(floor["p99_ms"] / data["bystander_alone"]["p99_ms"], 3)
        assert data["p99_over_floor"][kind] == round(data["p99_ratio"][kind] / data["floor_p99_ratio"][kind], 3)
    # the hostile calls really ran: spins ended by the time limit, unique-item lists refused
    assert data["attack_calls"]["spin"]["calls"] >= 1 and data["attack_calls"]["spin"]["p50_ms"] >= 2000
    assert data["attack_calls"]["unique_items"]["calls"] >= 1
    assert data["attack_calls"]["longest_list"]["calls"] >= 1
    # the spills were stopped with under 64 MB of temporary files, as tool errors
    assert data["attack_outcomes"]["spill"]["tool_error"] >= 1 and set(data["attack_outcomes"]["spill"]) == {
        "tool_error"
    }
    for peak in data["acceptance"]["spill_temp_file_bytes_peak"].values():  # two spilling clients at once
        assert peak < min(2 * 64 * 2**20, data["acceptance"]["temp_file_bytes_target_per_process"])
    # 1,400 sockets from one address: as many as the caps allow held (or timed out and opened again), the rest refused
    flood = data["header_flood"]
    cap = min(flood["per_address_cap"], flood["connection_cap"])
    for outcomes in (data["attack_outcomes"]["header_flood"], data["attack_outcomes_other_farm"]["header_flood"]):
        assert outcomes["answered 503"] == 1400 - cap, outcomes
        assert outcomes["held at the end"] + outcomes.get("answered 408", 0) >= cap
        assert set(outcomes) <= {"answered 503", "answered 408", "held at the end"}, outcomes
    assert set(data["attack_calls_other_farm"]) == kinds
    for outcomes in (data["attack_outcomes"], data["attack_outcomes_other_farm"]):
        # megabyte summaries refused as tool errors, notes logged until the tenant's store quota said no
        flood = outcomes["text_flood"]
        assert flood["tool_error"] >= 1 and flood["ok"] >= 1 and flood["413 store_bytes"] >= 1
        assert outcomes["log_reads"]["full reads"] >= 1 and set(outcomes["log_reads"]) == {"ok", "full reads"}
    assert data["flood"]["quota_reached"] == {"same_farm": True, "other_farm": True}
    assert data["flood"]["text_chars"] > 990_000 and data["log_episode"]["log_bytes"] > 100 * 8000
    assert (
        data["flood"]["max_store_bytes_per_tenant"] == 8_000_000 == data["acceptance"]["store_quota_bytes_per_tenant"]
    )
    for figures in data["farm_processes"].values():
        rss, store = figures["pid_rss_mb"], figures["store_bytes"]
        assert rss["peak"] >= rss["start"] > 0 and store["end"] == store["start"] + store["growth"]
        assert set(figures["phases"]) == {"build_log", *kinds}
        # the store stops at the quota: by the flood's end it held about the quota (the earlier phases' calls
        # count against it too, more of them on a slower machine), and nothing much was stored after it
        filled = figures["phases"]["text_flood"]["store_bytes"]["after"] - store["start"]
        assert filled > data["flood"]["max_store_bytes_per_tenant"] / 2
        assert store["end"] < 2 * data["flood"]["max_store_bytes_per_tenant"]
    assert "store grew" in result.output


def test_bench_load_soaks_a_farm_and_reports_memory(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    argv = ["bench", "load", "--out", str(out), "--clients", "3", "--seconds", "3", "--calls-per-episode", "5"]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["errors"] == 0 and data["episodes_left_open"] == 0, data["error_samples"]
    assert data["episodes"] >= 3 and data["calls"] == 5 * data["episodes"]  # every episode made all its calls
    rss = data["rss_mb"]
    assert rss["peak"] >= rss["before"] > 0 and data["rss_after_over_before"] == round(rss["after"] / rss["before"], 3)


def test_bench_synthesis_makes_exactly_the_environments_asked_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "synthesis.json"
    argv = ["bench", "synthesis", "--out", str(out), "--envs", "5", "--tasks-per-env", "3", "--workers", "2"]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["all_workers"]["environments_attempted"] == 5
    assert "of 5 environments" in result.output and "1,000 environments would take" in result.output


def test_bench_stdio_measures_envfarm_mcp_beside_the_sdk_floor(tmp_path: Path) -> None:
    out = tmp_path / "stdio.json"
    result = CliRunner().invoke(cli, ["bench", "stdio", "--runs", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "answered initialize" in result.output and f"results in {out}" in result.output
    data = json.loads(out.read_text())
    assert data["runs"] == 2 and data["task"] == "retail-001"
    for side in ("envfarm_mcp", "sdk_floor"):
        runs = data[side]["cpu_s_runs"]
        assert len(runs) == 2 and all(cpu > 0 for cpu in runs)
        assert min(runs) <= data[side]["cpu_s"] <= max(runs)
    assert data["cpu_ratio"] == round(data["envfarm_mcp"]["cpu_s"] / data["sdk_floor"]["cpu_s"], 3)


def test_bench_stdio_says_which_task_it_could_not_serve(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["bench", "stdio", "--runs", "1", "--task", "no-such-task", "--out", str(tmp_path / "s.json")]
    )
    assert result.exit_code != 0
    assert "did not answer initialize" in result.output and "Traceback" not in result.output
