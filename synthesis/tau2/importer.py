"""``envfarm import tau2``: a tau2-bench domain folder (``db.json``, ``tasks.json``, ``policy.md``; telecom
has its own files, ``synthesis.tau2.telecom``) to an envfarm environment with its tasks.

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

from pydantic import ValidationError

from envs import paths
from envs.engine import Environment
from envs.errors import EnvFarmError, ToolError
from envs.formats.spec import EnvSpec
from envs.formats.task import Task

from . import airline, banking, retail, telecom
from .common import Tau2Domain, convert_task, task_id
from .inputs import SPLITS, TASKS, Tau2ImportError, field_path, read_json, read_text

DOMAINS: dict[str, Tau2Domain] = {
    "retail": retail.DOMAIN,
    "airline": airline.DOMAIN,
    "telecom": telecom.DOMAIN,
    "banking_knowledge": banking.DOMAIN,
}
#: Domains whose folder holds TOML databases (the carrier's ``db.toml`` and the phone's ``user_db.toml``).
_TOML_DOMAINS = {"telecom"}
#: A top-level table of ``db.json`` that tells which domain a folder holds.
_MARKERS = {"products": "retail", "flights": "airline"}


@dataclass
class ImportResult:
    env_id: str
    path: Path
    tasks: int
    gold_actions: int
    failing_gold_actions: list[str] = field(default_factory=list)  # "task id: tool: message"
    left_out: list[str] = field(default_factory=list)  # "task id: why" (tasks not imported)


def register(name: str, domain: Tau2Domain) -> None:
    """Make another tau2 domain importable (used by the airline module)."""
    DOMAINS[name] = domain


def detect_domain(data_dir: Path) -> str:
    """``retail``, ``airline``, ``telecom`` or ``banking_knowledge``, from the folder's name, its
    ``user_db.toml`` (telecom), its ``documents/`` (banking_knowledge) or the tables in its ``db.json``."""
    if data_dir.name in DOMAINS:
        return data_dir.name
    if banking.is_banking(data_dir):
        return "banking_knowledge"
    if (data_dir / "user_db.toml").is_file() and not (data_dir / "db.json").is_file():
        return "telecom"
    db = read_json(data_dir / "db.json")
    for table, name in _MARKERS.items():
        if isinstance(db, dict) and table in db and name in DOMAINS:
            return name
    known = ", ".join(sorted(DOMAINS))
    raise Tau2ImportError(f"{data_dir} holds no tau2 domain this importer knows (known: {known})")


def _holds_domain(folder: Path, name: str | None = None) -> bool:
    """Whether ``folder`` holds a tau2 domain's database (``db.json``, or telecom's ``db.toml``)."""
    if (name is None or name not in _TOML_DOMAINS) and (folder / "db.json").is_file():
        return True
    return (name is None or name in _TOML_DOMAINS) and (folder / "db.toml").is_file()


def domain_folders(data_dir: Path) -> list[Path]:
    """The tau2 domain folders ``data_dir`` names: itself (it holds a ``db.json``), or the known domains
    under it, a tau2 checkout (``data/tau2/domains/<domain>``) included.

    Raises:
        Tau2ImportError: no domain folder is found.
    """
    if not data_dir.is_dir():
        raise Tau2ImportError(f"{data_dir} is not a folder")
    if _holds_domain(data_dir):
        return [data_dir]
    found = []
    for base in (data_dir, data_dir / "data", data_dir / "domains", data_dir / "data" / "tau2" / "domains"):
        found += [base / name for name in DOMAINS if _holds_domain(base / name, name)]
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
    for split, ids in read_json(path, SPLITS).items():
        for tau2_id in ids:
            found.setdefault(str(tau2_id), []).append(split)
    return found


def _dump(obj: Any) -> str:
    # allow_nan=False: the inputs were checked, but a non-finite number must never be written as the
    # non-JSON ``Infinity`` the loader would refuse
    return json.dumps(obj, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = field_path(err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    return msg if where == "(root)" else f"{where}: {msg}"


def _refuse_colliding_ids(env_id: str, tasks: list[dict[str, Any]], source: Path) -> None:
    """Two tau2 ids that become one envfarm id (``a/b`` and ``a_b``, or the same id twice) would make a
    catalog the loader refuses: refuse them here, naming both."""
    seen: dict[str, int] = {}
    for i, task in enumerate(tasks):
        new_id = task_id(env_id, task["id"])
        if new_id in seen:
            j = seen[new_id]
            other = tasks[j]["id"]
            same = "is the same id as" if str(other) == str(task["id"]) else f"becomes task id {new_id!r}, as does"
            raise Tau2ImportError(f"{source}: [{i}].id: {task['id']!r} {same} [{j}].id {other!r}")
        seen[new_id] = i


@dataclass
class PreparedImport:
    """One domain converted and checked in memory: the files to write, nothing written yet."""

    env_id: str
    files: dict[str, str]
    tasks: int
    gold_actions: int
    failing_gold_actions: list[str]
    left_out: list[str] = field(default_factory=list)


def prepare_domain(data_dir: Path, *, progress: Callable[[int, int], None] | None = None) -> PreparedImport:
    """Read, check and convert a tau2 domain folder, replaying every gold action; write nothing.

    Raises:
        Tau2ImportError: the folder is not a known tau2 domain, or a file is missing or malformed
            (one line naming the file and the field).
    """
    name = detect_domain(data_dir)
    if name == "telecom":  # two databases in TOML, set-up actions, both actors: its own converter
        files, count, total = telecom.prepare(data_dir, progress)
        return PreparedImport(telecom.ENV_ID, files, count, total, [])
    if name == "banking_knowledge":  # one database both actors act on, documents, discoverable tools
        files, count, total, left_out = banking.prepare(data_dir, progress)
        return PreparedImport(banking.ENV_ID, files, count, total, [], left_out)
    domain = DOMAINS[name]
    db_path, tasks_path = data_dir / "db.json", data_dir / "tasks.json"
    db = read_json(db_path, domain.db_schema)
    tasks = read_json(tasks_path, TASKS)
    policy = read_text(data_dir / "policy.md")
    splits = _splits(data_dir)
    _refuse_colliding_ids(domain.env_id, tasks, tasks_path)
    spec = domain.spec()
    seed = domain.seed(db)
    try:
        env = Environment(EnvSpec.model_validate({**spec, "seed": seed, "policy": policy}))
    except ValidationError as exc:  # a value a table refuses: the message names table, row and column
        raise Tau2ImportError(f"{db_path}: {_first_error(exc)}") from None
    except EnvFarmError as exc:
        raise Tau2ImportError(f"{db_path}: {exc}") from None
    converted, failing, total = [], [], 0
    for done, task in enumerate(tasks):
        if task.get("initial_state"):  # none of retail's or airline's tasks has one
            raise Tau2ImportError(
                f"{tasks_path}: [{done}].initial_state: task {task['id']!r} has one, which this importer "
                "does not apply; its gold actions would start from the wrong state"
            )
        actions = (task.get("evaluation_criteria") or {}).get("actions") or []
        episode = env.episode()
        gold, changed = [], False
        for action in actions:
            total += 1
            arguments = action.get("arguments") or {}
            try:
                result = episode.call_tool(action["name"], arguments)
            except ToolError as exc:
                failing.append(f"{task['id']}: {action['name']}: {exc}")
                continue
            gold.append({**action, "arguments": arguments, "writes": result.wrote})
            changed = changed or result.wrote
        episode.close()
        record = convert_task(
            domain.env_id, task, gold=gold, expects_change=changed, split=splits.get(str(task["id"]), [])
        )
        try:
            converted.append(Task.model_validate(record).model_dump(mode="json", exclude_defaults=True))
        except ValidationError as exc:
            raise Tau2ImportError(
                f"{tasks_path}: [{done}]: task {task['id']!r} does not convert: {_first_error(exc)}"
            ) from None
        if progress:
            progress(done + 1, len(tasks))
    try:
        files = {
            paths.SPEC_FILE: _dump(spec),
            paths.SEED_FILE: _dump(seed),
            paths.POLICY_FILE: policy,
            paths.TASKS_FILE: _dump(converted),
        }
    except ValueError as exc:
        raise Tau2ImportError(f"{data_dir}: {exc}") from None
    return PreparedImport(domain.env_id, files, len(converted), total, failing)


def write_import(prepared: PreparedImport, out_dir: Path) -> ImportResult:
    """Write ``out_dir/<env_id>/`` whole or not at all: the files go to a staging folder beside it,
    renamed into place once complete.

    Raises:
        Tau2ImportError: ``out_dir`` cannot be made or written (a dangling link, a file), or the
            environment's folder there is a symbolic link or a file (never followed nor removed).
    """
    target = out_dir / prepared.env_id
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        what = "a symbolic link" if target.is_symlink() else "not a folder"
        raise Tau2ImportError(f"{target}: it is {what}; it is left alone (remove it, or choose another --out)")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{prepared.env_id}-", dir=out_dir))
    except OSError as exc:  # a dangling symlink, a file on the way, no permission
        raise Tau2ImportError(f"--out {out_dir}: cannot write a catalog there: {exc.strerror or exc}") from None
    try:
        for name, text in prepared.files.items():
            (staging / name).write_text(text, encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise Tau2ImportError(f"{target}: cannot write it: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return ImportResult(
        prepared.env_id, target, prepared.tasks, prepared.gold_actions, prepared.failing_gold_actions, prepared.left_out
    )


def import_domain(data_dir: Path, out_dir: Path, *, progress: Callable[[int, int], None] | None = None) -> ImportResult:
    """Write ``out_dir/<env_id>/`` (spec, seed, policy, tasks) from a tau2 domain folder.

    Raises:
        Tau2ImportError: the folder is not a known tau2 domain, or a file is missing or malformed
            (one line naming the file and the field); nothing is written then.
    """
    return write_import(prepare_domain(data_dir, progress=progress), out_dir)
