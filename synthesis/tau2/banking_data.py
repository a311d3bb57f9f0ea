"""τ³ banking_knowledge's database as envfarm tables, and back.

tau2 keeps 23 tables of sparse JSON records (each record's keys vary), each ``{"data": {id: record},
"notes": str}``. Here every tau2 table is a table of ``(record_id, record, position)``: the record
is its JSON text as tau2 holds it (key order kept, so results that print a record's fields print
them in tau2's order), and ``position`` is its place in tau2's dict, so a dump lists records in
tau2's order. The tables' notes are rows of ``table_notes``. Tools read and change records with
SQLite's JSON functions.

Three tables hold what tau2 keeps outside its database: ``discoverable_tools`` (the tools the agent
may unlock or hand over, and which it has unlocked, which tau2 keeps in memory: tasks leave
``unlocked`` out of scoring), ``read_log_allowlist`` (the read tools whose calls a task logs, which
tau2 derives from the task's gold actions) and ``documents`` (the knowledge base, indexed for
full-text search). None of them is in tau2's dump.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Protocol

#: tau2's tables, in its model's field order (``TransactionalDB``).
RECORD_TABLES = (
    "users",
    "accounts",
    "debit_cards",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "agent_discoverable_tools",
    "task_config",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "debit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "credit_limit_increase_requests",
    "payment_history",
    "debit_card_disputes",
)
#: Tables only the customer's own tools write: the user's side of the one shared database.
USER_SIDE = frozenset({"user_discoverable_tool_calls", "human_transfer_requests"})


def _record_table(name: str) -> dict[str, Any]:
    table: dict[str, Any] = {
        "name": name,
        "description": f"tau2's '{name}' records, one JSON object each, in tau2's order",
        "primary_key": ["record_id"],
        "columns": [
            {"name": "record_id", "type": "text"},
            {"name": "record", "type": "json", "check": "json_type(record) = 'object'"},
            {"name": "position", "type": "integer"},
        ],
    }
    if name in USER_SIDE:
        table["side"] = "user"
    return table


TABLES: list[dict[str, Any]] = [
    *(_record_table(name) for name in RECORD_TABLES),
    {
        "name": "table_notes",
        "description": "Each tau2 table's notes",
        "primary_key": ["table_name"],
        "columns": [{"name": "table_name", "type": "text"}, {"name": "notes", "type": "text"}],
    },
    {
        "name": "read_log_allowlist",
        "description": "Read-only discoverable tools whose calls are logged to agent_discoverable_tools (per task)",
        "primary_key": ["tool_name"],
        "columns": [{"name": "tool_name", "type": "text"}],
    },
    {
        "name": "discoverable_tools",
        "description": "The tools the agent may unlock ('agent') or hand to the customer ('user'): what unlocking or "
        "handing one over shows, its parameters, whether its calls are logged whatever the task, and whether the "
        "agent has unlocked it in this conversation (scoring leaves that out, as tau2's hash does)",
        "primary_key": ["tool_name"],
        "columns": [
            {"name": "tool_name", "type": "text"},
            {"name": "actor", "type": "text", "enum": ["agent", "user"]},
            {"name": "description", "type": "text"},
            {"name": "info", "type": "text"},
            {"name": "params", "type": "json"},
            {"name": "writes", "type": "boolean"},
            {"name": "unlocked", "type": "boolean", "default": False},
        ],
    },
    {
        "name": "documents",
        "description": "The knowledge base",
        "primary_key": ["doc_id"],
        "full_text": ["title", "content"],
        "columns": [
            {"name": "doc_id", "type": "text"},
            {"name": "title", "type": "text"},
            {"name": "content", "type": "text"},
        ],
    },
]


def record_text(record: Any) -> str:
    """A record as stored: JSON in tau2's key order, compact as SQLite writes it."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def seed(
    db: Mapping[str, Any], documents: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The seed rows of tau2's ``db.json`` (tables it leaves out are empty, as tau2's defaults), the
    knowledge base's documents and the discoverable tools' rows (``banking_tools.catalog_rows``)."""
    rows: dict[str, list[dict[str, Any]]] = {}
    notes = []
    for name in RECORD_TABLES:
        table = db.get(name) or {}
        data = table.get("data") or {}
        rows[name] = [
            {"record_id": str(key), "record": record_text(record), "position": i}
            for i, (key, record) in enumerate(data.items())
        ]
        notes.append({"table_name": name, "notes": str(table.get("notes") or "")})
    rows["table_notes"] = notes
    rows["discoverable_tools"] = list(tools or [])
    rows["documents"] = [{"doc_id": d["id"], "title": d["title"], "content": d["content"]} for d in documents]
    return rows


class _Queryable(Protocol):
    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]: ...


def export_db(episode: _Queryable) -> dict[str, dict[str, Any]]:
    """An episode's state as tau2's ``model_dump()``: ``{table: {"data": {id: record}, "notes": str}}``."""
    notes = {r["table_name"]: r["notes"] for r in episode.query("SELECT table_name, notes FROM table_notes")}
    out: dict[str, dict[str, Any]] = {}
    for name in RECORD_TABLES:
        rows = episode.query(f"SELECT record_id, record FROM {name} ORDER BY position")
        out[name] = {"data": {r["record_id"]: json.loads(r["record"]) for r in rows}, "notes": notes.get(name, "")}
    return out


def db_hash(dump: Mapping[str, Any]) -> str:
    """tau2's DB hash: SHA-256 of ``json.dumps(dump, sort_keys=True, default=str)``."""
    return hashlib.sha256(json.dumps(dump, sort_keys=True, default=str).encode()).hexdigest()


def merge(base: Any, update: Any) -> Any:
    """tau2's ``update_db``: objects merged key by key, recursively (new keys after the old ones);
    anything else replaced."""
    if not isinstance(base, dict) or not isinstance(update, dict):
        return update
    out = dict(base)
    for key, value in update.items():
        out[key] = merge(out[key], value) if key in out and isinstance(out[key], dict) else value
    return out


def initial_patch(pristine: Mapping[str, Any], agent_data: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The ``initial_patch`` that makes the pristine database what tau2's ``update_db(agent_data)`` makes:
    records added (after the table's others, in the update's order) or changed, and notes changed."""
    if not agent_data:
        return []
    merged = merge(dict(pristine), dict(agent_data))
    ops: list[dict[str, Any]] = []
    for name in RECORD_TABLES:
        old, new = pristine[name], merged.get(name) or {}
        old_data, new_data = old["data"], new.get("data") or {}
        position = len(old_data)
        for key, record in new_data.items():
            if key not in old_data:
                row = {"record_id": str(key), "record": record_text(record), "position": position}
                ops.append({"op": "insert", "table": name, "rows": [row]})
                position += 1
            elif record != old_data[key] or record_text(record) != record_text(old_data[key]):
                ops.append(
                    {"op": "update", "table": name, "where": {"record_id": key}, "set": {"record": record_text(record)}}
                )
        if new.get("notes", old["notes"]) != old["notes"]:
            ops.append(
                {"op": "update", "table": "table_notes", "where": {"table_name": name}, "set": {"notes": new["notes"]}}
            )
    return ops
