"""The evaluation report: ``report.json``, a markdown summary, a page (``report.html``) and a short
headline for the terminal that points to the page."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .metrics import FAILURES_KEPT, FailurePattern, GroupStats, common_failures, group_stats, grouped, lowest
from .plot import report_png, trials_per_task
from .records import Tokens, TrialRecord
from .report_page import report_page


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
    env_sectors: dict[str, str] = {}


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
        env_sectors={r.env_id: r.sector or "?" for r in sorted(rs, key=lambda r: r.env_id)},
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


def lowest_sentence(report: EvalReport, n: int = 3) -> str | None:
    """Which environments did worst, or that all tie; None with fewer than two environments.

    Names only environments below the best result, and says when more tie with the last one named,
    so a cut through a tie is never passed off as "the lowest n".
    """
    low = lowest(report.by_env, n)
    if low.counted < 2:
        return None
    if low.all_tie:
        value = _num(next(g.pass_hat.get(1) for g in report.by_env.values() if g.avg_partial_credit is not None))
        return f"all {low.counted} environments tie at pass^1 {value}"
    named = ", ".join(f"{name} {_num(report.by_env[name].pass_hat.get(1))}" for name in low.names)
    more = f" (and {low.more_tied} more tie with {low.names[-1]})" if low.more_tied else ""
    return f"lowest pass^1: {named}{more}"


def _top_failure(failures: list[FailurePattern]) -> str:
    """The most common failure, or, when several are equally common, that they are (naming two)."""
    top = failures[0]
    tied = [f for f in failures if f.count == top.count]
    if len(tied) == 1:
        tasks = ", ".join(top.tasks[:3]) + (f" and {len(top.tasks) - 3} more" if len(top.tasks) > 3 else "")
        return f"most common failure: {top.count}× {top.signature} ({tasks})"
    text = f"most common failures, {top.count}× each: " + "; ".join(f.signature for f in tied[:2])
    if len(tied) > 2:
        cut = len(tied) == len(failures) == FAILURES_KEPT  # the list kept may have left out more of them
        text += f"; and {'at least ' if cut else ''}{len(tied) - 2} more"
    return text


def headline(report: EvalReport, page: Path | None = None) -> list[str]:
    """A few lines for the terminal: the overall result, the lowest environments, the most common
    failure, and where the report is (the tables are in the page and in ``summary.md``).

    >>> print("\\n".join(headline(report, Path("runs/x/report.html"))))  # doctest: +SKIP
    oracle: pass^1 1.000 on 28 tasks in 2 environments (28/28 trials counted); avg partial credit 1.000
    all 2 environments tie at pass^1 1.000
    report: runs/x/report.html (every table: runs/x/summary.md)
    """
    run, overall = report.run, report.overall
    who = f"{run.get('agent')} {run.get('model') or ''}".strip()
    k = trials_per_task(report)
    passes = f"pass^1 {_num(overall.pass_hat.get(1))}"
    if k > 1:
        passes += f", pass^{k} {_num(overall.pass_hat.get(k))}"
    envs = f"{len(report.by_env)} environment{'' if len(report.by_env) == 1 else 's'}"
    lines = [
        f"{who}: {passes} on {overall.tasks} tasks in {envs} "
        f"({report.trials_counted}/{report.trials_expected} trials counted); "
        f"avg partial credit {_num(overall.avg_partial_credit)}"
    ]
    if report.trials_counted == 0:
        lines[0] = f"{who}: no counted trials ({report.trials_expected} expected)"
    sentence = lowest_sentence(report)
    if sentence:
        lines.append(sentence)
    if report.failures:
        lines.append(_top_failure(report.failures))
    if page is not None:
        lines.append(f"report: {page} (every table: {page.with_name('summary.md')})")
    return lines


def write_report(report: EvalReport, out_dir: Path) -> dict[str, Path]:
    """Write ``report.json``, ``summary.md``, ``report.png`` and ``report.html`` (a self-contained page)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "json": out_dir / "report.json",
        "markdown": out_dir / "summary.md",
        "png": out_dir / "report.png",
        "html": out_dir / "report.html",
    }
    paths["json"].write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    paths["markdown"].write_text(summary_markdown(report), encoding="utf-8")
    png = report_png(report)
    paths["png"].write_bytes(png)
    paths["html"].write_text(report_page(report, png), encoding="utf-8")
    return paths
