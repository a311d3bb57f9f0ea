"""The report in words: a markdown summary (``summary.md``) and a short headline for the terminal
that points to the page."""

from __future__ import annotations

from pathlib import Path

from ..metrics import FAILURES_KEPT, FailurePattern, GroupStats, lowest
from .escape import markdown_code, markdown_text
from .model import EvalReport
from .plot import trials_per_task


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _table(title: str, groups: dict[str, GroupStats], ks: list[int]) -> list[str]:
    head = "| " + title + " | tasks | trials | " + " | ".join(f"pass^{k}" for k in ks) + " | avg partial credit |"
    rule = "|" + "---|" * (4 + len(ks))
    rows = [
        f"| {markdown_text(name)} | {g.tasks} | {g.trials} | "
        + " | ".join(_num(g.pass_hat.get(k)) for k in ks)
        + f" | {_num(g.avg_partial_credit)} |"
        for name, g in groups.items()
    ]
    return [head, rule, *rows, ""]


def summary_markdown(report: EvalReport) -> str:
    """A short markdown summary of the report."""
    run = report.run
    ks = sorted(report.overall.pass_hat)
    who = markdown_text(f"{run.get('agent')} {run.get('model') or ''}".strip())
    lines = [
        f"# Evaluation: {who}",
        "",
        f"User: {markdown_text(run.get('user'))}; tasks: {markdown_code(run.get('tasks'))}; "
        f"{markdown_text(run.get('trials'))} trial(s) per task; "
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
        lines += [
            f"- {f.count}× {markdown_text(f.signature)} ({markdown_text(', '.join(f.tasks[:5]))})"
            for f in report.failures
        ]
        lines.append("")
    if report.infra_errors:
        lines += ["## Infrastructure errors (not counted; rerun the same command to retry them)", ""]
        lines += [
            f"- {markdown_text(e.task_id)} trial {e.trial}: {markdown_text(e.error_type)}: {markdown_text(e.error)}"
            for e in report.infra_errors[:20]
        ]
        lines.append("")
    t = report.tokens
    lines.append(
        f"Tokens: agent {t.agent_input} in / {t.agent_output} out; user {t.user_input} in / {t.user_output} out."
    )
    if report.tool_calls.get("user"):
        calls = report.tool_calls
        lines.append(f"Tool calls: agent {calls.get('agent', 0)}; user {calls['user']} (on their own side).")
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
