"""``run_eval(config)``: run every selected (task, trial) concurrently, resumably, and report.

The run directory holds ``run.json`` (what is being run), ``environments.json`` (sector and tool
definitions per environment, for exports), ``results.jsonl`` (one record per finished trial) and
the report files. Running the same command again resumes: finished trials are kept, trials with
no record or an infrastructure error are run again.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from .agents.anthropic_agent import AnthropicAgent
from .agents.base import Agent, LLMSettings
from .agents.openai_agent import OpenAIAgent
from .agents.oracle import OracleAgent
from .config import EvalConfig
from .errors import ConfigError, RunDirError
from .farm import FarmClient
from .models import EnvInfo, TaskView
from .progress import Counter, counting
from .records import ResultStore, TrialRecord, read_json
from .report import EvalReport, build_report, write_report
from .runner import Limits, run_trial
from .selection import resolve_tasks
from .tools import ToolDef
from .users.base import UserSimulator
from .users.llm import LLMUser
from .users.oracle import OracleUser
from .users.solo import SoloUser

RUN_FILE = "run.json"
ENVS_FILE = "environments.json"


def make_agent(config: EvalConfig) -> Agent:
    """The agent a configuration names."""
    if config.agent == "oracle":
        return OracleAgent()
    settings = LLMSettings(
        model=config.model or "",
        api_key=config.agent_api_key(),
        base_url=config.base_url,
        retry=config.retry,
        timeout=config.request_timeout,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
    )
    return OpenAIAgent(settings) if config.agent == "openai" else AnthropicAgent(settings)


def make_user(config: EvalConfig) -> UserSimulator:
    """The user side a configuration names."""
    if config.user == "oracle" or (config.user == "solo" and config.agent == "oracle"):
        # The oracle agent's partner: solo where only the agent acts, and the one that takes the
        # gold's user actions where the user acts too (dual control).
        return OracleUser()
    if config.user == "solo":
        return SoloUser()
    settings = LLMSettings(
        model=config.simulator_model() or "",
        api_key=config.user_api_key(),
        base_url=config.simulator_base_url(),
        retry=config.retry,
        timeout=config.request_timeout,
        max_tokens=min(config.max_tokens, 1024),
        temperature=config.temperature,
    )
    return LLMUser(settings)


def _claim_run_dir(config: EvalConfig) -> None:
    path = config.out / RUN_FILE
    identity = config.identity()
    if path.exists():
        previous = read_json(path)
        differing = [k for k, v in identity.items() if previous.get(k) != v]
        if differing:
            shown = ", ".join(f"{k}={previous.get(k)!r} (now {identity[k]!r})" for k in differing)
            raise RunDirError(f"{config.out} holds another run ({shown}); use a new --out directory")
    config.out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(identity, indent=2) + "\n", encoding="utf-8")


def _write_envs(out: Path, envs: dict[str, EnvInfo]) -> None:
    path = out / ENVS_FILE
    known: dict[str, Any] = read_json(path) if path.exists() else {}
    for env_id, env in envs.items():
        known[env_id] = {
            "name": env.name,
            "sector": env.sector,
            "tools": [ToolDef(t.name, t.description, t.input_schema).openai() for t in env.tool_list],
        }
    path.write_text(json.dumps(known, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


async def arun_eval(config: EvalConfig) -> EvalReport:
    """Run an evaluation (see ``run_eval``)."""
    config.check()
    _claim_run_dir(config)
    store = ResultStore(config.out)
    async with FarmClient(config.server, api_key=config.server_key, retry=config.retry) as farm:
        tasks = await resolve_tasks(farm, config.tasks)
        if config.agent == "oracle" and not all(t.is_admin_view for t in tasks):
            raise ConfigError("the oracle agent needs gold actions, which the task service shows only to admin keys")
        envs = {env_id: await farm.get_env(env_id) for env_id in dict.fromkeys(t.env for t in tasks)}
        _write_envs(config.out, envs)
        finished = store.finished()
        todo = [(t, i) for t in tasks for i in range(config.trials) if (t.id, i) not in finished]
        if not todo and config.show_progress:  # a resumed run that had finished: say so, not "0/0"
            print(f"all {len(tasks) * config.trials} trials in {config.out} are already done", file=sys.stderr)
        agent, user = make_agent(config), make_user(config)
        try:
            await _run_all(config, farm, store, envs, todo, agent, user)
        finally:
            await agent.aclose()
            await user.aclose()
    wanted = {(t.id, i) for t in tasks for i in range(config.trials)}
    latest = [r for k, r in store.latest().items() if k in wanted]
    run = config.identity() | {"tasks": config.tasks, "trials": config.trials, "server": config.server}
    report = build_report(latest, run=run, trials=config.trials, expected=len(wanted))
    write_report(report, config.out)
    return report


async def _run_all(
    config: EvalConfig,
    farm: FarmClient,
    store: ResultStore,
    envs: dict[str, EnvInfo],
    todo: list[tuple[TaskView, int]],
    agent: Agent,
    user: UserSimulator,
) -> None:
    limits = Limits(max_turns=config.max_turns, max_tool_calls=config.max_tool_calls)
    gate = asyncio.Semaphore(config.concurrency)

    async def one(task: TaskView, trial: int, progress: Counter) -> TrialRecord:
        async with gate:
            record = await run_trial(
                farm,
                task,
                agent,
                user,
                trial=trial,
                limits=limits,
                sector=envs[task.env].sector,
                model=config.model,
                user_model=config.simulator_model(),
                knowledge=config.knowledge,
            )
        store.append(record)
        progress.advance()
        return record

    if not todo:
        return
    label = f"eval {config.agent} {config.model or ''}".strip()
    with counting(label, len(todo), "trials", enabled=config.show_progress) as progress:
        await asyncio.gather(*(one(t, i, progress) for t, i in todo))


def run_eval(config: EvalConfig) -> EvalReport:
    """Evaluate an agent on the selected tasks, writing records and a report to ``config.out``.

    Trials run ``config.concurrency`` at a time. Re-running with the same directory resumes.

    Raises:
        ConfigError: the configuration cannot run (no model, no API key, oracle without an admin key).
        SelectionError: the task selector names nothing known.
        RunDirError: ``config.out`` holds a different run.
        FarmAPIError, TransportError: the task service failed before any trial could run.

    >>> config = EvalConfig(agent="oracle", server="http://127.0.0.1:8765", out=Path("runs/oracle"))
    >>> report = run_eval(config)  # doctest: +SKIP
    >>> report.overall.pass_hat[1]  # doctest: +SKIP
    1.0
    """
    return asyncio.run(arun_eval(config))
