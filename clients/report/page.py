"""``report.html``: the evaluation report as one self-contained page.

Inline CSS, the figure inline as a base64 PNG, a few lines of script and nothing fetched from anywhere,
so the page opens from disk, from a CI artifact or in a mail attachment alike. The page leads with the
headline numbers, then the figure, then the tables: environments lowest first (every table sorts by any
column on a click, and ``report.html#envs=environment`` opens it sorted so; ``-`` before the column sorts
descending), sectors, difficulties, the most common failures and any infrastructure errors. pass^k for
k > 1 appears only when each task ran more than once.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..metrics import GroupStats, lowest, worst_first
from .plot import panels, trials_per_task

if TYPE_CHECKING:
    from .model import EvalReport

DIFFICULTY_ORDER = ("easy", "medium", "hard")
FAILURE_TASKS_SHOWN = 8
VERDICT_ENVS = 5

_CSS = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --bg: #f5f7fa; --accent: #2f6fde; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 4px; }
.meta, .note { color: var(--muted); margin: 0 0 12px; }
.meta span + span::before { content: "·"; margin: 0 8px; color: #9aa5b1; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #eef1f5;
  padding: 1px 5px; border-radius: 4px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 18px 20px;
  margin: 18px 0; }
.cards { display: flex; flex-wrap: wrap; gap: 14px; margin: 20px 0 6px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 18px;
  min-width: 150px; }
.card .value { font-size: 28px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .label { color: var(--muted); font-size: 13px; }
#verdict { font-size: 16px; margin: 14px 0 0; }
#verdict a { color: var(--accent); }
figure { margin: 0; text-align: center; }
figure img { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; margin-top: 8px; }
th, td { padding: 6px 9px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
td.wrap { white-space: normal; min-width: 18em; }
td.list { white-space: normal; color: var(--muted); font-size: 13px; }
th { position: sticky; top: 0; background: #fafbfc; font-weight: 600; font-size: 13px; color: #3e4c59;
  border-bottom: 2px solid var(--line); user-select: none; }
th.num, td.num { text-align: right; }
table.sortable th { cursor: pointer; }
table.sortable th:hover { color: var(--accent); }
th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
tbody tr:nth-child(even) { background: #fbfcfd; }
tbody tr:hover { background: #f0f4fb; }
tbody tr:target { background: #fff5d6; }
.bar { display: inline-block; width: 34px; height: 7px; margin-right: 7px; border-radius: 4px;
  vertical-align: middle; background: linear-gradient(90deg, hsl(calc(var(--p) * 120) 62% 52%)
  calc(var(--p) * 100%), #e4e7eb 0); }
.none { color: #9aa5b1; }
footer { color: var(--muted); font-size: 13px; margin-top: 24px; }
footer a { color: var(--accent); }
"""

