"""Names from a run that are markup somewhere: a sector ``$$`` (mathtext to matplotlib), HTML, Markdown
emphasis, links and table pipes. The report is written whole, and every file shows them as text:
summary.md rendered by a CommonMark parser (markdown-it, the one rich uses), the page as parsed
HTML, the figure's legend and ticks."""

from __future__ import annotations

import html
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.pyplot as plt
from markdown_it import MarkdownIt

from clients.metrics import FailurePattern
from clients.report import EvalReport, build_report, write_report
from clients.report.plot import _curve, _sectors

from .test_page import Dom, records

# the page test's hostile failure text, and names that are markup to matplotlib, HTML or Markdown
HOSTILE = [
    "output not stated: <b>25</b>",
    "$$",
    r"$\frac{1}{0}$",
    "<script>alert(1)</script>",
    "a|b",
    "**bold** _em_",
    "[click](javascript:alert(1))",
    "`tick` & ~~gone~~",
]


def _hostile_report() -> EvalReport:
    # 3 tasks of 2 trials; the i-th name succeeds min(i, 6) times, so "$$" and the fraction are among
    # the lowest, which the legend names
    scores = {
        name: [[1.0 if t * 2 + k < i else 0.0 for k in range(2)] for t in range(3)] for i, name in enumerate(HOSTILE)
    }
    rs = records(scores, sectors=tuple(HOSTILE))
    run = {"agent": "openai", "model": "<i>m</i>", "user": "solo", "tasks": "`all`|x", "trials": 2}
    report = build_report(rs, run=run, trials=2, expected=len(rs))
    report.failures = [FailurePattern(signature=name, count=1, tasks=[f"{name}-000"]) for name in HOSTILE]
    return report


class _Cells(HTMLParser):
    """The text of every table cell (``td``) of rendered HTML."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _cells(rendered: str) -> list[str]:
    return _Cells(rendered).cells


def test_hostile_names_are_text_in_every_file_of_the_report(tmp_path: Path) -> None:
    report = _hostile_report()
    paths = write_report(report, tmp_path)
    assert paths["png"].read_bytes().startswith(b"\x89PNG")  # the figure was drawn, so the page was written

    summary = paths["markdown"].read_text(encoding="utf-8")
    rendered = MarkdownIt("commonmark").enable("table").render(summary)
    cells = _cells(rendered)
    for name in HOSTILE:
        assert cells.count(name) == 2, (name, cells)  # its environment row and its sector row, cut nowhere
    assert "<script" not in rendered and "<b>" not in rendered and "<i>" not in rendered
    assert "<strong>" not in rendered and "<em>" not in rendered and "<a " not in rendered
    assert "<h1>Evaluation: openai &lt;i&gt;m&lt;/i&gt;</h1>" in rendered
    assert "<code>`all`|x</code>" in rendered
    failures = [line for line in rendered.splitlines() if line.startswith("<li>")]
    assert [html.unescape(line) for line in failures] == [f"<li>1× {name} ({name}-000)</li>" for name in HOSTILE]

    page = paths["html"].read_text(encoding="utf-8")
    dom = Dom(page)
    assert sorted(dom.column("envs", "environment")) == sorted(HOSTILE)
    assert sorted(dom.column("sector-table", "sector")) == sorted(HOSTILE)
    assert dom.column("failure-table", "failure") == HOSTILE
    assert [tag for tag, _ in dom.attrs].count("script") == 1  # the page's own sorting script only


def test_the_figure_shows_dollar_signs_as_text() -> None:
    report = _hostile_report()
    fig, (curve, sectors) = plt.subplots(1, 2)
    try:
        _curve(curve, report)
        _sectors(sectors, report)
        fig.canvas.draw()  # mathtext would fail here on "$$"
        legend = curve.get_legend()
        assert legend is not None
        shown = [t.get_text() for t in legend.get_texts()]
        assert r"\$\$" in shown and r"\$\frac{1}{0}\$" in shown
        assert {t.get_text() for t in sectors.get_xticklabels()} == {n.replace("$", r"\$") for n in HOSTILE}
    finally:
        plt.close(fig)
