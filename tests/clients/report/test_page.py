"""report.html rendered by headless Chromium (Debian's ``chromium``, installed by scripts/setup), the
terminal headline, and the figure's titles: what a person reads first."""

from __future__ import annotations

import base64
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image
import matplotlib.pyplot as plt
import pytest

from clients.metrics import FailurePattern, lowest, worst_first
from clients.records import TrialRecord
from clients.report import EvalReport, build_report, headline, write_report
from clients.report.plot import _curve, _histogram, panels

from ...chromium import CHROMIUM_FLAGS, chromium


def render(page: Path, profile: Path, *, fragment: str = "", screenshot: Path | None = None) -> str:
    """The page's DOM after its scripts ran (``--dump-dom``), or a screenshot of it."""
    url = page.resolve().as_uri() + fragment
    args = [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}"]
    if screenshot is not None:
        args += [f"--screenshot={screenshot}", "--window-size=1280,2000"]
    else:
        args.append("--dump-dom")
    done = subprocess.run([*args, url], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class Dom(HTMLParser):
    """Just enough of a rendered DOM: element texts by id (title, h1, main by name), table rows and header
    cells by table id, and every element's attributes."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.texts: dict[str, list[str]] = {}
        self.rows: dict[str, list[list[str]]] = {}
        self.headers: dict[str, list[tuple[str, dict[str, str | None]]]] = {}
        self.attrs: list[tuple[str, dict[str, str | None]]] = []
        self._open: list[tuple[str, str | None]] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._in_head = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.attrs.append((tag, a))
        if tag in ("img", "meta", "br", "input", "link"):
            return
        key = a.get("id") or (tag if tag in ("title", "h1", "main") else None)  # by id, or these by name
        self._open.append((tag, key))
        if key:
            self.texts.setdefault(key, [])
        if tag == "table":
            self._table = a.get("id")
            self.rows[str(self._table)] = []
            self.headers[str(self._table)] = []
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self._table and not self._in_head:
            self.rows[self._table].append([])
        elif tag in ("td", "th") and self._table:
            self._cell = []
            if tag == "th":
                self.headers[self._table].append(("", a))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._table and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if tag == "th":
                self.headers[self._table][-1] = (text, self.headers[self._table][-1][1])
            else:
                self.rows[self._table][-1].append(text)
            self._cell = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self._table = None
        while self._open:
            open_tag, _ = self._open.pop()
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        for _, element_id in self._open:
            if element_id:
                self.texts[element_id].append(data)

    def text(self, element_id: str) -> str:
        return " ".join(" ".join(self.texts[element_id]).split())  # blocks and inline elements alike

    def column(self, table: str, label: str) -> list[str]:
        index = [h for h, _ in self.headers[table]].index(label)
        return [row[index] for row in self.rows[table]]


def records(scores: dict[str, list[list[float]]], *, sectors: tuple[str, ...] = ("retail", "healthcare", "travel")):
    """Trial records: per environment, per task, the reward of each trial."""
    out = []
    for e, (env, tasks) in enumerate(scores.items()):
        for t, rewards in enumerate(tasks):
            for i, reward in enumerate(rewards):
                out.append(
                    TrialRecord(
                        task_id=f"{env}-{t:03d}",
                        env_id=env,
                        sector=sectors[e % len(sectors)],
                        difficulty=("easy", "medium", "hard")[t % 3],
                        trial=i,
                        agent="openai",
                        model="my-model",
                        reward=reward,
                        partial_credit=reward if reward == 1.0 else 0.5,
                    )
                )
    return out


def report_of(scores: dict[str, list[list[float]]], trials: int) -> EvalReport:
    rs = records(scores)
    run = {"agent": "openai", "model": "my-model", "user": "solo", "tasks": "all", "trials": trials}
    return build_report(rs, run=run, trials=trials, expected=len(rs))


# 12 environments with 3 trials of 4 tasks each; of each one's 12 trials, the first N succeed:
# env_07 is the lowest, env_02 and env_10 tie next, then env_09 and env_08
SUCCESSES = [12, 11, 3, 9, 8, 10, 12, 0, 6, 5, 3, 7]
VARIED = {
    f"env_{i:02d}": [[1.0 if t * 3 + k < n else 0.0 for k in range(3)] for t in range(4)]
    for i, n in enumerate(SUCCESSES)
}


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalReport, Path]:
    report = report_of(VARIED, 3)
    report.failures = [
        FailurePattern(signature="orders.status: wrong value", count=9, tasks=["env_07-000", "env_07-001"]),
        FailurePattern(signature="output not stated: <b>25</b>", count=4, tasks=["env_02-003"]),
    ]
    out = tmp_path_factory.mktemp("varied")
    write_report(report, out)
    return report, out / "report.html"


def test_the_page_renders_lowest_first_with_pass_k_and_sorts_on_a_fragment(varied, tmp_path):
    report, page = varied
    dom = Dom(render(page, tmp_path / "profile"))
    assert dom.text("headline").startswith(f"{report.overall.pass_hat[1]:.3f} pass^1 ")
    assert "pass^3 (all 3 trials of a task succeed)" in dom.text("headline")
    assert (
        dom.text("h1") == "Evaluation: openai my-model" and dom.text("title") == "envfarm evaluation: openai my-model"
    )
    # the environments table: every environment, lowest first, pass^k for every k
    order = worst_first(report.by_env)
    assert order[0] == "env_07" and dom.column("envs", "environment") == order
    assert [h for h, _ in dom.headers["envs"]][4:7] == ["pass^1", "pass^2", "pass^3"]
    assert dom.column("envs", "pass^1")[0] == f"{report.by_env['env_07'].pass_hat[1]:.3f}"
    # the verdict names the lowest below the best, and says when more tie with the last one named
    p1 = {name: f"{g.pass_hat[1]:.3f}" for name, g in report.by_env.items()}
    assert (
        dom.text("verdict")
        == "Lowest pass^1: "
        + ", ".join(f"{name} {p1[name]}" for name in ("env_07", "env_02", "env_10", "env_09", "env_08"))
        + "."
    )
    # the script ran: headers are focusable, and #envs=environment re-sorts by name (-pass1: descending)
    assert ("html", {"lang": "en", "data-sortable": "4"}) in dom.attrs
    assert all(a.get("tabindex") == "0" for _, a in dom.headers["envs"])
    by_name = Dom(render(page, tmp_path / "profile", fragment="#envs=environment"))
    assert by_name.column("envs", "environment") == sorted(report.by_env)
    assert dict(by_name.headers["envs"][0][1])["aria-sort"] == "ascending"
    best_first = Dom(render(page, tmp_path / "profile", fragment="#envs=-pass1"))
    values = [float(v) for v in best_first.column("envs", "pass^1")]
    assert values == sorted(values, reverse=True) and best_first.column("envs", "environment")[-1] == "env_07"
    # failures are text, escaped; the figure is inline and nothing is fetched from anywhere
    assert dom.column("failure-table", "failure") == ["orders.status: wrong value", "output not stated: <b>25</b>"]
    source = page.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", source)
    (src,) = [a["src"] for tag, a in dom.attrs if tag == "img"]
    assert base64.b64decode(str(src).removeprefix("data:image/png;base64,")).startswith(b"\x89PNG")


def test_a_screenshot_of_the_page_shows_the_report(varied, tmp_path):
    _, page = varied
    shot = tmp_path / "report.png"
    render(page, tmp_path / "profile", screenshot=shot)
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2000, 1280)
    assert pixels.std() > 0.05  # not a blank page: text, tables and the figure drew something


def test_with_one_trial_and_every_environment_tied_the_page_says_so(tmp_path):
    report = report_of({f"env_{i:02d}": [[1.0], [1.0]] for i in range(8)}, 1)
    write_report(report, tmp_path / "run")
    dom = Dom(render(tmp_path / "run" / "report.html", tmp_path / "profile"))
    assert dom.text("verdict") == "All 8 environments tie at pass^1 1.000."
    assert "same result, so they are in name order" in dom.text("environments")
    assert [h for h, _ in dom.headers["envs"]] == [
        "environment",
        "sector",
        "tasks",
        "trials",
        "pass^1",
        "avg partial credit",
        "truncated",
        "agent errors",
    ]
    assert "pass^1 (share of trials with full reward)" in dom.text("headline") and "pass^2" not in dom.text("main")
    assert dom.column("envs", "environment") == sorted(report.by_env)
    assert panels(report) == ["environments", "sectors"]  # no one-dot pass^k curve
    (alt,) = [a["alt"] for tag, a in dom.attrs if tag == "img"]
    assert alt == "environments by pass^1 and pass^1 and partial credit per sector"


def test_a_run_with_no_counted_trial_says_so(tmp_path):
    rs = [TrialRecord(task_id="t", env_id="e", trial=0, agent="oracle", error_class="infra", error="refused")]
    report = build_report(rs, run={"agent": "oracle", "tasks": "t", "user": "solo"}, trials=1, expected=1)
    write_report(report, tmp_path)
    dom = Dom(render(tmp_path / "report.html", tmp_path / "profile"))
    assert dom.text("verdict") == "No trial was counted: see the infrastructure errors below."
    assert "t trial 0: None: refused" in dom.text("infra")
    assert headline(report) == ["oracle: no counted trials (1 expected)"]


def test_the_terminal_headline_is_short_and_never_a_cut_through_a_tie(varied):
    report, page = varied
    lines = headline(report, page)
    p1, p3 = report.overall.pass_hat[1], report.overall.pass_hat[3]
    assert lines[0] == (
        f"openai my-model: pass^1 {p1:.3f}, pass^3 {p3:.3f} on 48 tasks in 12 environments "
        f"(144/144 trials counted); avg partial credit {report.overall.avg_partial_credit:.3f}"
    )
    assert lines[1] == "lowest pass^1: env_07 0.000, env_02 0.250, env_10 0.250"
    assert lowest(report.by_env, 2).more_tied == 1  # env_10 ties with env_02
    assert lines[2] == "most common failure: 9× orders.status: wrong value (env_07-000, env_07-001)"
    assert lines[3] == f"report: {page} (every table: {page.with_name('summary.md')})"
    assert len(lines) == 4

    # three environments tie for the lowest: naming two of them says one more ties
    tied = report_of({"a": [[0.0]], "b": [[0.0]], "c": [[0.0]], "d": [[1.0]]}, 1)
    assert headline(tied)[1] == "lowest pass^1: a 0.000, b 0.000, c 0.000"
    assert lowest(tied.by_env, 2).more_tied == 1
    many = report_of({n: [[0.0]] for n in "abcde"} | {"f": [[1.0]]}, 1)
    assert headline(many)[1] == "lowest pass^1: a 0.000, b 0.000, c 0.000 (and 2 more tie with c)"
    assert headline(report_of({n: [[1.0]] for n in "abcd"}, 1))[1] == "all 4 environments tie at pass^1 1.000"
    tied_failures = report_of({"clinic": [[1.0], [0.0]]}, 1)
    tied_failures.failures = [FailurePattern(signature=s, count=3, tasks=["clinic-001"]) for s in "abc"]
    assert headline(tied_failures)[-1] == "most common failures, 3× each: a; b; and 1 more"
    tied_failures.failures = [FailurePattern(signature=s, count=3, tasks=["clinic-001"]) for s in "abcdefghij"]
    assert headline(tied_failures)[-1] == "most common failures, 3× each: a; b; and at least 8 more"  # 10 are kept
    one = headline(report_of({"clinic": [[1.0], [0.0]]}, 1))
    assert one == [
        "openai my-model: pass^1 0.500 on 2 tasks in 1 environment (2/2 trials counted); avg partial credit 0.750"
    ]


def titles(draw, report: EvalReport) -> tuple[str, list[str]]:
    fig, ax = plt.subplots()
    try:
        draw(ax, report)
        legend = ax.get_legend()
        return ax.get_title(), [t.get_text() for t in legend.get_texts()] if legend else []
    finally:
        plt.close(fig)


def test_the_figure_never_names_an_arbitrary_few_as_the_lowest():
    tie = report_of({f"env_{i:02d}": [[1.0, 0.0]] for i in range(9)}, 2)
    assert titles(_curve, tie) == ("pass^k (all 9 environments tie)", ["all"])
    assert titles(_histogram, tie)[0] == "environments by pass^1 (all 9 tie)"
    cut = report_of({f"env_{i:02d}": [[0.0, 0.0]] for i in range(8)} | {"top": [[1.0, 1.0]]}, 2)
    assert titles(_curve, cut) == (
        "pass^k (legend: 6 lowest, 2 more tie)",
        ["env_00", "env_01", "env_02", "env_03", "env_04", "env_05", "all"],
    )
    clear = report_of({f"env_{i:02d}": [[1.0, 1.0]] * 3 + [[0.0, 0.0]] * (i < 2) for i in range(9)}, 2)
    assert titles(_curve, clear) == ("pass^k (legend: the 2 lowest)", ["env_00", "env_01", "all"])
    few = report_of({"a": [[1.0, 0.0]], "b": [[1.0, 1.0]]}, 2)
    assert titles(_curve, few) == ("pass^k (2 environments)", ["a", "b", "all"])
    assert titles(_curve, report_of({"a": [[1.0, 0.0]]}, 2)) == ("pass^k (1 environment)", ["all"])
    assert titles(_histogram, report_of(VARIED, 3))[0] == "environments by pass^1"


def test_the_verdict_on_the_page_says_when_more_environments_tie_with_the_last_one_named(tmp_path):
    report = report_of({n: [[0.0]] for n in "abcdefg"} | {"h": [[1.0]]}, 1)
    write_report(report, tmp_path)
    dom = Dom(render(tmp_path / "report.html", tmp_path / "profile"))
    assert dom.text("verdict") == "Lowest pass^1: a 0.000, b 0.000, c 0.000, d 0.000, e 0.000 (and 2 more tie with e)."
    assert ("a", {"href": "#envs-a"}) in dom.attrs  # each name links to its row
    assert ("tr", {"id": "envs-a", "data-rank": "0"}) in dom.attrs


def test_a_fragment_that_names_no_column_or_is_malformed_leaves_the_lowest_first_order(varied, tmp_path):
    report, page = varied
    for fragment in ("#envs=nosuchcolumn", "#envs=%E0%A4%A", "#nosuchtable=environment"):
        dom = Dom(render(page, tmp_path / "profile", fragment=fragment))
        assert dom.column("envs", "environment") == worst_first(report.by_env), fragment
        assert ("html", {"lang": "en", "data-sortable": "4"}) in dom.attrs  # the script ran to its end