# Sort a table by a column on a click (again: the other way), and by the page's #TABLE=[-]COLUMN on load.
# Cells sort by their data-value (a number; empty: no value, always last) or else their text; equal
# cells keep the page's own order (data-rank).
_SCRIPT = """
(function () {
  function cellValue(cell) {
    var v = cell.getAttribute("data-value");
    if (v === null) return cell.textContent.trim().toLowerCase();
    return v === "" ? null : parseFloat(v);
  }
  function sortBy(table, column, direction) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a.cells[column]), y = cellValue(b.cells[column]);
      if (x === y) return a.dataset.rank - b.dataset.rank;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * direction;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === column) th.setAttribute("aria-sort", direction > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      th.tabIndex = 0;
      th.title = "sort by " + th.textContent;
      function activate() {
        var direction = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        sortBy(table, column, direction);
        history.replaceState(null, "", "#" + table.id + "=" + (direction < 0 ? "-" : "") + th.dataset.key);
      }
      th.addEventListener("click", activate);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") activate(); });
    });
  });
  var hash = "";
  try { hash = decodeURIComponent(location.hash); } catch (e) { /* a malformed fragment sorts nothing */ }
  var wanted = /^#([\\w-]+)=(-?)([\\w^-]+)$/.exec(hash);
  if (wanted) {
    var table = document.getElementById(wanted[1]);
    if (table && table.classList.contains("sortable")) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
        if (th.dataset.key === wanted[3]) sortBy(table, column, wanted[2] ? -1 : 1);
      });
    }
  }
  document.documentElement.setAttribute("data-sortable", String(tables.length));
})();
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _score_cell(value: float | None) -> str:
    if value is None:
        return '<td class="num none" data-value="">–</td>'
    bar = f'<span class="bar" style="--p:{value:.4f}"></span>'
    return f'<td class="num" data-value="{value:.6f}">{bar}{value:.3f}</td>'


def _int_cell(value: int) -> str:
    return f'<td class="num" data-value="{value}">{value}</td>'


def _cell(value: str | int) -> str:
    return _int_cell(value) if isinstance(value, int) else _text_cell(value)


def _text_cell(value: str, css: str = "") -> str:
    return f"<td{f' class={css}' if css else ''}>{_e(value)}</td>"


def _head(columns: Iterable[tuple[str, str, bool]]) -> str:
    cells = "".join(
        f'<th scope="col" data-key="{_e(key)}"{" class=num" if numeric else ""}>{_e(label)}</th>'
        for key, label, numeric in columns
    )
    return f"<thead><tr>{cells}</tr></thead>"


def _group_table(
    table_id: str,
    first: str,
    groups: dict[str, GroupStats],
    order: list[str],
    ks: list[int],
    extra: dict[str, str] | dict[str, int] | None = None,
    extra_label: str = "",
) -> str:
    columns = [(first, first, False)]
    if extra is not None:
        columns.append((extra_label, extra_label, any(isinstance(v, int) for v in extra.values())))
    columns += [("tasks", "tasks", True), ("trials", "trials", True)]
    columns += [(f"pass{k}", f"pass^{k}", True) for k in ks]
    columns += [("partial", "avg partial credit", True), ("truncated", "truncated", True)]
    columns += [("errors", "agent errors", True)]
    rows = []
    for rank, name in enumerate(order):
        g = groups[name]
        cells = _text_cell(name)
        if extra is not None:
            cells += _cell(extra.get(name, "?"))
        cells += _int_cell(g.tasks) + _int_cell(g.trials)
        cells += "".join(_score_cell(g.pass_hat.get(k)) for k in ks)
        cells += _score_cell(g.avg_partial_credit) + _int_cell(g.truncated) + _int_cell(g.agent_errors)
        rows.append(f'<tr id="{_e(table_id)}-{_e(name)}" data-rank="{rank}">{cells}</tr>')
    return (
        f'<div class="scroll"><table id="{_e(table_id)}" class="sortable">{_head(columns)}'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _cards(report: EvalReport, k: int) -> str:
    o = report.overall
    cards = [(_num(o.pass_hat.get(1)), "pass^1 (share of trials with full reward)" if k == 1 else "pass^1")]
    if k > 1:
        cards.append((_num(o.pass_hat.get(k)), f"pass^{k} (all {k} trials of a task succeed)"))
    cards += [
        (_num(o.avg_partial_credit), "avg partial credit"),
        (f"{o.tasks}", f"tasks in {len(report.by_env)} environment{'' if len(report.by_env) == 1 else 's'}"),
        (f"{report.trials_counted}/{report.trials_expected}", "trials counted"),
    ]
    if report.infra_errors:
        cards.append((f"{len(report.infra_errors)}", "infrastructure errors (not counted)"))
    body = "".join(
        f'<div class="card"><div class="value">{_e(v)}</div><div class="label">{_e(label)}</div></div>'
        for v, label in cards
    )
    return f'<div class="cards" id="headline">{body}</div>'


def _verdict(report: EvalReport) -> str:
    """The sentence under the numbers: the lowest environments (linked to their rows), or that all tie.
    The wording is ``report.lowest_sentence``'s."""
    if report.trials_counted == 0:
        return '<p id="verdict">No trial was counted: see the infrastructure errors below.</p>'
    low = lowest(report.by_env, VERDICT_ENVS)
    if low.counted < 2:
        return ""
    if low.all_tie:
        value = next(g.pass_hat.get(1) for g in report.by_env.values() if g.avg_partial_credit is not None)
        return f'<p id="verdict">All {low.counted} environments tie at pass^1 {_num(value)}.</p>'

    def named(name: str) -> str:
        return f'<a href="#envs-{_e(name)}">{_e(name)}</a> {_num(report.by_env[name].pass_hat.get(1))}'

    text = "Lowest pass^1: " + ", ".join(named(name) for name in low.names)
    if low.more_tied:
        text += f" (and {low.more_tied} more tie with {_e(low.names[-1])})"
    return f'<p id="verdict">{text}.</p>'


def _failures(report: EvalReport) -> str:
    if not report.failures:
        return ""
    rows = []
    for rank, f in enumerate(report.failures):
        tasks = ", ".join(f.tasks[:FAILURE_TASKS_SHOWN])
        if len(f.tasks) > FAILURE_TASKS_SHOWN:
            tasks += f" and {len(f.tasks) - FAILURE_TASKS_SHOWN} more"
        rows.append(
            f'<tr data-rank="{rank}">{_int_cell(f.count)}{_text_cell(f.signature, "wrap")}'
            f"{_int_cell(len(f.tasks))}{_text_cell(tasks, 'list')}</tr>"
        )
    head = _head([("count", "trials", True), ("failure", "failure", False), ("ntasks", "tasks", True)])
    head = head.replace("</tr></thead>", '<th scope="col" data-key="which">which tasks</th></tr></thead>')
    return (
        '<section id="failures"><h2>Most common failures</h2>'
        '<p class="note">What the scorer found wrong in failed trials, most frequent first.</p>'
        f'<div class="scroll"><table id="failure-table" class="sortable">{head}<tbody>{"".join(rows)}</tbody>'
        "</table></div></section>"
    )


