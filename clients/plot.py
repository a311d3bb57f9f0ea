"""The report's figure: the pass^k curve (overall and per environment) and per-sector bars, as PNG.

With many environments, per-environment curves are drawn faint and unlabelled, and only the overall
curve and the worst few environments get legend entries, so the figure stays readable at catalog scale.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")  # no display: render to memory
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    from .report import EvalReport


LEGEND_ENVS = 6


def report_png(report: EvalReport) -> bytes:
    """Render the report's figure as PNG bytes."""
    fig, (curve, bars) = plt.subplots(1, 2, figsize=(12, 4.8), dpi=100)
    try:
        many = len(report.by_env) > LEGEND_ENVS
        worst = sorted(report.by_env, key=lambda k: report.by_env[k].pass_hat.get(1) or 0.0)[:LEGEND_ENVS]
        series = {"all": report.overall, **{f"env {k}": v for k, v in report.by_env.items()}}
        for name, stats in series.items():
            points = [(k, v) for k, v in sorted(stats.pass_hat.items()) if v is not None]
            if not points:
                continue
            ks, values = zip(*points, strict=True)
            labelled = name == "all" or not many or name.removeprefix("env ") in worst
            curve.plot(
                ks,
                values,
                marker="o" if labelled else None,
                linewidth=2.5 if name == "all" else 1.0,
                alpha=1.0 if labelled else 0.25,
                color="black" if name == "all" else None,
                label=name if labelled else None,
            )
        envs = f"{len(report.by_env)} environment{'' if len(report.by_env) == 1 else 's'}"
        curve.set_title(f"pass^k ({envs}" + (f"; legend: the {LEGEND_ENVS} lowest)" if many else ")"))
        curve.set_xlabel("k (trials that must all succeed)")
        curve.set_ylim(-0.02, 1.02)
        curve.set_xticks(sorted(report.overall.pass_hat) or [1])
        curve.grid(alpha=0.3)
        if curve.get_lines():
            curve.legend(fontsize=8)
        else:
            curve.text(0.5, 0.5, "no counted trials", ha="center", va="center", transform=curve.transAxes)
        sectors = list(report.by_sector)
        p1 = [report.by_sector[s].pass_hat.get(1) or 0.0 for s in sectors]
        pc = [report.by_sector[s].avg_partial_credit or 0.0 for s in sectors]
        xs = range(len(sectors))
        bars.bar([x - 0.2 for x in xs], p1, width=0.4, label="pass^1")
        bars.bar([x + 0.2 for x in xs], pc, width=0.4, label="partial credit")
        bars.set_xticks(list(xs), sectors, rotation=40, ha="right")
        bars.set_ylim(0, 1.05)
        bars.set_title("by sector")
        bars.legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)
