"""``envfarm bench rollouts``: RL-style rollouts of an oracle policy through the adapters' episode layer.

N rollouts, ``concurrency`` at a time, each exactly the farm traffic of a trainer's rollout through
``clients.training.episode`` (the layer the verifiers adapter runs every rollout on): open an episode of the
task and list its tools, call the task's gold actions one turn at a time, score the final state with the
reference answer, close. With no model and no trainer loop to wait for, what is measured is the farm and
the client: rollouts/s, and the share of rollout time spent waiting on the farm (the rest is the client's
own work between calls on the same CPUs). No trainer is needed, so it runs in the farm's own environment.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..farm import FarmClient
from ..models import TaskView
from .episode import LiveEpisode, Transport, load_task_rows, oracle_turn


@dataclass
class Rollout:
    """What one rollout measured."""

    task_id: str
    reward: float
    tool_calls: int
    seconds: float
    farm_seconds: float


class RolloutBench:
    """A prepared run: the task of each rollout (the selected tasks cycled to ``rollouts``) and their gold paths.

    Preparing fetches the task list and every task's gold actions; ``run`` then measures only rollouts.

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
        self.server, self.api_key = server, api_key
        self.concurrency, self.transport = concurrency, transport
        rows = load_task_rows(server, tasks, api_key=api_key)
        self.task_ids = [rows[i % len(rows)]["task_id"] for i in range(rollouts)]
        self.tasks = asyncio.run(self._fetch_tasks())

    async def _fetch_tasks(self) -> dict[str, TaskView]:
        async with FarmClient(self.server, api_key=self.api_key) as farm:
            return {t: await farm.get_task(t) for t in dict.fromkeys(self.task_ids)}

    def run(self, progress: Callable[[], None] = lambda: None) -> dict[str, Any]:
        """Run the rollouts; return a JSON-serializable report.

        Raises:
            RuntimeError: a rollout did not score 1.0 (the oracle always should: the farm or client is wrong).
        """
        done, wall = asyncio.run(self._all(progress))
        failed = [r for r in done if r.reward != 1.0]
        if failed:
            raise RuntimeError(
                f"{len(failed)} of {len(done)} oracle rollouts did not score 1.0; first: task "
                f"{failed[0].task_id}, reward {failed[0].reward}"
            )
        totals = [r.seconds for r in done]
        farm = [r.farm_seconds for r in done]
        return {
            "benchmark": "rollouts",
            "transport": self.transport,
            "rollouts": len(done),
            "concurrency": self.concurrency,
            "tasks": len({r.task_id for r in done}),
            "tool_calls": sum(r.tool_calls for r in done),
            "seconds": round(wall, 2),
            "rollouts_per_s": round(len(done) / wall, 1),
            "rollout_ms": {
                "p50": round(statistics.median(totals) * 1000, 1),
                "mean": round(statistics.fmean(totals) * 1000, 1),
            },
            "farm_ms_per_rollout": round(statistics.fmean(farm) * 1000, 1),
            # time inside calls to the farm (its REST and MCP client libraries included) over rollout time
            "farm_share_of_rollout_time": round(sum(farm) / sum(totals), 3),
            "all_rewards_1": True,
        }

    async def _all(self, progress: Callable[[], None]) -> tuple[list[Rollout], float]:
        gate = asyncio.Semaphore(self.concurrency)
        clock = time.perf_counter()
        async with FarmClient(self.server, api_key=self.api_key) as farm:

            async def one(task_id: str) -> Rollout:
                async with gate:
                    rollout = await self._rollout(farm, self.tasks[task_id])
                progress()
                return rollout

            done = await asyncio.gather(*(one(t) for t in self.task_ids))
        return list(done), time.perf_counter() - clock

    async def _rollout(self, farm: FarmClient, task: TaskView) -> Rollout:
        clock = time.perf_counter()
        episode = await LiveEpisode.open(farm, task.id, transport=self.transport)
        made, reward = 0, 0.0
        try:
            while True:
                calls, answer = oracle_turn(task, made)
                if not calls:
                    reward = (await episode.score(answer)).reward
                    break
                for name, arguments in calls:
                    outcome = await episode.call(name, arguments)
                    if outcome.is_error:
                        raise RuntimeError(f"gold call {name} of task {task.id} was refused: {outcome.text}")
                    made += 1
        finally:
            await episode.close()
        return Rollout(task.id, reward, made, time.perf_counter() - clock, episode.farm_seconds)
