"""``envfarm bench engine``: episode creation, a write call and a score, beside dict baselines.

The baselines do the same work the way dict-based environments do (tau-bench style): the state is
a dict of lists of row dicts; a new episode deep-copies it, a tool mutates it, and scoring replays
the gold actions on another deep copy and hashes both whole databases. Both sides run in the same
process in the same run, so the ratios are meaningful on a noisy machine even when absolute times
are not.
"""

from __future__ import annotations

import copy
import hashlib
import json
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

from .engine import Environment
from .formats.spec import EnvSpec
from .formats.task import Task
from .grading.scoring import score_episode

_TOOLS: list[dict[str, Any]] = [
    {
        "name": "cancel_order",
        "description": "Cancel a pending order and refund its total to the account balance.",
        "kind": "write",
        "parameters": {
            "type": "object",
            "required": ["order_id"],
            "additionalProperties": False,
            "properties": {"order_id": {"type": "string"}},
        },
        "steps": [
            {
                "kind": "query",
                "bind": "order",
                "sql": "SELECT * FROM orders WHERE order_id = :order_id",
                "message": "Order {order_id} not found",
            },
            {
                "kind": "require",
                "sql": "SELECT :order.status = 'pending'",
                "message": "Order {order_id} is {order.status}; only pending orders can be cancelled",
            },
            {"kind": "exec", "sql": "UPDATE orders SET status = 'cancelled' WHERE order_id = :order_id"},
            {
                "kind": "exec",
                "sql": "UPDATE accounts SET balance = round(balance + :order.total, 2) "
                "WHERE account_id = :order.account_id",
            },
            {"kind": "return", "shape": "one", "sql": "SELECT order_id, status FROM orders WHERE order_id = :order_id"},
        ],
    },
    {
        "name": "get_account",
        "description": "An account by id.",
        "kind": "read",
        "parameters": {
            "type": "object",
            "required": ["account_id"],
            "additionalProperties": False,
            "properties": {"account_id": {"type": "string"}},
        },
        "steps": [{"kind": "return", "shape": "one", "sql": "SELECT * FROM accounts WHERE account_id = :account_id"}],
    },
]


def bench_spec(accounts: int = 2000) -> EnvSpec:
    """A shop whose database is about 1 MB at the default size (3 orders and 6 items per account)."""
    seed: dict[str, list[dict[str, Any]]] = {"accounts": [], "orders": [], "order_items": []}
    for a in range(accounts):
        aid = f"U{a:05d}"
        seed["accounts"].append(
            {"account_id": aid, "email": f"user{a}@example.com", "name": f"User Number {a}", "balance": float(a % 500)}
        )
        for o in range(3):
            oid = f"O{a:05d}{o}"
            seed["orders"].append(
                {
                    "order_id": oid,
                    "account_id": aid,
                    "status": "pending" if o < 2 else "delivered",
                    "total": 19.5 + o,
                    "created_at": f"2026-01-{10 + o:02d} 10:00:00",
                }
            )
            for i in range(2):
                seed["order_items"].append(
                    {"order_id": oid, "item_id": f"I{i}", "sku": f"SKU-{(a + i) % 97:04d}", "price": 9.75 + i}
                )
    return EnvSpec.model_validate(
        {
            "id": "bench_shop",
            "name": "Benchmark shop",
            "sector": "retail",
            "description": "Benchmark data.",
            "tables": [
                {
                    "name": "accounts",
                    "primary_key": ["account_id"],
                    "columns": [
                        {"name": "account_id", "type": "text"},
                        {"name": "email", "type": "text", "unique": True},
                        {"name": "name", "type": "text"},
                        {"name": "balance", "type": "real"},
                    ],
                },
                {
                    "name": "orders",
                    "primary_key": ["order_id"],
                    "columns": [
                        {"name": "order_id", "type": "text"},
                        {"name": "account_id", "type": "text"},
                        {"name": "status", "type": "text", "enum": ["pending", "cancelled", "delivered"]},
                        {"name": "total", "type": "real"},
                        {"name": "created_at", "type": "datetime"},
                    ],
                    "foreign_keys": [{"columns": ["account_id"], "table": "accounts", "references": ["account_id"]}],
                },
                {
                    "name": "order_items",
                    "primary_key": ["order_id", "item_id"],
                    "columns": [
                        {"name": "order_id", "type": "text"},
                        {"name": "item_id", "type": "text"},
                        {"name": "sku", "type": "text"},
                        {"name": "price", "type": "real"},
                    ],
                    "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
                },
            ],
            "seed": seed,
            "tools": _TOOLS,
        }
    )


