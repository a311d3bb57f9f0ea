"""TRL: GRPO with tool calling against a farm, and SFT data from ``envfarm export sft`` (envfarm-client[trl]).

GRPO: TRL's ``GRPOTrainer`` runs multi-turn tool calling itself when given an ``environment_factory``:
one environment object per generation, ``reset(**row)`` before it, and the object's public methods as
the model's tools. ``farm_environment_factory(server, env_id)`` builds such objects for one farm
environment: every method is one of the environment's tools (its signature and docstring derived from
the tool's JSON Schema, which is how TRL and transformers describe tools to a chat template), each
``reset`` opens an episode of the row's ``task_id``, and every call runs in that episode over the
farm's REST API. The reward functions ``farm_reward`` and ``farm_partial_credit`` take the
``environments`` TRL passes them, score each episode on the farm (the final assistant text is the
answer) and close it. ``grpo_dataset`` is the prompt dataset (policy and instruction, ``task_id``).

SFT: ``sft_dataset`` loads an ``envfarm export sft`` file as the conversational dataset ``SFTTrainer``
takes (``messages`` with tool calls, ``tools`` as JSON text, which TRL decodes per row: kept as text so
that Arrow does not merge different tools' schemas into one).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from types import GenericAlias
from typing import Any, Literal

import httpx
from datasets import Dataset

from ..errors import ClientError, TransportError
from ..farm import error_from_response
from ..guard import send
from ..gym import EpisodeNotActive, FarmEnv
from ..models import EnvInfo, ToolInfo
from ..wire import Score
from .episode import load_task_rows

#: Method names TRL's environment protocol gives a meaning of its own (``get_reward``: TRL 1.x's env reward).
_RESERVED = frozenset({"reset", "get_reward"})
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def _annotation(schema: dict[str, Any]) -> tuple[Any, bool]:
    """A Python type hint transformers turns back into (a simpler form of) ``schema``; and whether null is allowed."""
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [s for s in options if s.get("type") != "null"]
        hint, _ = _annotation(kept[0]) if len(kept) == 1 else (Any, False)
        return hint, len(kept) < len(options)
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return Literal[tuple(enum)], False
    kind = schema.get("type")
    if kind == "array":
        item, _ = _annotation(schema.get("items") or {})
        return (GenericAlias(list, (item,)) if item is not Any else list), False
    return _TYPES.get(str(kind), Any), False


def _tool_method(tool: ToolInfo) -> Callable[..., str]:
    """A function ``(self, **arguments) -> str`` calling ``tool`` in the episode, described as TRL needs."""
    properties: dict[str, Any] = tool.input_schema.get("properties") or {}
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    lines = []
    for name, schema in properties.items():
        hint, nullable = _annotation(schema)
        annotations[name] = hint | None if nullable else hint
        default = None if nullable else inspect.Parameter.empty
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        lines.append(f"    {name}: {' '.join(str(schema.get('description') or name).split())}")

    def call(self: FarmToolEnv, **arguments: Any) -> str:
        return self._call(tool.name, arguments)

    call.__name__ = call.__qualname__ = tool.name
    call.__doc__ = (tool.description or tool.name) + ("\n\nArgs:\n" + "\n".join(lines) if lines else "")
    call.__annotations__ = {**annotations, "return": str}
    call.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    return call


class FarmToolEnv:
    """One farm episode per generation, its tools as methods: an ``environment_factory`` product for TRL.

    Build instances with ``farm_environment_factory(server, env_id)``; the tools are the same in every
    instance (the environment's), as TRL requires. A tool returns the text the model reads: the result
    as JSON, or ``Error: ...`` for a refused call. TRL takes every public method for a tool, so the only
    other public method is ``reset``.
    """

    def __init__(self, server: str, *, api_key: str | None = None, max_steps: int = 50):
        self._gym = FarmEnv(server, api_key=api_key, max_steps=max_steps)
        self._score: Score | None = None

    def reset(self, task_id: str, **row: Any) -> None:
        """Close the previous episode and open one of ``task_id`` (TRL passes the dataset row)."""
        self._score = None
        self._gym.reset(task_id)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        try:
            obs, _, _, truncated, info = self._gym.step({"tool": name, "arguments": arguments})
        except EpisodeNotActive:
            return "Error: the episode has ended; no more tool calls can run"
        if truncated:
            self._score = info["score"]
        content = obs["content"]
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        return f"Error: {text}" if obs["is_error"] else text

    def _final_score(self, answer: str) -> Score:
        """Score the episode with ``answer`` and close it, once; later calls return the same score."""
        if self._score is None:
            _, _, _, _, info = self._gym.step({"message": answer})
            self._score = info["score"]
        return self._score

    def _close(self) -> None:
        self._gym.close()


def _environment_class(tools: list[ToolInfo], name: str) -> type[FarmToolEnv]:
    """A subclass of ``FarmToolEnv`` with one method per tool. The methods are the class's own, not set on each
    instance: TRL 0.x lists an instance's bound methods, TRL 1.x the functions of its class.

    Raises:
        ClientError: a tool's name is one TRL reserves (``reset``, ``get_reward``, private names).
    """
    methods: dict[str, Any] = {}
    for tool in tools:
        if tool.name in _RESERVED or tool.name.startswith("_") or hasattr(FarmToolEnv, tool.name):
            raise ClientError(f"tool {tool.name!r} clashes with a method TRL's environment protocol reserves")
        methods[tool.name] = _tool_method(tool)
    return type(name, (FarmToolEnv,), methods)


def farm_environment_factory(
    server: str, env_id: str, *, api_key: str | None = None, max_steps: int = 50
) -> Callable[[], FarmToolEnv]:
    """A zero-argument factory for ``GRPOTrainer(environment_factory=...)``; fetches ``env_id``'s tools once.

    Raises:
        FarmAPIError, TransportError: the environment is unknown or the farm unreachable.
    """
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=60) as http:
            response = send(http, "GET", f"/envs/{env_id}")
    except httpx.TransportError as exc:
        raise TransportError(f"cannot reach the task service at {server}: {exc!r}") from exc
    if response.status_code >= 400:
        raise error_from_response(response)
    tools = EnvInfo.model_validate(response.json()).tool_list
    environment = _environment_class(tools, f"FarmToolEnv[{env_id}]")
    return lambda: environment(server, api_key=api_key, max_steps=max_steps)


def _answer(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    texts = [m.get("content") for m in completion or [] if m.get("role") == "assistant"]
    return "\n".join(t for t in texts if isinstance(t, str) and t.strip())


def farm_reward(completions: list[Any], environments: list[FarmToolEnv], **kwargs: Any) -> list[float]:
    """GRPO reward function: the farm's reward for each generation's episode (scored once, then closed)."""
    return [env._final_score(_answer(c)).reward for c, env in zip(completions, environments, strict=False)]


def farm_partial_credit(completions: list[Any], environments: list[FarmToolEnv], **kwargs: Any) -> list[float]:
    """GRPO reward function: the farm's partial credit for each generation's episode (weight it 0 to log it)."""
    return [env._final_score(_answer(c)).partial_credit for c, env in zip(completions, environments, strict=False)]


def grpo_dataset(server: str, env_id: str, *, tasks: str | None = None, api_key: str | None = None) -> Dataset:
    """The prompts of ``env_id``'s tasks (or the ``tasks`` selector, all in ``env_id``): ``prompt`` (policy as
    system message, instruction as user message) and ``task_id``, which ``FarmToolEnv.reset`` receives.

    Raises:
        ClientError: a selected task belongs to another environment (the tools are one environment's).
    """
    rows = load_task_rows(server, tasks or f"env:{env_id}", api_key=api_key)
    others = sorted({r["task_id"] for r in rows if r["env_id"] != env_id})
    if others:
        raise ClientError(f"tasks of other environments than {env_id}: {', '.join(others[:5])}")
    return Dataset.from_list(
        [
            {
                "prompt": [
                    {"role": "system", "content": r["policy"]},
                    {"role": "user", "content": r["instruction"]},
                ],
                "task_id": r["task_id"],
            }
            for r in rows
        ]
    )


def sft_dataset(path: Path) -> Dataset:
    """An ``envfarm export sft`` file (the default ``openai`` format) as ``SFTTrainer``'s dataset: ``messages``
    and ``tools`` (JSON text per row)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            tools = row.get("tools") or []
            rows.append({"messages": row["messages"], "tools": tools if isinstance(tools, str) else json.dumps(tools)})
    return Dataset.from_list(rows)
