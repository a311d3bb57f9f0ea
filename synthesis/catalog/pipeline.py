"""The synthesis pipeline: domains -> verified environments and tasks, written as a catalog.

Per domain (in a worker process): generate the spec -> procedural tests (rejected tools are
dropped and the spec regenerated without them; too thin an environment is rejected) ->
``check_env`` -> task instantiation by graph expansion -> ``check_env`` with the tasks (every gold
replay must score 1.0) -> write ``<out>/<env_id>/{spec,seed,tasks,graph}.json`` and ``policy.md``;
then the quality report of the accepted environments (``quality-report.{json,md}``).
Every rejection is counted by stage and reason. Same domains and seed -> byte-identical files.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs import check_env, paths
from envs.catalog import load_env_dir
from envs.quality import quality_report, write_quality_report

from ..domains.domain import Domain
from ..domains.enforcement import DEFAULT_POLICY_SHARE, assign_enforcement
from ..domains.parent_states import stranded_children
from ..domains.sqlgen import DomainError
from ..gate.probe import probe_env
from ..tasks.graph import graph_from_meta, graph_to_json
from ..tasks.taskgen import generate_tasks
from ..tools.envgen import generate_env

MIN_TOOLS = 12
MIN_WRITE_TOOLS = 4
PIPELINE_VERSION = "1"


@dataclass
class SynthesisConfig:
    """What to synthesize and where."""

    out: Path
    seed: int = 0
    tasks_per_env: int = 30
    variants: int = 1
    rows: tuple[int, int] = (20, 200)
    workers: int = 1
    llm: Any = None  # synthesis.sources.llm.ClientConfig: when set, the LLM rewrites task texts (re-verified)
    quality: bool = True  # write quality-report.{json,md} (the default catalog skips it: first start is faster)
    limit: int | None = None  # at most this many environments (each domain's first variant comes first)
    policy_share: float = DEFAULT_POLICY_SHARE  # of each domain's rules, written in the policy only
    topics: list[dict[str, Any]] = field(default_factory=list)  # each mined topic's decision, for the report


@dataclass
class EnvOutcome:
    """The result of one domain (variant) through the pipeline."""

    env_id: str
    domain: str
    sector: str
    status: str  # accepted | rejected
    reason: str = ""
    tools: int = 0
    write_tools: int = 0
    tasks: int = 0
    tasks_4plus: int = 0
    tool_rejections: dict[str, int] = field(default_factory=dict)
    task_rejections: dict[str, int] = field(default_factory=dict)
    probe_cases: int = 0
    children_checked: int = 0  # seed rows whose parent's state their create tests (``parent_states``)
    stranded_children: int = 0  # of those, under a parent in a state they could not be made in
    seconds: float = 0.0


def _variant(domain: Domain, k: int) -> Domain:
    return domain if k == 0 else domain.model_copy(update={"id": f"{domain.id}_v{k + 1}"})


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def synthesize_one(domain: Domain, variant: int, config: SynthesisConfig) -> EnvOutcome:
    """Run one domain variant through every stage and write it if accepted."""
    t0 = time.perf_counter()
    d = assign_enforcement(_variant(domain, variant), config.policy_share)
    seed = config.seed * 1000 + variant
    out = EnvOutcome(env_id=d.id, domain=domain.id, sector=d.sector, status="rejected")
    try:
        gen = generate_env(d, seed=seed, rows=config.rows)
        probe = probe_env(d, gen.spec, gen.meta, seed=seed)
        out.probe_cases = probe.cases
        out.tool_rejections = dict(probe.reasons)
        if probe.rejected:
            gen = generate_env(d, seed=seed, rows=config.rows, exclude=frozenset(probe.rejected))
        writes = sum(t.kind == "write" for t in gen.spec.tools)
        out.tools, out.write_tools = len(gen.spec.tools), writes
        out.children_checked, out.stranded_children = stranded_children(d, gen.spec.seed)
        if len(gen.spec.tools) < MIN_TOOLS or writes < MIN_WRITE_TOOLS:
            out.reason = f"too_thin: {len(gen.spec.tools)} tools, {writes} write tools after the gate"
            return out
        report = check_env(gen.spec)
        if not report.ok:
            out.reason = f"check_env: {report.problems[0]}"
            return out
        # a small surplus, so a task the checker refuses is dropped instead of sinking the environment
        surplus = config.tasks_per_env + max(2, config.tasks_per_env // 10)
        twin = generate_env(d, seed=seed, rows=config.rows, exclude=frozenset(probe.rejected), enforce_all=True)
        tasks, task_rejections = generate_tasks(d, gen.spec, gen.meta, count=surplus, seed=seed, twin=twin.spec)
        if config.llm is not None:
            from ..tasks.rewrite import rewrite_instructions

            tasks = rewrite_instructions(tasks, config.llm, task_rejections)
        report = check_env(gen.spec, tasks)
        failing = {p.where.split()[1] for p in report.problems if p.where.startswith("task ")}
        if any(not p.where.startswith("task ") for p in report.problems):
            out.reason = f"check_env with tasks: {report.problems[0]}"
            return out
        if failing:
            task_rejections["failed_check_env"] += len(failing)
        tasks = [t for t in tasks if t.id not in failing][: config.tasks_per_env]
        out.task_rejections = dict(task_rejections)
        if len(tasks) < config.tasks_per_env:
            out.reason = f"too_few_tasks: {len(tasks)} of {config.tasks_per_env}"
            return out
    except DomainError as exc:
        out.reason = f"domain_error: {exc}"
        return out
    finally:
        out.seconds = time.perf_counter() - t0
    env_dir = config.out / d.id
    env_dir.mkdir(parents=True, exist_ok=True)
    spec = gen.spec.model_dump(mode="json", exclude={"seed", "policy"})
    (env_dir / paths.SPEC_FILE).write_text(_dump(spec), encoding="utf-8")
    (env_dir / paths.SEED_FILE).write_text(_dump(gen.spec.seed), encoding="utf-8")
    (env_dir / paths.POLICY_FILE).write_text(gen.spec.policy, encoding="utf-8")
    (env_dir / paths.TASKS_FILE).write_text(
        _dump([t.model_dump(mode="json", exclude_defaults=True) for t in tasks]), encoding="utf-8"
    )
    (env_dir / "graph.json").write_text(_dump(graph_to_json(graph_from_meta(gen.meta))), encoding="utf-8")
    out.status, out.tasks = "accepted", len(tasks)
    out.tasks_4plus = sum(len(t.gold_actions) >= 4 for t in tasks)
    out.seconds = time.perf_counter() - t0
    return out


def _job(args: tuple[Domain, int, SynthesisConfig]) -> EnvOutcome:
    return synthesize_one(*args)


def _exit_with_parent() -> None:
    """Pool initializer: a worker whose parent died (killed mid-run) exits instead of waiting for work
    forever, and so lets go of what it inherited (the default catalog's locks among them)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def run_pipeline(
    domains: Sequence[Domain], config: SynthesisConfig, *, progress: Callable[[EnvOutcome], None] = lambda o: None
) -> dict[str, Any]:
    """Synthesize every domain (x variants); write the catalog and the report; return the report."""
    config.out.mkdir(parents=True, exist_ok=True)
    jobs = [(d, k, config) for k in range(config.variants) for d in domains][: config.limit]
    t0 = time.perf_counter()
    outcomes: list[EnvOutcome] = []
    if config.workers <= 1:
        for job in jobs:
            outcomes.append(_job(job))
            progress(outcomes[-1])
    else:
        with ProcessPoolExecutor(max_workers=config.workers, initializer=_exit_with_parent) as pool:
            for outcome in pool.map(_job, jobs, chunksize=2):
                outcomes.append(outcome)
                progress(outcome)
    elapsed = time.perf_counter() - t0
    report = build_report(outcomes, config)
    (config.out / "synthesis-report.json").write_text(_dump(report), encoding="utf-8")
    (config.out / "synthesis-report.md").write_text(report_markdown(report), encoding="utf-8")
    (config.out / "synthesis-timing.json").write_text(
        _dump(
            {
                "seconds": round(elapsed, 2),
                "workers": config.workers,
                "per_env_seconds": {o.env_id: round(o.seconds, 3) for o in outcomes},
            }
        ),
        encoding="utf-8",
    )
    if config.quality:
        accepted = [config.out / o.env_id for o in outcomes if o.status == "accepted"]
        write_quality_report(quality_report([load_env_dir(path) for path in accepted]), config.out)
    report["seconds"] = elapsed
    return report


