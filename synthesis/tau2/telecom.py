"""tau2-bench's telecom domain as an envfarm environment with two actors: the carrier's agent (customers,
lines, plans, bills) and the customer, who holds a phone whose state is theirs (docs/tau2.md).

The folder holds ``db.toml`` (the carrier's database), ``user_db.toml`` (the phone), ``main_policy.md``
and ``tech_support_manual.md`` (the agent's policy, joined as tau2 joins them) and the tasks
(``tasks_small.json``, else ``tasks.json``). Each task's set-up functions are run here, on a set-up
environment (``telecom_setup``), and the state they reach becomes the task's ``initial_patch``.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from envs import paths
from envs.engine import Environment
from envs.errors import EnvFarmError, ToolError
from envs.formats.spec import EnvSpec, TableSpec
from envs.formats.task import Task

from .common import Tau2Domain, convert_task, task_id
from .gold import ACTORS, replay_gold
from .inputs import SPLITS, TASKS, Tau2ImportError, check_values, read_json, read_text
from .telecom_data import AGENT_DOCUMENTS, AGENT_TABLES, agent_seed
from .telecom_phone import USER_TABLES, user_seed
from .telecom_setup import assertion, setup_tools
from .telecom_tools import tools as agent_tools
from .telecom_user_tools import tools as user_tools

ENV_ID = "tau2_telecom"
CLOCK = "2025-02-25T12:08:00"  # tau2's telecom "now"
TASK_FILES = ("tasks_small.json", "tasks.json")
_REWARD_BASIS = {"DB": "state", "COMMUNICATE": "outputs", "ENV_ASSERTION": "assertions"}


USER_GUIDE = """You are a mobile phone customer talking to your carrier's support agent. You hold your phone:
your tools read what it shows (the status bar, network status, SIM, mobile data, roaming, Wi-Fi,
Wi-Fi Calling, VPN, APN settings, apps and their permissions, a speed test, whether MMS can be sent,
a payment request from the agent) and change its settings (toggle airplane mode, mobile data, roaming,
data saver, Wi-Fi, Wi-Fi Calling; set the network mode; reseat the SIM; reset the APN settings; grant
an app a permission; connect or disconnect the VPN; reboot; pay a bill the agent asked you to pay).
The agent cannot see your phone: when they ask what it shows or ask you to change something, use your
tools and report what they return, never what you expect."""


def _tools() -> list[dict[str, Any]]:
    return [*agent_tools(), *user_tools()]


DOMAIN = Tau2Domain(
    env_id=ENV_ID,
    name="tau2-bench telecom",
    sector="telecom",
    description="tau2-bench's telecom technical support with two actors: the carrier's agent sees customers, "
    "lines, plans and bills; the customer holds the phone and changes its settings when asked (mobile data, "
    "roaming, MMS and service issues, overdue bills).",
    clock=CLOCK,
    tables=[*AGENT_TABLES, *USER_TABLES],
    tools=_tools,
    seed=agent_seed,  # the carrier's rows; ``prepare`` adds the phone's (``user_seed``) and the set-up
    documents=AGENT_DOCUMENTS,
    db_schema={},
)


def spec(policy: str) -> dict[str, Any]:
    """The served spec as ``spec.json`` holds it: the domain's spec and the user guide."""
    return {**DOMAIN.spec(), "user_guide": USER_GUIDE, "policy": policy}


def read_toml(path: Path) -> dict[str, Any]:
    text = read_text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Tau2ImportError(f"{path}: invalid TOML ({exc})") from None
    check_values(json.loads(json.dumps(data, default=str)), path)
    return data


def policy_text(data_dir: Path) -> str:
    """tau2's telecom policy: the main policy and the technical-support manual, joined as tau2 joins them."""
    main = read_text(data_dir / "main_policy.md")
    manual = read_text(data_dir / "tech_support_manual.md")
    return f"<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{manual}\n</tech_support_policy>"


def tasks_file(data_dir: Path) -> Path:
    for name in TASK_FILES:
        if (data_dir / name).is_file():
            return data_dir / name
    raise Tau2ImportError(f"{data_dir}: neither {' nor '.join(TASK_FILES)} is there")


#: tau2's set-up functions that are no tool of either participant (the set-up environment's agent calls them)
SETUP_FUNCTIONS = frozenset(t["name"] for t in setup_tools())


def setup_environment(env_spec: dict[str, Any]) -> Environment:
    """The served spec plus tau2's set-up functions (tools no participant sees)."""
    return Environment(EnvSpec.model_validate({**env_spec, "tools": [*env_spec["tools"], *setup_tools()]}))


def run_setup(setup: Environment, actions: list[dict[str, Any]], where: str) -> Any:
    """An episode of ``setup`` after tau2's ``initialization_actions``, each as tau2 calls it."""
    episode = setup.episode()
    for i, action in enumerate(actions):
        name, args = action.get("func_name"), action.get("arguments") or {}
        actor = "agent" if name in SETUP_FUNCTIONS else ACTORS.get(str(action.get("env_type")), "agent")
        try:
            episode.call_tool(str(name), args, actor=actor)
        except ToolError as exc:
            episode.close()
            raise Tau2ImportError(f"{where}.initialization_actions[{i}]: {name}: {exc}") from None
    return episode


