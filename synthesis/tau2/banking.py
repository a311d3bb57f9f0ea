"""τ³ banking_knowledge (tau2-bench's newest text domain) as an envfarm environment: a bank's records in
one database both the agent and the customer act on, a knowledge base of documents the agent must
look things up in, tools the agent unlocks from what the documents name, and tools it hands to the
customer (docs/tau2.md, "banking_knowledge").

The folder holds ``db.json``, ``documents/*.json`` (id, title, content), ``tasks/task_*.json`` (what
tau2's loader reads, in file-name order; ``tasks.json`` when there is no ``tasks/``) and
``prompts/`` (the agent prompt's parts). Each task's ``initial_state.initialization_data.agent_data``
is merged as tau2's ``update_db`` merges it and becomes the task's ``initial_patch``, with the read
tools whose calls the task logs (tau2 derives them from the gold actions).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from envs import paths
from envs.engine import Environment
from envs.errors import EnvFarmError
from envs.formats.spec import EnvSpec
from envs.formats.task import Task

from . import banking_retrieval
from .banking_data import TABLES, export_db, initial_patch, seed
from .banking_discoverable import AGENT_DISCOVERABLE, USER_DISCOVERABLE
from .banking_texts import find_source, tool_texts
from .banking_tools import base_tools, catalog_rows, discoverable_specs, user_tools
from .common import Tau2Domain, convert_task, task_id
from .gold import replay_gold
from .inputs import Tau2ImportError, read_json, read_text

ENV_ID = "tau2_banking_knowledge"
CLOCK = "2025-11-14T03:40:00"  # tau2's fixed time for the domain (EST)

_REWARD_BASIS = {"DB": "state", "COMMUNICATE": "outputs"}
#: Which tools the agent unlocked: state the tools read, which scoring leaves out (tau2 does not hash it)
UNLOCKED = "discoverable_tools.unlocked"

USER_GUIDE = """You are a customer of Rho-Bank talking to its support agent. You have tools of your own:
apply for a credit card, refer someone, record a card purchase, ask for a human agent, and run a tool
the agent hands you (call_discoverable_user_tool with the name and arguments the agent gave;
list_discoverable_user_tools shows what you were given). Use them when the agent asks you to act, and
report what they return."""


def _tools() -> list[dict[str, Any]]:
    return list(spec("")["tools"])


DOMAIN = Tau2Domain(
    env_id=ENV_ID,
    name="tau2-bench banking_knowledge",
    sector="banking",
    description="τ³'s banking customer service with a knowledge base (see synthesis.tau2.banking)",
    clock=CLOCK,
    tables=TABLES,
    tools=_tools,
    seed=lambda db: seed(db, []),
    documents={},  # the export is banking_data.export_db: tau2's tables are {"data", "notes"}
    db_schema={},
)


def is_banking(folder: Path) -> bool:
    """A banking_knowledge folder: named so, or holding ``documents/`` beside ``db.json``."""
    return (folder / "db.json").is_file() and (folder.name == "banking_knowledge" or (folder / "documents").is_dir())


def spec(policy: str, knowledge_policies: dict[str, str] | None = None) -> dict[str, Any]:
    """The served spec (with its policy; ``spec.json`` leaves the policy out): ``policy`` is the prompt
    of tau2's ``bm25`` variant (the documents searched with ``KB_search`` and ``grep``), and
    ``knowledge_policies`` those of its ``full_kb``, ``golden_retrieval`` and ``no_knowledge`` variants."""
    tools = [
        *base_tools(AGENT_DISCOVERABLE, USER_DISCOVERABLE),
        *banking_retrieval.tools(),
        *discoverable_specs(AGENT_DISCOVERABLE, "agent"),
        *user_tools(USER_DISCOVERABLE),
        *discoverable_specs(USER_DISCOVERABLE, "user"),
    ]
    return {
        "format_version": 1,
        "id": ENV_ID,
        "name": "tau2-bench banking_knowledge",
        "sector": "banking",
        "description": "τ³'s banking customer service: accounts, cards, disputes and referrals, with the bank's "
        "rules and procedures in a knowledge base the agent searches, internal tools it unlocks from what the "
        "documents name, and a customer who acts with tools of their own.",
        "clock": CLOCK,
        "tables": [*TABLES, *banking_retrieval.TABLES],
        "invariants": [],
        "tools": tools,
        "user_guide": USER_GUIDE,
        "policy": policy,
        "knowledge_policies": knowledge_policies or {},
    }


#: tau2's prompt template of each knowledge mode (docs/serving.md), and what it calls the documents.
PROMPTS = {
    "search": ("classic_rag_bm25.md", None),
    "full": ("full_kb.md", "{{full_knowledge_base}}"),
    "required": ("required_docs.md", "{{required_documents}}"),
    "none": ("no_knowledge.md", None),
    # tau2's embedding variants name their model (OpenAI's, or Qwen's through OpenRouter); the model here is
    # the farm's choice, so the template that names none
    "embeddings": ("classic_rag.md", None),
}


def policy_texts(data_dir: Path) -> tuple[str, dict[str, str]]:
    """The agent's policy (tau2's ``bm25`` variant: its ``classic_rag_bm25`` template, components filled
    in) and the policies of the other knowledge modes (its ``full_kb``, ``required_docs``, ``no_knowledge``
    and ``classic_rag`` templates), with ``{{documents}}`` where tau2 puts the documents."""
    prompts = data_dir / "prompts"
    texts = {}
    for mode, (name, documents) in PROMPTS.items():
        text = re.sub(
            r"\{\{component:(\w+)\}\}",
            lambda m: read_text(prompts / "components" / f"{m.group(1)}.md"),
            read_text(prompts / name),
        )
        texts[mode] = text.replace(documents, "{{documents}}") if documents else text
    search = texts.pop("search")
    return search, texts


def read_documents(data_dir: Path) -> list[dict[str, Any]]:
    """The knowledge base's documents, in file-name order."""
    folder = data_dir / "documents"
    if not folder.is_dir():
        raise Tau2ImportError(f"{folder}: the knowledge base's folder is missing")
    out = []
    for path in sorted(folder.glob("*.json")):
        doc = read_json(path)
        if not isinstance(doc, dict) or not all(isinstance(doc.get(k), str) for k in ("id", "title", "content")):
            raise Tau2ImportError(f"{path}: a document needs the texts id, title and content")
        out.append(doc)
    return out