def build_report(outcomes: list[EnvOutcome], config: SynthesisConfig) -> dict[str, Any]:
    """Per-stage counts, rejection reasons, tools and tasks per environment (no timings: deterministic)."""
    accepted = [o for o in outcomes if o.status == "accepted"]
    tool_reasons: Counter[str] = Counter()
    task_reasons: Counter[str] = Counter()
    for o in outcomes:
        tool_reasons.update(o.tool_rejections)
        task_reasons.update(o.task_rejections)
    n_tasks = sum(o.tasks for o in accepted)
    return {
        "pipeline_version": PIPELINE_VERSION,
        "seed": config.seed,
        "environments": {
            "attempted": len(outcomes),
            "accepted": len(accepted),
            "rejected": {o.env_id: o.reason for o in outcomes if o.status != "accepted"},
        },
        "domains": len({o.domain for o in outcomes}),
        "sectors": sorted({o.sector for o in accepted}),
        "tools": {
            "average": round(sum(o.tools for o in accepted) / max(1, len(accepted)), 2),
            "average_write": round(sum(o.write_tools for o in accepted) / max(1, len(accepted)), 2),
            "rejected_by_gate": dict(sorted(tool_reasons.items())),
        },
        "tasks": {
            "total": n_tasks,
            "share_4plus_calls": round(sum(o.tasks_4plus for o in accepted) / max(1, n_tasks), 3),
            "rejected_attempts": dict(sorted(task_reasons.items())),
        },
        "probe_cases": sum(o.probe_cases for o in outcomes),
        "seed_rows": {
            "children_checked": sum(o.children_checked for o in accepted),
            "stranded_children": sum(o.stranded_children for o in accepted),
        },
        "topics": config.topics,
        "per_environment": [
            {
                "id": o.env_id,
                "sector": o.sector,
                "status": o.status,
                "tools": o.tools,
                "write_tools": o.write_tools,
                "tasks": o.tasks,
                "tasks_4plus": o.tasks_4plus,
                "stranded_children": f"{o.stranded_children}/{o.children_checked}",
                "reason": o.reason,
            }
            for o in sorted(outcomes, key=lambda o: o.env_id)
        ],
    }