def _keyed(episode: Any, table: TableSpec) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {tuple(row[k] for k in table.primary_key): row for row in episode.dump(table.name)}


def _patch_value(table: TableSpec, column: str, raw: Any) -> Any:
    """A stored value as a patch gives it: JSON decoded, booleans as booleans."""
    kind = next(c.type for c in table.columns if c.name == column)
    if raw is None:
        return None
    return json.loads(raw) if kind == "json" else bool(raw) if kind == "boolean" else raw


def state_patch(env: Environment, before: Any, after: Any) -> list[dict[str, Any]]:
    """The ``initial_patch`` that turns ``before``'s state into ``after``'s: rows inserted, updated
    (the changed columns, by primary key) and deleted."""
    ops: list[dict[str, Any]] = []
    for table in env.spec.tables:
        old, new = _keyed(before, table), _keyed(after, table)
        for key, row in new.items():
            where = dict(zip(table.primary_key, key, strict=True))
            if key not in old:
                rows = [{c: _patch_value(table, c, v) for c, v in row.items()}]
                ops.append({"op": "insert", "table": table.name, "rows": rows})
                continue
            changed = {c: _patch_value(table, c, v) for c, v in row.items() if old[key][c] != v}
            if changed:
                ops.append({"op": "update", "table": table.name, "where": where, "set": changed})
        for key in old.keys() - new.keys():
            ops.append({"op": "delete", "table": table.name, "where": dict(zip(table.primary_key, key, strict=True))})
    return ops


def prepare(data_dir: Path, progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, str], int, int]:
    """Read, check and convert tau2's telecom folder: the catalog files, the number of tasks and of gold
    actions. Every task's set-up and gold actions are run; any that fails refuses the import.

    Raises:
        Tau2ImportError: a file is missing or malformed, or a set-up or gold action fails.
    """
    db_path = data_dir / "db.toml"
    db, user_db = read_toml(db_path), read_toml(data_dir / "user_db.toml")
    policy = policy_text(data_dir)
    path = tasks_file(data_dir)
    tasks = read_json(path, TASKS)
    splits: dict[str, list[str]] = {}
    if (data_dir / "split_tasks.json").is_file():
        for split, ids in read_json(data_dir / "split_tasks.json", SPLITS).items():
            for tau2_id in ids:
                splits.setdefault(str(tau2_id), []).append(split)
    env_spec = spec(policy)
    try:
        seed = {**agent_seed(db), **user_seed(user_db)}
    except (KeyError, TypeError, ValueError) as exc:
        raise Tau2ImportError(f"{db_path}: a record lacks or mistypes a field ({exc})") from None
    try:
        env = Environment(EnvSpec.model_validate({**env_spec, "seed": seed}))
        setup = setup_environment({**env_spec, "seed": seed})
    except (ValidationError, EnvFarmError) as exc:
        raise Tau2ImportError(f"{db_path}: {exc}") from None
    pristine = env.episode()
    converted, total = [], 0
    for done, task in enumerate(tasks):
        where = f"{path}: [{done}]"
        initial = (task.get("initial_state") or {}).get("initialization_actions") or []
        if (task.get("initial_state") or {}).get("initialization_data"):
            raise Tau2ImportError(f"{where}.initial_state.initialization_data: not supported for telecom")
        ready = run_setup(setup, initial, f"{where}.initial_state")
        patch = state_patch(env, pristine, ready)
        ready.close()
        criteria = task.get("evaluation_criteria") or {}
        checks = []
        for i, check in enumerate(criteria.get("env_assertions") or []):
            made = assertion(check)
            if made is None:
                raise Tau2ImportError(
                    f"{where}.evaluation_criteria.env_assertions[{i}]: {check.get('func_name')!r} unknown"
                )
            checks.append(made)
        actions = criteria.get("actions") or []
        record = {"id": task_id(ENV_ID, task["id"]), "env": ENV_ID, "instruction": "x", "initial_patch": patch}
        episode = env.episode(Task.model_validate(record))
        total += len(actions)
        gold, changed = replay_gold(episode, actions, where)
        episode.close()
        out = convert_task(ENV_ID, task, gold=[], expects_change=changed, split=splits.get(str(task["id"]), []))
        basis = sorted({_REWARD_BASIS[b] for b in criteria.get("reward_basis") or [] if b in _REWARD_BASIS})
        out.update(gold_actions=gold, initial_patch=patch, assertions=checks, reward_basis=basis or ["assertions"])
        try:
            converted.append(Task.model_validate(out).model_dump(mode="json", exclude_defaults=True))
        except ValidationError as exc:
            raise Tau2ImportError(f"{where}: task {task['id']!r} does not convert: {exc.errors()[0]['msg']}") from None
        if progress:
            progress(done + 1, len(tasks))
    pristine.close()
    served = {k: v for k, v in env_spec.items() if k != "policy"}
    files = {
        paths.SPEC_FILE: json.dumps(served, indent=1, ensure_ascii=False) + "\n",
        paths.SEED_FILE: json.dumps(seed, indent=1, ensure_ascii=False) + "\n",
        paths.POLICY_FILE: policy,
        paths.TASKS_FILE: json.dumps(converted, indent=1, ensure_ascii=False) + "\n",
    }
    return files, len(converted), total
