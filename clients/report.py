"""The evaluation report: ``report.json``, a markdown summary, and an HTML page with the figure."""

from __future__ import annotations

import base64
import html
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .metrics import FailurePattern, GroupStats, common_failures, group_stats, grouped
from .plot import report_png
from .records import Tokens, TrialRecord


class InfraFailure(BaseModel):
    """A trial that failed for infrastructure or API reasons (not counted; run again on resume)."""

    task_id: str
    trial: int
    error_type: str | None
    error: str | None


class EvalReport(BaseModel):
    """What an evaluation run measured."""

    run: dict[str, Any]
    created_at: float
    trials_expected: int
    trials_counted: int
    infra_errors: list[InfraFailure]
    overall: GroupStats
    by_env: dict[str, GroupStats]
    by_sector: dict[str, GroupStats]
    by_difficulty: dict[str, GroupStats]
    failures: list[FailurePattern]
    tokens: Tokens
    mean_trial_seconds: float | None


def build_report(records: Iterable[TrialRecord], *, run: dict[str, Any], trials: int, expected: int) -> EvalReport:
    """Aggregate the latest record of every selected trial.

    Args:
        records: one record per (task, trial).
        run: what was run (agent, model, user, selector ...), copied into the report.
        trials: trials per task (the largest k of pass^k).
        expected: how many trials the run asked for.
    """
    rs = list(records)
    counted = [r for r in rs if r.counts]
    tokens = Tokens(
        agent_input=sum(r.tokens.agent_input for r in rs),
        agent_output=sum(r.tokens.agent_output for r in rs),
        user_input=sum(r.tokens.user_input for r in rs),
        user_output=sum(r.tokens.user_output for r in rs),
    )
    return EvalReport(
        run=run,
        created_at=time.time(),
        trials_expected=expected,
        trials_counted=len(counted),
        infra_errors=[
            InfraFailure(task_id=r.task_id, trial=r.trial, error_type=r.error_type, error=r.error)
            for r in rs
            if not r.counts
        ],
        overall=group_stats(rs, trials),
        by_env=grouped(rs, lambda r: r.env_id, trials),
        by_sector=grouped(rs, lambda r: r.sector or "?", trials),
        by_difficulty=grouped(rs, lambda r: r.difficulty or "?", trials),
        failures=common_failures(rs),
        tokens=tokens,
        mean_trial_seconds=sum(r.latency.total_s for r in counted) / len(counted) if counted else None,
    )


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _table(title: str, groups: dict[str, GroupStats], ks: list[int]) -> list[str]:
    head = "| " + title + " | tasks | trials | " + " | ".join(f"pass^{k}" for k in ks) + " | avg partial credit |"
    rule = "|" + "---|" * (4 + len(ks))
    rows = [
        f"| {name} | {g.tasks} | {g.trials} | "
        + " | ".join(_num(g.pass_hat.get(k)) for k in ks)
        + f" | {_num(g.avg_partial_credit)} |"
        for name, g in groups.items()
    ]
    return [head, rule, *rows, ""]


def summary_markdown(report: EvalReport) -> str:
    """A short markdown summary of the report."""
    run = report.run
    ks = sorted(report.overall.pass_hat)
    lines = [
        f"# Evaluation: {run.get('agent')} {run.get('model') or ''}".rstrip(),
        "",
        f"User: {run.get('user')}; tasks: `{run.get('tasks')}`; {run.get('trials')} trial(s) per task; "
        f"{report.trials_counted}/{report.trials_expected} trials counted, "
        f"{len(report.infra_errors)} infrastructure error(s).",
        "",
        *_table("all", {"all": report.overall}, ks),
        *_table("environment", report.by_env, ks),
        *_table("sector", report.by_sector, ks),
        *_table("difficulty", report.by_difficulty, ks),
    ]
    if report.failures:
        lines += ["## Most common failures", ""]
        lines += [f"- {f.count}× {f.signature} ({', '.join(f.tasks[:5])})" for f in report.failures]
        lines.append("")
    if report.infra_errors:
        lines += ["## Infrastructure errors (not counted; rerun the same command to retry them)", ""]
        lines += [f"- {e.task_id} trial {e.trial}: {e.error_type}: {e.error}" for e in report.infra_errors[:20]]
        lines.append("")
    t = report.tokens
    lines.append(
        f"Tokens: agent {t.agent_input} in / {t.agent_output} out; user {t.user_input} in / {t.user_output} out."
    )
    return "\n".join(lines) + "\n"


def write_report(report: EvalReport, out_dir: Path) -> dict[str, Path]:
    """Write ``report.json``, ``summary.md``, ``report.png`` and ``report.html`` (PNG embedded)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out_dir / "report.json",
        "markdown": out_dir / "summary.md",
        "png": out_dir / "report.png",
        "html": out_dir / "report.html",
    }
    paths["json"].write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    summary = summary_markdown(report)
    paths["markdown"].write_text(summary, encoding="utf-8")
    png = report_png(report)
    paths["png"].write_bytes(png)
    data = base64.b64encode(png).decode("ascii")
    report_json = json.dumps(report.model_dump(mode="json"), indent=2)
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>envfarm evaluation</title>"
        "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}pre{white-space:pre-wrap}</style>"
        "</head><body>"
        f"<img alt='pass^k curve and per-sector results' src='data:image/png;base64,{data}' style='max-width:100%'>"
        f"<pre>{html.escape(summary)}</pre>"
        f"<details><summary>report.json</summary><pre>{html.escape(report_json)}</pre></details>"
        "</body></html>\n"
    )
    paths["html"].write_text(page, encoding="utf-8")
    return paths
