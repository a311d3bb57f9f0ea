"""The ``tau2_retail`` row of ``envfarm bench engine``: reset, hash and score on tau2's own 2.8 MB
retail database, beside the dict operations tau2's design does for the same work, measured in the
same run (a deep copy of the parsed ``db.json`` for a reset, ``json.dumps(sort_keys=True)`` and
SHA-256 of it for a state hash)."""

from __future__ import annotations

import copy
import hashlib
import json
import time
from pathlib import Path
from typing import Any

from envs.bench import timeit
from envs.engine import Environment
from envs.formats.spec import EnvSpec
from envs.formats.task import Task
from envs.grading.scoring import score_episode

from ..tau2.common import convert_task
from ..tau2.importer import DOMAINS, detect_domain, domain_folders
from ..tau2.inputs import TASKS, Tau2ImportError, read_json

#: tau2 1.0.1's own figures on this kind of machine, as the issue quotes them (not measured here).
TAU2_REPORTED_MS = {"get_environment": 51.7, "db_hash": 37.4, "score_one_task": 166.0}


def _retail_folder(data_dir: Path) -> Path:
    for folder in domain_folders(data_dir):
        if detect_domain(folder) == "retail":
            return folder
    raise Tau2ImportError(f"no tau2 retail folder in {data_dir}")


def bench_tau2_retail(data_dir: Path, *, repeat: int = 200) -> dict[str, Any]:
    """Reset, full-state hash and scoring of tau2's first retail task, with in-run dict baselines."""
    folder = _retail_folder(data_dir)
    domain = DOMAINS["retail"]
    # read as the importer reads them: a malformed file is a one-line Tau2ImportError, not a traceback
    db = read_json(folder / "db.json", domain.db_schema)
    tasks = read_json(folder / "tasks.json", TASKS)
    if not tasks:
        raise Tau2ImportError(f"{folder / 'tasks.json'}: no task to score")
    raw = tasks[0]
    env = Environment(EnvSpec.model_validate({**domain.spec(), "seed": domain.seed(db)}))
    actions = [a for a in (raw.get("evaluation_criteria") or {}).get("actions") or [] if a["name"] in env.tools]
    gold = [
        {**a, "arguments": a.get("arguments") or {}, "writes": env.tools[a["name"]].kind == "write"} for a in actions
    ]
    changes = any(a["writes"] for a in gold)
    task = Task.model_validate(convert_task(domain.env_id, raw, gold=gold, expects_change=changes, split=[]))

    reset = timeit(lambda: env.episode().close(), repeat)
    reset_base = timeit(lambda: copy.deepcopy(db), max(5, repeat // 20))
    episode = env.episode()
    state_hash = timeit(episode.state_hash, max(5, repeat // 4))
    hash_base = timeit(
        lambda: hashlib.sha256(json.dumps(db, sort_keys=True, default=str).encode()).hexdigest(),
        max(5, repeat // 20),
    )
    agent = env.episode(task)
    agent.replay(task.gold_actions)
    started = time.perf_counter()
    cold = score_episode(env, task, agent)
    cold_ms = (time.perf_counter() - started) * 1e3
    score = timeit(lambda: score_episode(env, task, agent), repeat)
    return {
        "database_bytes": len(env.image),
        "db_json_bytes": (folder / "db.json").stat().st_size,
        "task": task.id,
        "reward": cold.reward,
        "reset": {**reset, "target_ms": 1.0, "meets_target": reset["median_ms"] <= 1.0},
        "reset_dict_deepcopy": reset_base,
        "reset_speedup_vs_deepcopy": reset_base["median_ms"] / reset["median_ms"],
        "state_hash": state_hash,
        "state_hash_dict_json": hash_base,
        "score": {**score, "target_ms": 5.0, "meets_target": score["median_ms"] <= 5.0},
        "score_cold_ms_including_gold_replay": cold_ms,
        "tau2_reported_ms": TAU2_REPORTED_MS,
    }
