"""The report's figure, as PNG: one panel per view that says something for this run.

* pass^k against k, overall and per environment — only with more than one trial per task (with one
  trial the curve would be a single dot). With many environments the per-environment curves are faint
  and only the lowest few get legend entries; when every environment has the same result the title says
  they all tie instead of naming an arbitrary few.
* how many environments reach each pass^1 (with five or more environments): where a catalog-scale run's
  results sit at a glance.
* pass^1 and average partial credit per sector, lowest first.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")  # no display: render to memory
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from ..metrics import lowest, worst_first
from .escape import plot_text

if TYPE_CHECKING:
    from .model import EvalReport


LEGEND_ENVS = 6
HISTOGRAM_ENVS = 5  # with fewer environments the table shows them all at a glance
_INK, _ACCENT, _SECOND = "#1f2933", "#2f6fde", "#e8833a"


def trials_per_task(report: EvalReport) -> int:
    """The largest k of the run's pass^k (its trials per task)."""
    return max(report.overall.pass_hat, default=1)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _curve(ax: Axes, report: EvalReport) -> None:
    envs = report.by_env
    many = len(envs) > LEGEND_ENVS
    low = lowest(envs, LEGEND_ENVS)
    labelled = set(low.names) if many else set(envs)
    drawn = [n for n in envs if n not in labelled] + [n for n in worst_first(envs) if n in labelled]
    for name in drawn if len(envs) > 1 else []:  # one environment's curve is the overall one
        points = [(k, v) for k, v in sorted(envs[name].pass_hat.items()) if v is not None]
        if points:
            ks, values = zip(*points, strict=True)
            shown = name in labelled
            ax.plot(
                ks,
                values,
                marker="o" if shown else None,
                linewidth=1.2,
                alpha=0.9 if shown else 0.2,
                color=None if shown else "#7b8794",
                label=plot_text(name) if shown else None,
            )
    points = [(k, v) for k, v in sorted(report.overall.pass_hat.items()) if v is not None]
    if points:
        ks, values = zip(*points, strict=True)
        ax.plot(ks, values, marker="o", linewidth=2.8, color=_INK, label="all", zorder=5)
    if not many:
        title = f"pass^k ({_plural(len(envs), 'environment')})"
    elif low.all_tie:
        title = f"pass^k (all {len(envs)} environments tie)"
    elif low.more_tied:
        title = f"pass^k (legend: {len(low.names)} lowest, {low.more_tied} more tie)"
    else:
        title = f"pass^k (legend: {'the lowest' if len(low.names) == 1 else f'the {len(low.names)} lowest'})"
    ax.set_title(title)
    ax.set_xlabel("k (trials that must all succeed)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(sorted(report.overall.pass_hat))
    ax.grid(alpha=0.3)
    if points:
        # with many environments the labelled ones are the lowest, so their curves run low: keep the top
        ax.legend(fontsize=8, loc="upper right" if many else "best")
    else:
        ax.text(0.5, 0.5, "no counted trials", ha="center", va="center", transform=ax.transAxes)


def _histogram(ax: Axes, report: EvalReport) -> None:
    values = [g.pass_hat.get(1) for g in report.by_env.values()]
    counted = [v for v in values if v is not None]
    edges = [i / 10 for i in range(11)]
    ax.hist(counted, bins=edges, color=_ACCENT, edgecolor="white")
    low = lowest(report.by_env, 1)
    ax.set_title(f"environments by pass^1 (all {low.counted} tie)" if low.all_tie else "environments by pass^1")
    ax.set_xlabel("pass^1")
    ax.set_ylabel("environments")
    ax.set_xlim(0, 1)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3, axis="y")


def _sectors(ax: Axes, report: EvalReport) -> None:
    sectors = worst_first(report.by_sector)
    p1 = [report.by_sector[s].pass_hat.get(1) or 0.0 for s in sectors]
    pc = [report.by_sector[s].avg_partial_credit or 0.0 for s in sectors]
    xs = range(len(sectors))
    ax.bar([x - 0.2 for x in xs], p1, width=0.4, label="pass^1", color=_ACCENT)
    ax.bar([x + 0.2 for x in xs], pc, width=0.4, label="avg partial credit", color=_SECOND)
    slanted = len(sectors) > 3
    ax.set_xticks(
        list(xs), [plot_text(s) for s in sectors], rotation=40 if slanted else 0, ha="right" if slanted else "center"
    )
    ax.set_ylim(0, 1.12)
    ax.set_title("by sector (lowest first)")
    ax.legend(fontsize=8, loc="upper right", ncols=2)
    ax.grid(alpha=0.3, axis="y")


def panels(report: EvalReport) -> list[str]:
    """The panels this report's figure has, by name: ``pass^k``, ``environments``, ``sectors``."""
    names = []
    if trials_per_task(report) > 1:
        names.append("pass^k")
    if len(report.by_env) >= HISTOGRAM_ENVS:
        names.append("environments")
    return [*names, "sectors"]


_DRAW: dict[str, Callable[[Axes, EvalReport], None]] = {
    "pass^k": _curve,
    "environments": _histogram,
    "sectors": _sectors,
}


def report_png(report: EvalReport) -> bytes:
    """Render the report's figure as PNG bytes."""
    names = panels(report)
    fig, axes = plt.subplots(1, len(names), figsize=(4.4 * len(names), 3.9), dpi=130, squeeze=False)
    try:
        for ax, name in zip(axes[0], names, strict=True):
            _DRAW[name](ax, report)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)