def _bullets(items: dict[str, Any]) -> list[str]:
    return [f"- {k}: {v}" for k, v in items.items()] or ["- none"]


def report_markdown(report: dict[str, Any]) -> str:
    """The report as a page people read (no timings, so it is byte-identical across runs)."""
    envs = report["environments"]
    lines = [
        "# Synthesis report",
        "",
        f"- environments: {envs['accepted']} accepted of {envs['attempted']} attempted "
        f"({report['domains']} distinct domains, {len(report['sectors'])} sectors); timings in synthesis-timing.json",
        f"- tools per environment: {report['tools']['average']} on average, {report['tools']['average_write']} write",
        f"- tasks: {report['tasks']['total']} verified, {report['tasks']['share_4plus_calls']:.0%} need 4+ tool calls",
        f"- procedural test cases run: {report['probe_cases']}",
        f"- seed rows under a parent in a state they could not be made in: {report['seed_rows']['stranded_children']} "
        f"of {report['seed_rows']['children_checked']} whose parent's state their create tests",
        "",
        "## Tools rejected by the admission gate",
        "",
        *_bullets(report["tools"]["rejected_by_gate"]),
        "",
        "## Task attempts rejected",
        "",
        *_bullets(report["tasks"]["rejected_attempts"]),
        "",
        "## Environments rejected",
        "",
        *_bullets(envs["rejected"]),
        "",
    ]
    if report.get("topics"):
        lines += ["## Topics matched to domains", "", "| topic | requests | decision | domain | score | nearest |"]
        lines.append("|---|---|---|---|---|---|")
        for t in report["topics"]:
            nearest = ", ".join(f"{n['domain']} {n['score']:.2f}" for n in t["nearest"])
            lines.append(
                f"| {t['topic']} | {t['requests']} | {t['decision']} | {t['domain'] or '–'} | {t['score']:.2f} | "
                f"{nearest} |"
            )
        lines.append("")
    lines += [
        "## Per environment",
        "",
        "| id | sector | tools (write) | tasks (4+ calls) |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {e['id']} | {e['sector']} | {e['tools']} ({e['write_tools']}) | {e['tasks']} ({e['tasks_4plus']}) |"
        for e in report["per_environment"]
        if e["status"] == "accepted"
    ]
    return "\n".join(lines) + "\n"
