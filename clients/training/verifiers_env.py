"""A verifiers environment in which every rollout is an envfarm episode (``pip install envfarm[verifiers]``).

verifiers' own ``MCPEnv`` shares one read-only MCP server across rollouts; here each rollout opens
its own episode, a private state the agent changes:

* the dataset holds envfarm tasks (the environment's policy as system prompt, the instruction as the
  user's message; ``info`` carries ``task_id`` and ``env_id``);
* ``setup_state`` opens an episode of the row's task; the model's tools are the episode's MCP tool
  list, and every tool call goes to the episode (a refused call comes back as ``Error: ...``);
* the rollout ends when the model answers without calling a tool (or at ``max_turns``); the episode
  is then scored on the farm with every assistant text as the answer, and closed — on every path,
  errors and timeouts included;
* the rubric's reward is the farm's score: ``farm_reward`` (the task's exact 0/1 reward) and
  ``partial_credit`` are both metrics; ``reward="partial"`` makes partial credit the reward.

Load it as verifiers loads environments, by module: ``vf-eval envfarm -a '{"server": URL, "tasks":
"env:clinic"}' -m MODEL -b BASE_URL -k KEY_VAR`` (``envfarm.load_environment`` calls
``load_environment`` below), or ``vf.load_environment("envfarm", server=URL)``.
"""

from __future__ import annotations

import asyncio
import json
import os
import weakref
from typing import Any, Literal

import verifiers as vf
from datasets import Dataset
from verifiers.types import ToolMessage

from ..errors import ClientError
from ..farm import FarmClient
from .episode import LiveEpisode, Transport, load_task_rows

RewardMode = Literal["exact", "partial"]
DEFAULT_SERVER = "http://127.0.0.1:8765"
EPISODE_KEY = "envfarm_episode"  # the rollout's LiveEpisode (not serializable; removed at cleanup)
SCORE_KEY = "envfarm_score"  # {"episode_id", "reward", "partial_credit"} once scored
FARM_SECONDS_KEY = "farm_seconds"  # time the rollout spent waiting on the farm


def task_dataset(rows: list[dict[str, Any]]) -> Dataset:
    """A verifiers dataset from ``load_task_rows`` rows: ``prompt`` (policy, instruction), ``answer``
    (empty: the farm scores the final state) and ``info`` (``task_id``, ``env_id``)."""
    return Dataset.from_list(
        [
            {
                "prompt": [
                    {"role": "system", "content": row["policy"]},
                    {"role": "user", "content": row["instruction"]},
                ],
                "answer": "",
                "info": {"task_id": row["task_id"], "env_id": row["env_id"]},
            }
            for row in rows
        ]
    )


class FarmRubric(vf.Rubric):
    """The farm's score of the rollout's episode as the reward; exact reward and partial credit as metrics."""

    def __init__(self, reward: RewardMode = "exact") -> None:
        super().__init__()
        exact = 1.0 if reward == "exact" else 0.0
        self.add_reward_func(self.farm_reward, weight=exact)
        self.add_reward_func(self.partial_credit, weight=1.0 - exact)

    async def farm_reward(self, state: vf.State) -> float:
        """The task's reward (1.0 when the final state and answer are exactly right), 0.0 if unscored."""
        score = state.get(SCORE_KEY)
        return float(score["reward"]) if score else 0.0

    async def partial_credit(self, state: vf.State) -> float:
        """Share of the checklist and expected row changes achieved, 0.0 if unscored."""
        score = state.get(SCORE_KEY)
        return float(score["partial_credit"]) if score else 0.0


def _answer(completion: Any) -> str:
    """Every assistant text of the completion, joined: what the farm scores against the required outputs."""
    texts = [getattr(m, "content", None) for m in completion or [] if getattr(m, "role", None) == "assistant"]
    return "\n".join(t for t in texts if isinstance(t, str) and t.strip())


