"""``envfarm import tau2``: a tau2-bench domain folder (``db.json``, ``tasks.json``, ``policy.md``)
to an envfarm environment with its tasks.

tau2's text (policy, task scenarios) is read from the user's folder at run time and written only to
the output catalog. Every gold action is replayed on a fresh episode while importing: the ones that
fail in tau2 too (a look-up of a user who does not exist) are left out of the task's gold actions,
since a failed call changes nothing, and whether the task changes state is read off the replay.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envs import paths
from envs.engine import Environment
from envs.errors import EnvFarmError, ToolError
from envs.spec import EnvSpec
from envs.task import Task

from . import airline, retail
from .common import Tau2Domain, convert_task

DOMAINS: dict[str, Tau2Domain] = {"retail": retail.DOMAIN, "airline": airline.DOMAIN}
#: A top-level table of ``db.json`` that tells which domain a folder holds.
_MARKERS = {"products": "retail", "flights": "airline"}


class Tau2ImportError(EnvFarmError):
    """The folder is not a tau2 domain this importer knows, or its files do not read."""


@dataclass
class ImportResult:
    env_id: str
    path: Path
    tasks: int
    gold_actions: int
    failing_gold_actions: list[str] = field(default_factory=list)  # "task id: tool: message"


def register(name: str, domain: Tau2Domain) -> None:
    """Make another tau2 domain importable (used by the airline module)."""
    DOMAINS[name] = domain


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Tau2ImportError(
            f"{path} is missing: a tau2 domain folder holds db.json, tasks.json and policy.md"
        ) from None
    except (OSError, ValueError) as exc:
        raise Tau2ImportError(f"{path} does not read as JSON: {exc}") from None


def detect_domain(data_dir: Path) -> str:
    """``retail`` or ``airline``, from the folder's name or the tables in its ``db.json``."""
    if data_dir.name in DOMAINS:
        return data_dir.name
    db = _read_json(data_dir / "db.json")
    for table, name in _MARKERS.items():
        if isinstance(db, dict) and table in db and name in DOMAINS:
            return name
    known = ", ".join(sorted(DOMAINS))
    raise Tau2ImportError(f"{data_dir} holds no tau2 domain this importer knows (known: {known})")


def domain_folders(data_dir: Path) -> list[Path]:
    """The tau2 domain folders ``data_dir`` names: itself (it holds a ``db.json``), or the known domains
    under it, a tau2 checkout (``data/tau2/domains/<domain>``) included.

    Raises:
        Tau2ImportError: no domain folder is found.
    """
    if not data_dir.is_dir():
        raise Tau2ImportError(f"{data_dir} is not a folder")
    if (data_dir / "db.json").is_file():
        return [data_dir]
    found = []
    for base in (data_dir, data_dir / "data", data_dir / "domains", data_dir / "data" / "tau2" / "domains"):
        found += [base / name for name in DOMAINS if (base / name / "db.json").is_file()]
    if not found:
        raise Tau2ImportError(
            f"no tau2 domain in {data_dir}: expected a folder with db.json, tasks.json and policy.md, "
            f"or one holding {' and '.join(sorted(DOMAINS))} folders (a tau2 checkout's data/tau2/domains)"
        )
    return found


def _splits(data_dir: Path) -> dict[str, list[str]]:
    """tau2 task id -> the splits (``train``, ``test``, ...) listing it, from ``split_tasks.json``."""
    path = data_dir / "split_tasks.json"
    if not path.exists():
        return {}
    found: dict[str, list[str]] = {}
    for split, ids in _read_json(path).items():
        for task_id in ids:
            found.setdefault(str(task_id), []).append(split)
    return found


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def import_domain(data_dir: Path, out_dir: Path, *, progress: Callable[[int, int], None] | None = None) -> ImportResult:
    """Write ``out_dir/<env_id>/`` (spec, seed, policy, tasks) from a tau2 domain folder.

    Raises:
        Tau2ImportError: the folder is not a known tau2 domain, or a file is missing or unreadable.
    """
    name = detect_domain(data_dir)
    domain = DOMAINS[name]
    db = _read_json(data_dir / "db.json")
    tasks = _read_json(data_dir / "tasks.json")
    try:
        policy = (data_dir / "policy.md").read_text(encoding="utf-8")
    except OSError as exc:
        raise Tau2ImportError(f"{data_dir / 'policy.md'} does not read: {exc}") from None
    if not isinstance(tasks, list):
        raise Tau2ImportError(f"{data_dir / 'tasks.json'} must hold a list of tasks")
    spec = domain.spec()
    seed = domain.seed(db)
    env = Environment(EnvSpec.model_validate({**spec, "seed": seed, "policy": policy}))
    splits = _splits(data_dir)
    converted, failing, total = [], [], 0
    for done, task in enumerate(tasks):
        if task.get("initial_state"):  # none of retail's or airline's tasks has one
            raise Tau2ImportError(
                f"task {task.get('id')!r} in {data_dir / 'tasks.json'} has an initial_state, which this importer "
                "does not apply; its gold actions would start from the wrong state"
            )
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        episode = env.episode()
        gold, changed = [], False
        for action in actions:
            total += 1
            try:
                result = episode.call_tool(action["name"], action.get("arguments") or {})
            except ToolError as exc:
                failing.append(f"{task['id']}: {action['name']}: {exc}")
                continue
            gold.append({**action, "writes": result.wrote})
            changed = changed or result.wrote
        episode.close()
        record = convert_task(
            domain.env_id, task, gold=gold, expects_change=changed, split=splits.get(str(task["id"]), [])
        )
        converted.append(Task.model_validate(record).model_dump(mode="json", exclude_defaults=True))
        if progress:
            progress(done + 1, len(tasks))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / domain.env_id
    staging = Path(tempfile.mkdtemp(prefix=f".{domain.env_id}-", dir=out_dir))
    try:
        (staging / paths.SPEC_FILE).write_text(_dump(spec), encoding="utf-8")
        (staging / paths.SEED_FILE).write_text(_dump(seed), encoding="utf-8")
        (staging / paths.POLICY_FILE).write_text(policy, encoding="utf-8")
        (staging / paths.TASKS_FILE).write_text(_dump(converted), encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return ImportResult(domain.env_id, target, len(converted), total, failing)
