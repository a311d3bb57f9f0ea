"""The report's files: ``report.json``, ``summary.md``, ``report.png`` and ``report.html``."""

from __future__ import annotations

from pathlib import Path

from .model import EvalReport
from .page import report_page
from .plot import report_png
from .summary import summary_markdown


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