class EnvfarmEnv(vf.MultiTurnEnv):
    """Multi-turn tool use on a farm: one episode per rollout.

    Args:
        server: the task service's URL.
        tasks: a task selector (``all``, ``env:retail``, ``clinic-001,...``) or an ``envfarm export tasks``
            JSONL file: the dataset (and the evaluation dataset).
        api_key: the farm key, if it has keys.
        reward: ``exact`` (the task's 0/1 reward) or ``partial`` (partial credit) as the reward.
        transport: ``mcp`` (tools and calls over the episode's MCP endpoint) or ``rest``.
        max_turns: the most model responses in a rollout.
        timeout: seconds per farm request.
        **kwargs: passed to ``vf.MultiTurnEnv`` (``timeout_seconds``, ``sampling_args`` ...).
    """

    def __init__(
        self,
        server: str = DEFAULT_SERVER,
        *,
        tasks: str = "all",
        api_key: str | None = None,
        reward: RewardMode = "exact",
        transport: Transport = "mcp",
        max_turns: int = 30,
        timeout: float = 60.0,
        **kwargs: Any,
    ) -> None:
        self.server, self.api_key, self.transport, self.timeout = server, api_key, transport, timeout
        self._farms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, FarmClient] = weakref.WeakKeyDictionary()
        rows: list[dict[str, Any]] = []

        def build() -> Dataset:
            if not rows:
                rows.extend(load_task_rows(server, tasks, api_key=api_key))
            return task_dataset(rows)

        kwargs.setdefault("dataset", build)
        kwargs.setdefault("eval_dataset", build)
        super().__init__(rubric=FarmRubric(reward), max_turns=max_turns, **kwargs)

    def farm(self) -> FarmClient:
        """The farm client of the running event loop (one per loop: connections belong to a loop)."""
        loop = asyncio.get_running_loop()
        farm = self._farms.get(loop)
        if farm is None:
            farm = self._farms[loop] = FarmClient(self.server, api_key=self.api_key, timeout=self.timeout)
        return farm

    async def aclose(self) -> None:
        """Close the running loop's farm client (its connection pool)."""
        farm = self._farms.pop(asyncio.get_running_loop(), None)
        if farm is not None:
            await farm.aclose()

    async def setup_state(self, state: vf.State) -> vf.State:
        """Open the rollout's episode; its MCP tools become the model's tools."""
        task_id = state["info"]["task_id"]
        try:
            episode = await LiveEpisode.open(self.farm(), task_id, transport=self.transport, timeout=self.timeout)
        except (ClientError, OSError) as exc:
            raise vf.InfraError(f"envfarm could not open an episode of {task_id}: {exc}") from exc
        state[EPISODE_KEY] = episode
        state["episode_id"] = episode.episode_id
        state["tool_defs"] = [
            vf.Tool(name=t.name, description=t.description, parameters=t.input_schema) for t in episode.tools
        ]
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """Run the last assistant message's tool calls in the episode, in order; one tool message each."""
        episode: LiveEpisode = state[EPISODE_KEY]
        replies: vf.Messages = []
        for call in getattr(messages[-1], "tool_calls", None) or []:
            try:
                arguments = json.loads(call.arguments or "{}")
            except ValueError:
                arguments = None
            if not isinstance(arguments, dict):
                text = (
                    f"Error: invalid arguments for tool '{call.name}': expected a JSON object, "
                    f"got {call.arguments[:200]!r}"
                )
            else:
                try:
                    outcome = await episode.call(call.name, arguments)
                except ClientError as exc:
                    raise vf.InfraError(f"envfarm tool call {call.name!r} failed: {exc}") from exc
                text = f"Error: {outcome.text}" if outcome.is_error else outcome.text
            replies.append(ToolMessage(tool_call_id=call.id, content=text))
        return replies

    @vf.stop
    async def answered(self, state: vf.State) -> bool:
        """The model answered without calling a tool: the rollout is over."""
        if not state["trajectory"]:
            return False
        completion = state["trajectory"][-1]["completion"]
        last = completion[-1] if completion else None
        return getattr(last, "role", None) == "assistant" and not getattr(last, "tool_calls", None)

    @vf.cleanup
    async def score_and_close(self, state: vf.State) -> None:
        """Score the episode (unless the farm itself failed) and close it, whatever ended the rollout."""
        episode: LiveEpisode | None = state.pop(EPISODE_KEY, None)
        if episode is None:
            return
        try:
            if not isinstance(state.get("error"), vf.InfraError):
                try:
                    score = await episode.score(_answer(state.get("completion")))
                except ClientError as exc:
                    state["error"] = state.get("error") or vf.InfraError(f"envfarm could not score: {exc}")
                else:
                    state[SCORE_KEY] = {
                        "episode_id": episode.episode_id,
                        "reward": score.reward,
                        "partial_credit": score.partial_credit,
                    }
        finally:
            await episode.close()
            state[FARM_SECONDS_KEY] = episode.farm_seconds


def load_environment(
    server: str | None = None,
    tasks: str = "all",
    api_key: str | None = None,
    reward: RewardMode = "exact",
    transport: Transport = "mcp",
    max_turns: int = 30,
    **kwargs: Any,
) -> EnvfarmEnv:
    """The verifiers entry point: an ``EnvfarmEnv`` on the farm at ``server`` (default: ``$ENVFARM_SERVER``,
    else ``http://127.0.0.1:8765``; key: ``api_key`` or ``$ENVFARM_SERVER_KEY``).

    >>> env = load_environment(server="http://127.0.0.1:8765", tasks="env:clinic")  # doctest: +SKIP
    """
    return EnvfarmEnv(
        server or os.environ.get("ENVFARM_SERVER") or DEFAULT_SERVER,
        tasks=tasks,
        api_key=api_key or os.environ.get("ENVFARM_SERVER_KEY") or None,
        reward=reward,
        transport=transport,
        max_turns=max_turns,
        **kwargs,
    )
