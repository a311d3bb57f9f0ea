"""Exports for training: trajectories as SFT data, and the task list for RL trainers.

``export_sft`` writes OpenAI-messages JSONL, one ``{"messages": [...], "tools": "[...]"}`` object per
trajectory: the conversational tool-calling format TRL's ``SFTTrainer`` and chat templates read,
and LLaMA-Factory's ``openai`` formatting (``fmt="sharegpt"`` writes LLaMA-Factory's sharegpt
layout instead). ``tools`` is the trajectory's tool list as JSON text, which TRL decodes row by row:
loaded as a list, ``datasets`` would merge every tool's parameters into one Arrow schema, so each
tool would show every other tool's parameters (as nulls). ``export_tasks`` writes the tasks without
any gold (id, env, sector, instruction, user profile, difficulty) for trainers that get rewards from
the REST API.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

from .errors import RunDirError
from .evaluate import ENVS_FILE
from .farm import FarmClient
from .records import ResultStore, TrialRecord, read_json
from .selection import resolve_tasks

SftFormat = Literal["openai", "sharegpt"]


def _sharegpt(record: TrialRecord, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """LLaMA-Factory's sharegpt layout: human/gpt/function_call/observation turns, tools as a JSON string."""
    system = ""
    turns: list[dict[str, str]] = []
    observations: list[str] = []

    def flush() -> None:
        if observations:
            value = observations[0] if len(observations) == 1 else json.dumps(observations, ensure_ascii=False)
            turns.append({"from": "observation", "value": value})
            observations.clear()

    for m in record.messages:
        if m["role"] == "tool":
            observations.append(m.get("content") or "")
            continue
        flush()
        if m["role"] == "system":
            system = m.get("content") or ""
        elif m["role"] == "user":
            turns.append({"from": "human", "value": m.get("content") or ""})
        elif m.get("tool_calls"):
            calls = [
                {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"] or "{}")}
                if _is_json_object(c["function"]["arguments"])
                else {"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                for c in m["tool_calls"]
            ]
            value = calls[0] if len(calls) == 1 else calls
            turns.append({"from": "function_call", "value": json.dumps(value, ensure_ascii=False)})
        else:
            turns.append({"from": "gpt", "value": m.get("content") or ""})
    flush()
    while turns and turns[-1]["from"] in ("human", "observation"):
        turns.pop()  # a sample ends with the model's turn
    functions = [t["function"] for t in tools]
    return {"conversations": turns, "system": system, "tools": json.dumps(functions, ensure_ascii=False)}


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text or "{}"), dict)
    except ValueError:
        return False


def export_sft(run_dir: Path, out: Path, *, min_reward: float = 1.0, fmt: SftFormat = "openai") -> int:
    """Write the run's trajectories with reward ≥ ``min_reward`` as SFT JSONL; return how many.

    Only counted trials (no infrastructure error) are exported, the latest record of each.

    Raises:
        RunDirError: ``run_dir`` holds no evaluation run.

    >>> export_sft(Path("runs/gpt"), Path("sft.jsonl"))  # doctest: +SKIP
    17
    """
    store = ResultStore(run_dir)
    if not store.path.exists():
        raise RunDirError(f"{run_dir} holds no evaluation run (no {store.path.name})")
    envs = read_json(run_dir / ENVS_FILE) if (run_dir / ENVS_FILE).exists() else {}
    rows = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for record in store.latest().values():
            if not record.counts or (record.reward or 0.0) < min_reward:
                continue
            tools = envs.get(record.env_id, {}).get("tools", [])
            if fmt == "openai":
                row = {"messages": record.messages, "tools": json.dumps(tools, ensure_ascii=False)}
            else:
                row = _sharegpt(record, tools)
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            rows += 1
    return rows


async def aexport_tasks(farm: FarmClient, selector: str, out: Path) -> int:
    """Write the selected tasks (no gold) as JSONL; return how many."""
    tasks = await resolve_tasks(farm, selector)
    sectors = {e.id: e.sector for e in await farm.list_envs()}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for t in tasks:
            row = {
                "id": t.id,
                "env": t.env,
                "sector": sectors.get(t.env, ""),
                "instruction": t.instruction,
                "user": t.user.model_dump(mode="json"),
                "difficulty": t.difficulty,
                "tags": t.tags,
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(tasks)


def export_tasks(server: str, selector: str, out: Path, *, api_key: str | None = None) -> int:
    """Write the selected tasks of the service at ``server`` as JSONL (no gold); return how many.

    >>> export_tasks("http://127.0.0.1:8765", "env:retail", Path("tasks.jsonl"))  # doctest: +SKIP
    20
    """

    async def go() -> int:
        async with FarmClient(server, api_key=api_key) as farm:
            return await aexport_tasks(farm, selector, out)

    return asyncio.run(go())
