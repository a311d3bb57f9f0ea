"""What the tau2 domains share: the domain description, SQL helpers for tau2's JSON documents, task
conversion, and the export of an episode's state back to tau2's ``db.json`` shape."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

# -- SQL fragments ------------------------------------------------------------------------------------


def money_json(column: str) -> str:
    """A REAL as exact JSON: SQLite's JSON keeps only 15 significant digits."""
    return f"json(float_text({column}))"


def boolean_json(column: str) -> str:
    return f"json(CASE WHEN {column} THEN 'true' ELSE 'false' END)"


def ordered(table: str, where: str, alias: str) -> str:
    """Rows of ``table`` in tau2's list order, for ``json_group_array`` / ``json_group_object``."""
    return f"(SELECT * FROM {table} AS {alias} WHERE {where} ORDER BY {alias}.position) AS {alias}"


def string_param(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def tool(
    name: str, description: str, kind: str, properties: dict[str, Any], steps: list[dict[str, Any]]
) -> dict[str, Any]:
    """A tool whose parameters are all required, as every tau2 tool's are."""
    return {
        "name": name,
        "description": description,
        "kind": kind,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        },
        "steps": steps,
    }


def document_tool(
    name: str,
    description: str,
    key: str,
    key_schema: dict[str, Any],
    source: str,
    key_column: str,
    document: str,
    missing: str,
    *,
    order: str = "1",
) -> dict[str, Any]:
    return tool(
        name,
        description,
        "read",
        {key: key_schema},
        [
            {
                "kind": "require",
                "message": missing,
                "sql": f"SELECT EXISTS (SELECT 1 FROM {source} WHERE {key_column} = :{key})",
            },
            {
                "kind": "return",
                "shape": "value",
                "json_columns": ["document"],
                "sql": f"SELECT {document} AS document FROM {source} WHERE {key_column} = :{key} "
                f"ORDER BY {order} LIMIT 1",
            },
        ],
    )


# -- the domain -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tau2Domain:
    """One tau2 domain: the spec's fixed parts, and the mappings from and to tau2's ``db.json``.

    ``documents`` maps each tau2 table to (FROM clause, key expression, document SQL, ORDER BY), the
    SQL that rebuilds tau2's records from the rows.
    """

    env_id: str
    name: str
    sector: str
    description: str
    clock: str
    tables: list[dict[str, Any]]
    tools: Callable[[], list[dict[str, Any]]]
    seed: Callable[[dict[str, Any]], dict[str, list[dict[str, Any]]]]
    documents: Mapping[str, tuple[str, str, str, str]]
    #: JSON Schema of the fields of ``db.json`` that ``seed`` reads (synthesis.tau2.inputs)
    db_schema: Mapping[str, Any]

    def spec(self) -> dict[str, Any]:
        """The spec as ``spec.json`` holds it (no seed, no policy)."""
        return {
            "format_version": 1,
            "id": self.env_id,
            "name": self.name,
            "sector": self.sector,
            "description": self.description,
            "clock": self.clock,
            "tables": self.tables,
            "invariants": [],
            "tools": self.tools(),
        }


class _Queryable(Protocol):
    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]: ...


def export_db(episode: _Queryable, domain: Tau2Domain) -> dict[str, dict[str, Any]]:
    """An episode's state in tau2's ``db.json`` shape: ``{table: {key: record}}``, every optional
    field present (``null`` when unset), as tau2's ``model_dump()`` gives it."""
    out: dict[str, dict[str, Any]] = {}
    for table, (source, key, document, order) in domain.documents.items():
        rows = episode.query(f"SELECT {key} AS key, {document} AS document FROM {source} ORDER BY {order}")
        out[table] = {row["key"]: json.loads(row["document"]) for row in rows}
    return out


def db_diff(before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per table, the records added, changed (the new record) and removed (keys), as tau2's reference
    diffs give them."""
    diff: dict[str, Any] = {}
    for table in after.keys() | before.keys():
        old, new = before.get(table, {}), after.get(table, {})
        diff[table] = {
            "added": {k: v for k, v in new.items() if k not in old},
            "changed": {k: v for k, v in new.items() if k in old and old[k] != v},
            "removed": sorted(k for k in old if k not in new),
        }
    return diff


# -- tasks ------------------------------------------------------------------------------------------

_REWARD_BASIS = {"DB": "state", "COMMUNICATE": "outputs"}
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_.:-]+")


def task_id(env_id: str, tau2_id: str) -> str:
    return f"{env_id}-{_UNSAFE_ID.sub('_', str(tau2_id)).strip('_') or 'task'}"


def convert_task(
    env_id: str, task: dict[str, Any], *, gold: list[dict[str, Any]], expects_change: bool, split: list[str]
) -> dict[str, Any]:
    """One tau2 task as an envfarm task. ``gold`` is its gold actions that succeed (the rest change
    nothing), ``split`` the tau2 splits (train, test, ...) that list it."""
    scenario = task.get("user_scenario") or {}
    instructions = scenario.get("instructions") or {}
    if isinstance(instructions, str):
        instructions = {"task_instructions": instructions}
    criteria = task.get("evaluation_criteria") or {}
    reason = (instructions.get("reason_for_call") or "").strip()
    how = (instructions.get("task_instructions") or "").strip()
    persona = [p for p in (scenario.get("persona"), how, instructions.get("unknown_info")) if p]
    known = [line.strip() for line in (instructions.get("known_info") or "").splitlines() if line.strip()]
    basis = sorted({_REWARD_BASIS[b] for b in criteria.get("reward_basis") or ["DB"] if b in _REWARD_BASIS})
    writes = sum(1 for action in gold if action.get("writes"))
    difficulty = "easy" if writes <= 1 and len(gold) <= 4 else "hard" if writes >= 3 or len(gold) >= 10 else "medium"
    return {
        "id": task_id(env_id, task["id"]),
        "env": env_id,
        "instruction": reason or how or "Help me with my account.",
        "user": {"persona": "\n\n".join(p.strip() for p in persona), "known_facts": known, "reveal_if_asked": []},
        "gold_actions": [{"tool": a["name"], "arguments": a["arguments"]} for a in gold],
        "outputs": [str(info) for info in criteria.get("communicate_info") or []],
        "difficulty": difficulty,
        "expects_change": expects_change,
        "reward_basis": basis or ["state"],
        "tags": ["tau2", f"tau2-id:{task['id']}", *(f"split:{s}" for s in split)],
    }