def _infra(report: EvalReport) -> str:
    if not report.infra_errors:
        return ""
    items = "".join(
        f"<li><code>{_e(e.task_id)}</code> trial {e.trial}: {_e(e.error_type)}: {_e(e.error)}</li>"
        for e in report.infra_errors[:50]
    )
    more = f"<p class=note>and {len(report.infra_errors) - 50} more</p>" if len(report.infra_errors) > 50 else ""
    return (
        '<section id="infra"><h2>Infrastructure errors</h2>'
        "<p class=note>Not counted in any figure; run the same command again to retry them.</p>"
        f"<ul>{items}</ul>{more}</section>"
    )


def _actors(report: EvalReport) -> str:
    """Tool calls by actor, where the user acted too (dual control); nothing elsewhere."""
    calls = report.tool_calls
    if not calls.get("user"):
        return ""
    return (
        f'<p id="actors">Tool calls: agent {calls.get("agent", 0)}; user {calls["user"]} '
        "(the simulated user, on their own side).</p>"
    )


def _env_note(report: EvalReport) -> str:
    n = len(report.by_env)
    if lowest(report.by_env, 1).all_tie:
        return f"All {n} environments have the same result, so they are in name order; click a column to sort."
    return f"{n} environment{'' if n == 1 else 's'}, lowest first; click a column to sort."


def report_page(report: EvalReport, png: bytes) -> str:
    """The page for ``report``, with ``png`` (the figure) inline."""
    run = report.run
    k = trials_per_task(report)
    ks = sorted(report.overall.pass_hat) if k > 1 else [1]
    who = f"{run.get('agent')} {run.get('model') or ''}".strip()
    created = datetime.fromtimestamp(report.created_at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    meta = [
        f"user {_e(run.get('user'))}",
        f"tasks <code>{_e(run.get('tasks'))}</code>",
        f"{k} trial{'' if k == 1 else 's'} per task",
        _e(created),
    ]
    env_order = worst_first(report.by_env)
    difficulty = sorted(
        report.by_difficulty,
        key=lambda d: (DIFFICULTY_ORDER.index(d) if d in DIFFICULTY_ORDER else len(DIFFICULTY_ORDER), d),
    )
    sector_envs = {s: sum(1 for v in report.env_sectors.values() if v == s) for s in report.by_sector}
    figure_alt = "pass^k curve, " if k > 1 else ""
    figure_alt += "environments by pass^1 and " if "environments" in panels(report) else ""
    figure_alt += "pass^1 and partial credit per sector"
    t = report.tokens
    mean = f"; {report.mean_trial_seconds:.1f} s per trial on average" if report.mean_trial_seconds else ""
    sortable = "Lowest first; click a column to sort"
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>envfarm evaluation: {_e(who)}</title><style>{_CSS}</style></head><body><main>",
        f"<header><h1>Evaluation: {_e(who)}</h1>",
        f'<p class="meta">{"".join(f"<span>{m}</span>" for m in meta)}</p></header>',
        _cards(report, k),
        _verdict(report),
        f'<section id="figure"><figure><img alt="{_e(figure_alt)}" '
        f'src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}"></figure></section>',
        f'<section id="environments"><h2>Environments</h2><p class="note">{_env_note(report)}</p>',
        _group_table("envs", "environment", report.by_env, env_order, ks, report.env_sectors, "sector"),
        "</section>",
        f'<section id="sectors"><h2>Sectors</h2><p class="note">{sortable}.</p>',
        _group_table(
            "sector-table",
            "sector",
            report.by_sector,
            worst_first(report.by_sector),
            ks,
            sector_envs,
            "environments",
        ),
        "</section>",
        '<section id="difficulties"><h2>Difficulty</h2>',
        _group_table("difficulty-table", "difficulty", report.by_difficulty, difficulty, ks),
        "</section>",
        _failures(report),
        _infra(report),
        f"<footer><p>Tokens: agent {t.agent_input} in / {t.agent_output} out; user {t.user_input} in / "
        f"{t.user_output} out{_e(mean)}.</p>",
        _actors(report),
        '<p>Files beside this page: <a href="report.json">report.json</a> (every figure), '
        '<a href="summary.md">summary.md</a> (the tables as Markdown), '
        '<a href="results.jsonl">results.jsonl</a> (one record per trial, with messages and score diffs).</p>'
        "</footer>",
        f"</main><script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"
