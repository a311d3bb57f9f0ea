"""``envfarm bench rollouts``: RL-style rollouts through the verifiers adapter against one farm.

N rollouts, ``concurrency`` at a time, of an oracle policy (a verifiers ``Client`` that answers each
turn with the task's next gold action, then with its required outputs, in no time) through
``EnvfarmEnv`` exactly as a trainer runs them: every rollout opens an episode, lists its tools, calls
them turn by turn, is scored and closed. With no model to wait for, what is measured is the farm and
the adapter: rollouts/s, and the share of rollout time spent waiting on the farm (the rest is
verifiers' own loop, the adapter and the client side of HTTP and MCP on the same CPUs).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

import verifiers as vf
from verifiers.clients import Client
from verifiers.types import Response, ResponseMessage, ToolCall

from ..farm import FarmClient
from ..models import TaskView
from .episode import Transport, oracle_turn
from .verifiers_env import FARM_SECONDS_KEY, EnvfarmEnv


class OracleClient(Client):
    """A verifiers model client that plays the oracle: the next gold action each turn, then the outputs.

    Args:
        tasks: the admin view of every task it may meet (gold actions and outputs), by id.
    """

    def __init__(self, tasks: dict[str, TaskView]) -> None:
        super().__init__(None)
        self.tasks = tasks

    def setup_client(self, config: Any) -> None:
        """No underlying client."""

    async def to_native_tool(self, tool: vf.Tool) -> vf.Tool:
        """Tools pass through."""
        return tool

    async def to_native_prompt(self, messages: vf.Messages) -> tuple[vf.Messages, dict[str, Any]]:
        """Messages pass through."""
        return messages, {}

    async def get_native_response(
        self, prompt: vf.Messages, model: str, sampling_args: Any, tools: Any = None, **kwargs: Any
    ) -> Response:
        """The oracle's turn for the rollout's task (``state`` comes in ``kwargs``)."""
        task = self.tasks[kwargs["state"]["info"]["task_id"]]
        made = sum(len(getattr(m, "tool_calls", None) or []) for m in prompt if getattr(m, "role", "") == "assistant")
        calls, answer = oracle_turn(task, made)
        tool_calls = [
            ToolCall(id=f"oracle_{made}_{i}", name=name, arguments=json.dumps(args, ensure_ascii=False))
            for i, (name, args) in enumerate(calls)
        ]
        message = ResponseMessage(
            content=answer or None,
            tool_calls=tool_calls or None,
            finish_reason="tool_calls" if calls else "stop",
            is_truncated=False,
        )
        return Response(id=uuid.uuid4().hex, created=int(time.time()), model=model, message=message)

    async def raise_from_native_response(self, response: Response) -> None:
        """The oracle never fails."""

    async def from_native_response(self, response: Response) -> Response:
        """Already a verifiers response."""
        return response

    async def close(self) -> None:
        """Nothing to close."""


async def _admin_tasks(server: str, api_key: str | None, task_ids: list[str]) -> dict[str, TaskView]:
    async with FarmClient(server, api_key=api_key) as farm:
        tasks = {t: await farm.get_task(t) for t in dict.fromkeys(task_ids)}
    return tasks


class RolloutBench:
    """A prepared run: the environment, the inputs (tasks cycled to ``rollouts``) and the oracle.

    Preparing fetches the dataset and every task's gold actions; ``run`` then measures only rollouts.

    Raises:
        ClientError: the farm refused (an unknown task, a non-admin key: the oracle needs gold actions).
    """

    def __init__(
        self,
        server: str,
        *,
        rollouts: int = 200,
        concurrency: int = 16,
        tasks: str = "all",
        api_key: str | None = None,
        transport: Transport = "mcp",
    ) -> None:
        self.concurrency, self.transport = concurrency, transport
        self.env = EnvfarmEnv(server, tasks=tasks, api_key=api_key, transport=transport)
        dataset = self.env.get_eval_dataset()
        self.inputs = [dict(dataset[i % len(dataset)], example_id=i) for i in range(rollouts)]
        task_ids = [row["info"]["task_id"] for row in self.inputs]
        self.oracle = OracleClient(asyncio.run(_admin_tasks(server, api_key, task_ids)))

    def run(self, progress: Callable[[], None] = lambda: None) -> dict[str, Any]:
        """Run the rollouts; return a JSON-serializable report.

        Raises:
            RuntimeError: a rollout did not score 1.0 (the oracle always should: the farm or adapter is wrong).
        """
        outputs, wall = asyncio.run(self._generate(progress))
        failed = [o for o in outputs if o.get("error") or o["reward"] != 1.0]
        if failed:
            first = failed[0]
            raise RuntimeError(
                f"{len(failed)} of {len(outputs)} oracle rollouts did not score 1.0; first: task "
                f"{first['info']['task_id']}, reward {first['reward']}, error {first.get('error')}"
            )
        totals = [o["timing"]["total"] for o in outputs]
        farm = [o[FARM_SECONDS_KEY] for o in outputs]
        return {
            "benchmark": "rollouts",
            "transport": self.transport,
            "rollouts": len(outputs),
            "concurrency": self.concurrency,
            "tasks": len({o["info"]["task_id"] for o in outputs}),
            "tool_calls": sum(1 for o in outputs for m in o["completion"] or [] if m["role"] == "tool"),
            "seconds": round(wall, 2),
            "rollouts_per_s": round(len(outputs) / wall, 1),
            "rollout_ms": {
                "p50": round(statistics.median(totals) * 1000, 1),
                "mean": round(statistics.fmean(totals) * 1000, 1),
            },
            "farm_ms_per_rollout": round(statistics.fmean(farm) * 1000, 1),
            # time inside calls to the farm (its REST and MCP client libraries included) over rollout time
            "farm_share_of_rollout_time": round(sum(farm) / sum(totals), 3),
            "all_rewards_1": True,
        }

    async def _generate(self, progress: Callable[[], None]) -> tuple[list[dict[str, Any]], float]:
        clock = time.perf_counter()
        try:
            results = await self.env.generate(
                self.inputs,
                client=self.oracle,
                model="oracle",
                max_concurrent=self.concurrency,
                state_columns=[FARM_SECONDS_KEY],
                independent_scoring=True,
                on_start=lambda *_: None,
                on_progress=lambda *_: progress(),
            )
        finally:
            await self.env.aclose()
        return list(results["outputs"]), time.perf_counter() - clock