def _dict_cancel(db: dict[str, list[dict[str, Any]]], index: dict[str, dict[str, Any]], order_id: str) -> str:
    """The baseline's version of ``cancel_order``, on plain dicts."""
    order = index.get(order_id)
    if order is None:
        raise ValueError(f"Order {order_id} not found")
    if order["status"] != "pending":
        raise ValueError(f"Order {order_id} is {order['status']}")
    order["status"] = "cancelled"
    for acct in db["accounts"]:
        if acct["account_id"] == order["account_id"]:
            acct["balance"] = round(acct["balance"] + order["total"], 2)
            break
    return json.dumps({"order_id": order_id, "status": "cancelled"})


def _dict_hash(db: dict[str, list[dict[str, Any]]]) -> str:
    return hashlib.sha256(json.dumps(db, sort_keys=True).encode()).hexdigest()


def timeit(fn: Callable[[], Any], repeat: int) -> dict[str, float]:
    """Median and p95 of ``repeat`` timed runs of ``fn`` (after one warm-up run), in ms."""
    fn()  # warm-up: caches, allocator
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    samples.sort()
    return {
        "median_ms": statistics.median(samples) * 1e3,
        "p95_ms": samples[min(len(samples) - 1, int(len(samples) * 0.95))] * 1e3,
        "runs": repeat,
    }


def bench_engine(*, repeat: int = 200, accounts: int = 2000) -> dict[str, Any]:
    """Measure the engine against dict baselines; return a JSON-serializable report."""
    spec = bench_spec(accounts)
    env = Environment(spec)
    seed = spec.seed
    task = Task.model_validate(
        {
            "id": "bench-1",
            "env": spec.id,
            "instruction": "Cancel two orders.",
            "gold_actions": [
                {"tool": "get_account", "arguments": {"account_id": "U00001"}},
                {"tool": "cancel_order", "arguments": {"order_id": "O000010"}},
                {"tool": "cancel_order", "arguments": {"order_id": "O000011"}},
            ],
        }
    )

    creation = timeit(lambda: env.episode().close(), repeat)
    creation_base = timeit(lambda: copy.deepcopy(seed), max(5, repeat // 20))

    ep = env.episode()
    pending = iter([o["order_id"] for o in seed["orders"] if o["status"] == "pending"])
    call = timeit(lambda: ep.call_tool("cancel_order", {"order_id": next(pending)}), repeat)
    db = copy.deepcopy(seed)
    index = {o["order_id"]: o for o in db["orders"]}
    base_pending = iter([o["order_id"] for o in seed["orders"] if o["status"] == "pending"])
    call_base = timeit(lambda: _dict_cancel(db, index, next(base_pending)), repeat)

    agent = env.episode(task)
    agent.replay(task.gold_actions)
    cold_start = time.perf_counter()
    score_episode(env, task, agent)
    score_cold_ms = (time.perf_counter() - cold_start) * 1e3
    score = timeit(lambda: score_episode(env, task, agent), repeat)

    def dict_score() -> bool:
        expected = copy.deepcopy(seed)
        idx = {o["order_id"]: o for o in expected["orders"]}
        for a in task.gold_actions[1:]:
            _dict_cancel(expected, idx, a.arguments["order_id"])
        return _dict_hash(expected) == _dict_hash(db)

    score_base = timeit(dict_score, max(5, repeat // 20))

    def entry(ours: dict[str, float], base: dict[str, float], target_ms: float | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "envfarm": ours,
            "dict_baseline": base,
            "speedup_vs_baseline": base["median_ms"] / ours["median_ms"],
        }
        if target_ms is not None:
            out["target_ms"] = target_ms
            out["meets_target"] = ours["median_ms"] <= target_ms
        return out

    result = {
        "benchmark": "engine",
        "python": platform.python_version(),
        "sqlite": __import__("sqlite3").sqlite_version,
        "database_bytes": len(env.image),
        "rows": {k: len(v) for k, v in seed.items()},
        "episode_creation": entry(creation, creation_base, 1.0),
        "write_tool_call": entry(call, call_base, None),
        "score": {**entry(score, score_base, 5.0), "cold_ms_including_gold_replay": score_cold_ms},
    }
    result["episode_creation"]["meets_speedup_target_50x"] = result["episode_creation"]["speedup_vs_baseline"] >= 50
    return result