def read_tasks(data_dir: Path) -> tuple[Path, list[dict[str, Any]]]:
    """tau2's tasks as its loader reads them: ``tasks/task_*.json`` in file-name order, else ``tasks.json``."""
    folder = data_dir / "tasks"
    files = sorted(folder.glob("task_*.json")) if folder.is_dir() else []
    if files:
        tasks = [read_json(path) for path in files]
        for path, task in zip(files, tasks, strict=True):
            if not isinstance(task, dict) or "id" not in task:
                raise Tau2ImportError(f"{path}: a task must be an object with an id")
        return folder, tasks
    path = data_dir / "tasks.json"
    tasks = read_json(path)
    if not isinstance(tasks, list) or not all(isinstance(t, dict) and "id" in t for t in tasks):
        raise Tau2ImportError(f"{path}: expected a list of tasks with ids")
    return path, tasks


def read_log_allowlist(task: dict[str, Any]) -> list[str]:
    """The discoverable tools the task's gold actions call: tau2 logs their read calls "
    "(``_derive_read_log_allowlist``)."""
    names: list[str] = []
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        if action.get("name") == "call_discoverable_agent_tool":
            name = (action.get("arguments") or {}).get("agent_tool_name")
            if name and name not in names:
                names.append(str(name))
    return names


def uses(task: dict[str, Any]) -> set[str]:
    """Every tool the task's gold actions reach, discoverable ones by their own names."""
    found = set()
    for action in (task.get("evaluation_criteria") or {}).get("actions") or []:
        args = action.get("arguments") or {}
        found.add(str(action.get("name")))
        if action.get("name") in ("call_discoverable_agent_tool", "unlock_discoverable_agent_tool"):
            found.add(str(args.get("agent_tool_name")))
        if action.get("name") in ("call_discoverable_user_tool", "give_discoverable_user_tool"):
            found.add(str(args.get("discoverable_tool_name")))
    return found


def implemented() -> set[str]:
    """The tools this port has: tau2's base tools, and the discoverable ones written so far."""
    names = {t["name"] for t in spec("")["tools"]}
    return names


