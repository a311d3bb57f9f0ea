"""``envfarm synthesize``, ``bench synthesis`` and ``bench serve`` with output to a pipe (a CI log, nohup):
progress lines come while they work, not only a summary at the end. (eval: tests/clients/test_progress.py.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATE = r"\d+\.\d/(s|min)"


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The real console entry point in a subprocess, its output to pipes, a progress line every 0.2 s."""
    return subprocess.run(
        [sys.executable, "-m", "envfarm", *args],
        cwd=ROOT,
        env=os.environ | {"ENVFARM_PROGRESS_INTERVAL": "0.2"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_synthesize_prints_environments_done_of_total_with_rate_and_eta(tmp_path):
    done = run_cli("synthesize", "--domains", "3", "--tasks-per-env", "2", "--workers", "1", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert err[0] == "synthesize 0/3 environments"
    assert any(re.fullmatch(rf"synthesize [12]/3 environments, {RATE}, eta \w+ \(last: \w+ accepted\)", s) for s in err)
    assert re.fullmatch(rf"synthesize 3/3 environments in \d+s, {RATE}", err[-1])
    assert "environments accepted" in done.stdout and str(tmp_path / "synthesis-report.md") in done.stdout


def test_bench_synthesis_counts_the_baseline_and_the_measured_environments(tmp_path):
    out = tmp_path / "synthesis.json"
    args = ("bench", "synthesis", "--envs", "2", "--tasks-per-env", "2", "--workers", "1", "--out", str(out))
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert err[0] == "bench synthesis 0/6 environments"  # a 4-environment one-worker baseline, then the 2
    notes = [m.group(1) for s in err if (m := re.search(r"\(last: (\d worker): \w+ accepted\)$", s))]
    assert notes and set(notes) <= {"1 worker"}
    assert re.fullmatch(rf"bench synthesis 6/6 environments in \d+s, {RATE}", err[-1])
    assert json.loads(out.read_text())["all_workers"]["environments_attempted"] == 2
    assert "1,000 environments would take" in done.stdout


def test_bench_serve_says_each_step_as_it_starts(tmp_path):
    out = tmp_path / "serve.json"
    args = ("bench", "serve", "--calls", "10", "--clients", "1", "--per-client", "2", "--episodes", "5")
    done = run_cli(*args, "--repeats", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    steps = [s for s in err if s.startswith("bench serve [") and "in this step" not in s]
    assert steps == [
        "bench serve [1/5] starting servers",
        "bench serve [2/5] sequential calls",
        "bench serve [3/5] sequential calls, same payload",
        "bench serve [4/5] 1 concurrent clients",
        "bench serve [5/5] live episode memory",
    ]
    assert err[0] == "bench serve: started" and re.fullmatch(r"bench serve: done in \d+s", err[-1])
    # between step lines, a line every 0.2 s says how long the step has been running
    assert any(re.fullmatch(r"bench serve \[\d/5\] .+, \d+s in this step, \d+s in all", s) for s in err), err
    assert f"results in {out}" in done.stdout


def test_serve_says_how_far_the_first_use_catalog_generation_is(tmp_path):
    """From an empty cache ``envfarm serve`` generates the default catalog first (minutes on two
    cores): with stderr to a pipe it prints progress lines, not silence. The server is stopped once
    two lines are out; the catalog is not waited for."""
    env = {k: v for k, v in os.environ.items() if k not in ("ENVFARM_NO_GENERATE", "ENVFARM_CATALOG")}
    env |= {"ENVFARM_PROGRESS_INTERVAL": "0.2", "ENVFARM_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "envfarm", "serve", "--port", "0", "--data-dir", str(tmp_path / "data")]
    seen: list[str] = []
    with subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stderr is not None
        try:
            for line in proc.stderr:  # the process is killed below; a hang ends with the test run's timeout
                if line.startswith("generating the default catalog (first use) "):
                    seen.append(line.rstrip("\n"))
                if len(seen) >= 2:
                    break
        finally:
            proc.kill()
    assert all(re.fullmatch(r"generating the default catalog \(first use\) \d+/\d+ environments.*", s) for s in seen)
