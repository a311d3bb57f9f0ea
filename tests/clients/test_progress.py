"""Progress without a terminal: plain lines with done/total, rate and eta (and the eval CLI printing them)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clients.progress import (
    INTERVAL_ENV,
    LineCounter,
    LineSteps,
    counting,
    duration,
    progress_interval,
    rate,
    stepping,
)

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_durations_and_rates_read_like_a_person_would_say_them():
    assert [duration(s) for s in (0, 7.4, 59.6, 60, 255, 3599, 3725)] == [
        "0s",
        "7s",
        "1m00s",
        "1m00s",
        "4m15s",
        "59m59s",
        "1h02m",
    ]
    assert rate(142, 10) == "14.2/s" and rate(3, 60) == "3.0/min" and rate(0, 0) == "0.0/min"


def test_the_interval_comes_from_the_environment_and_falls_back_to_five_seconds(monkeypatch):
    monkeypatch.delenv(INTERVAL_ENV, raising=False)
    assert progress_interval() == 5.0
    monkeypatch.setenv(INTERVAL_ENV, "0.25")
    assert progress_interval() == 0.25
    for bad in ("soon", "0", "-1", "inf", "nan"):
        monkeypatch.setenv(INTERVAL_ENV, bad)
        assert progress_interval() == 5.0, bad


def test_a_counter_line_has_done_total_rate_and_eta():
    clock, out = Clock(), io.StringIO()
    lines = LineCounter("eval", 3748, "trials", interval=3600, stream=out, clock=clock)
    lines.start()
    try:
        assert out.getvalue() == "eval 0/3748 trials\n"  # the total is known at once
        clock.now += 12
        assert lines.line() == "eval 0/3748 trials, 12s"  # nothing done yet: no rate to show
        lines.advance(170)
        assert lines.line() == "eval 170/3748 trials, 14.2/s, eta 4m13s"  # 3578 left at 170 per 12 s
        lines.advance(note="clinic-003 accepted")
        assert lines.line() == "eval 171/3748 trials, 14.2/s, eta 4m11s (last: clinic-003 accepted)"
        clock.now += 6000  # a stall: the rate falls below one every ten seconds
        assert lines.line() == "eval 171/3748 trials, 1.7/min, eta 34h56m (last: clinic-003 accepted)"
        lines.advance(3577)
        assert lines.final() == "eval 3748/3748 trials in 1h40m, 0.6/s"
    finally:
        lines.stop()


def test_step_lines_say_which_step_of_how_many_and_for_how_long():
    clock, out = Clock(), io.StringIO()
    lines = LineSteps("bench serve", 2, interval=3600, stream=out, clock=clock)
    lines.start()
    try:
        clock.now += 0.5
        assert lines.line() == "bench serve: started"
        clock.now += 2
        assert lines.line() == "bench serve: running, 2s"
        lines.step("starting servers")
        clock.now += 40
        assert lines.line() == "bench serve [1/2] starting servers, 40s in this step, 42s in all"
        lines.step("sequential calls")
        lines.step("an unannounced step")  # more steps than announced: no false "3/2"
        assert lines.line() == "bench serve [step 3] an unannounced step, 0s in this step, 42s in all"
        assert lines.final() == "bench serve: done in 42s"
    finally:
        lines.stop()
    assert out.getvalue().splitlines() == [
        "bench serve: started",
        "bench serve [1/2] starting servers",
        "bench serve [2/2] sequential calls",
        "bench serve [step 3] an unannounced step",
    ]


def test_lines_keep_coming_while_nothing_finishes(monkeypatch, capsys):
    monkeypatch.setenv(INTERVAL_ENV, "0.05")
    with counting("eval", 2, "trials") as progress:  # stderr is captured: not a terminal
        time.sleep(0.4)
        progress.advance()
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "eval 0/2 trials"
    assert sum(line.startswith("eval 0/2 trials, ") or line == "eval 0/2 trials" for line in err) >= 3
    assert re.fullmatch(r"eval 1/2 trials in 0s, \d+\.\d/s", err[-1])


def test_steps_print_a_line_as_each_step_starts(monkeypatch, capsys):
    monkeypatch.setenv(INTERVAL_ENV, "3600")
    with stepping("bench isolation", 3) as steps:
        steps.step("tenant B alone")
    assert capsys.readouterr().err.splitlines() == [
        "bench isolation: started",
        "bench isolation [1/3] tenant B alone",
        "bench isolation: done in 0s",
    ]


def test_work_that_fails_gets_no_closing_line_and_disabled_progress_prints_nothing(monkeypatch, capsys):
    monkeypatch.setenv(INTERVAL_ENV, "3600")
    with pytest.raises(RuntimeError), counting("eval", 5, "trials") as progress:
        progress.advance()
        raise RuntimeError("boom")
    assert capsys.readouterr().err.splitlines() == ["eval 0/5 trials"]
    with counting("eval", 5, "trials", enabled=False) as progress:
        progress.advance()
    assert capsys.readouterr().err == ""


def run_cli(*args: str, interval: str = "0.05", timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real console entry point in a subprocess, its output to pipes (no terminal anywhere)."""
    env = os.environ | {INTERVAL_ENV: interval}
    return subprocess.run(
        [sys.executable, "-m", "envfarm", *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_eval_into_a_pipe_prints_progress_lines_and_a_short_headline(tmp_path, farm_url):
    out = tmp_path / "run"
    done = run_cli("eval", "--agent", "oracle", "--tasks", "clinic", "--server", farm_url, "--out", str(out))
    assert done.returncode == 0, done.stderr
    err = done.stderr.splitlines()
    assert err[0] == "eval oracle 0/8 trials"
    assert re.fullmatch(r"eval oracle 8/8 trials in \d+s, \d+\.\d/(s|min)", err[-1])
    running = [line for line in err if re.fullmatch(r"eval oracle [1-7]/8 trials, \d+\.\d/(s|min), eta \w+", line)]
    assert running, err  # at 0.05 s a line, at least one comes while trials finish
    assert out.joinpath("report.html").exists()
    # stdout: a few lines that end by pointing at the report, never the tables
    assert done.stdout.splitlines() == [
        "oracle: pass^1 1.000 on 8 tasks in 1 environment (8/8 trials counted); avg partial credit 1.000",
        f"report: {out / 'report.html'} (every table: {out / 'summary.md'})",
    ]


def test_eval_with_no_progress_prints_no_progress_lines(tmp_path, farm_url):
    out = tmp_path / "run"
    args = ("eval", "--agent", "oracle", "--tasks", "clinic-001", "--server", farm_url, "--out", str(out))
    done = run_cli(*args, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "trials" not in done.stderr
    assert done.stdout.startswith("oracle: pass^1 1.000 on 1 tasks")