def task_patch(pristine: dict[str, Any], task: dict[str, Any]) -> list[dict[str, Any]]:
    """A task's ``initial_patch``: its ``agent_data`` merged as tau2 does, and its read-log allowlist."""
    data = ((task.get("initial_state") or {}).get("initialization_data") or {}).get("agent_data")
    patch = initial_patch(pristine, data)
    allow = read_log_allowlist(task)
    if allow:
        patch.append({"op": "insert", "table": "read_log_allowlist", "rows": [{"tool_name": n} for n in allow]})
    return patch


def prepare(
    data_dir: Path, progress: Callable[[int, int], None] | None = None
) -> tuple[dict[str, str], int, int, list[str]]:
    """Read, check and convert the folder: the catalog files, the number of tasks and of gold actions, and
    the tasks left out (their gold actions use a discoverable tool this port does not have yet).

    Raises:
        Tau2ImportError: a file is missing or malformed, or a gold action fails.
    """
    db_path = data_dir / "db.json"
    db = read_json(db_path)
    if not isinstance(db, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("data", {}), dict) for v in db.values()
    ):
        raise Tau2ImportError(f'{db_path}: expected tables of the form {{"data": {{id: record}}, "notes": text}}')
    documents = read_documents(data_dir)
    source_file = find_source(data_dir)  # tau2's tools.py: its own tool descriptions, when there
    texts = tool_texts(source_file) if source_file else {}
    policy, policies = policy_texts(data_dir)
    source, tasks = read_tasks(data_dir)
    env_spec = spec(policy, policies)
    rows = {
        **seed(db, documents, catalog_rows(AGENT_DISCOVERABLE, USER_DISCOVERABLE, texts)),
        **banking_retrieval.index_rows(documents),
    }
    try:
        env = Environment(EnvSpec.model_validate({**env_spec, "seed": rows}))
    except (ValidationError, EnvFarmError) as exc:
        raise Tau2ImportError(f"{db_path}: {exc}") from None
    have = implemented()
    doc_ids = {d["id"] for d in documents}
    pristine_episode = env.episode()
    pristine = export_db(pristine_episode)
    pristine_episode.close()
    converted, left_out, total = [], [], 0
    for done, task in enumerate(tasks):
        where = f"{source}: {task['id']}"
        missing = sorted(uses(task) - have)
        if missing:
            left_out.append(f"{task['id']}: {', '.join(missing)}")
            continue
        try:
            patch = task_patch(pristine, task)
        except (KeyError, TypeError, AttributeError) as exc:
            raise Tau2ImportError(f"{where}.initial_state: cannot be merged ({exc})") from None
        criteria = task.get("evaluation_criteria") or {}
        record = {"id": task_id(ENV_ID, task["id"]), "env": ENV_ID, "instruction": "x", "initial_patch": patch}
        episode = env.episode(Task.model_validate(record))
        actions = criteria.get("actions") or []
        total += len(actions)
        gold, changed = replay_gold(episode, actions, where)
        episode.close()
        out = convert_task(ENV_ID, task, gold=[], expects_change=changed, split=[])
        basis = sorted({_REWARD_BASIS[b] for b in criteria.get("reward_basis") or [] if b in _REWARD_BASIS})
        required = [d for d in task.get("required_documents") or [] if d in doc_ids]
        out.update(
            gold_actions=gold,
            initial_patch=patch,
            reward_basis=basis or ["state"],
            required_documents=required,
            ignore=[UNLOCKED],  # tau2 keeps unlocks outside the database it compares
        )
        try:
            converted.append(Task.model_validate(out).model_dump(mode="json", exclude_defaults=True))
        except ValidationError as exc:
            raise Tau2ImportError(f"{where}: does not convert: {exc.errors()[0]['msg']}") from None
        if progress:
            progress(done + 1, len(tasks))
    served = {k: v for k, v in env_spec.items() if k != "policy"}
    files = {
        paths.SPEC_FILE: json.dumps(served, indent=1, ensure_ascii=False) + "\n",
        paths.SEED_FILE: json.dumps(rows, indent=1, ensure_ascii=False) + "\n",
        paths.POLICY_FILE: policy,
        paths.TASKS_FILE: json.dumps(converted, indent=1, ensure_ascii=False) + "\n",
    }
    return files, len(converted), total, left_out
