"""A verifiers (``verifiers.v1``, 0.4 and later) taskset whose rollouts are envfarm episodes
(``pip install "envfarm-client[verifiers]"``).

verifiers 0.4 splits an environment into a taskset (the tasks and how each is set up and scored), the
tool servers the model reaches over MCP, a harness (the program that talks to the model) and an ``Env``
(how one task becomes one episode). Here:

* ``FarmTaskset`` loads envfarm tasks (``load_task_rows``): the environment's policy is the system
  prompt, the instruction the user's message;
* ``FarmTask.setup`` opens a farm episode of the task over REST (``LiveEpisode``) and keeps its id and
  tool list in the rollout's state;
* ``FarmToolset``, one MCP server for the whole run, lists each rollout's own episode tools and runs
  each call in that rollout's episode (a refused call comes back as ``Error: ...``);
* ``FarmTask.envfarm`` (the reward) scores the episode on the farm with the assistant's texts as the
  answer, then closes it; ``farm_reward`` (exact 0/1), ``partial_credit`` and ``farm_seconds`` are
  metrics, and the reward is ``farm_reward`` or, with ``reward="partial"``, partial credit;
* ``FarmEnv`` closes every episode its run opened, whatever ended the rollout (a failed rollout is
  not scored, so it is closed there);
* ``FarmHarness`` is verifiers' plain chat loop (the ``null`` harness), the default for this taskset;
* with a simulated user (``user_model``), ``FarmEnv`` holds the agent's rollout open turn by turn
  (verifiers' ``interaction``) and plays the user itself: the user opens, answers each reply (acting
  on their own side first in a dual-control environment: the user's tools, run as the user), and ends
  the rollout when done; dual-control tasks are served only so (``clients.gym_user``).

verifiers loads a taskset by top-level module: ``vf-eval envfarm-verifiers`` imports
``envfarm_verifiers`` (installed by envfarm-client), which re-exports the classes below.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
from collections.abc import Iterator
from typing import Any, Literal

import httpx
import verifiers.v1 as vf
from verifiers.v1.harnesses.null import NullHarness
from verifiers.v1.runtimes import SubprocessConfig

from ..errors import ClientError
from ..farm import FarmClient, error_from_response
from ..guard import send
from ..models import CallResult, TaskView
from ..tools import ToolOutcome
from .episode import LiveEpisode, load_task_rows

RewardMode = Literal["exact", "partial"]
DEFAULT_SERVER = "http://127.0.0.1:8765"
#: The live episodes of this process, by id (a task's setup, reward and env share them).
_LIVE: dict[str, LiveEpisode] = {}
#: The episodes opened under the running ``FarmEnv.run`` (closed when it ends).
_OPENED: contextvars.ContextVar[list[LiveEpisode] | None] = contextvars.ContextVar("envfarm_opened", default=None)


def default_server() -> str:
    """``$ENVFARM_SERVER``, else the farm's default local address."""
    return os.environ.get("ENVFARM_SERVER") or DEFAULT_SERVER


def default_api_key() -> str | None:
    """``$ENVFARM_SERVER_KEY``, if set."""
    return os.environ.get("ENVFARM_SERVER_KEY") or None


class FarmState(vf.State):
    """One rollout's episode, shared by the task's hooks and the tool server (kept in the trace)."""

    episode_id: str = ""
    tools: list[dict[str, Any]] = []


class FarmToolsConfig(vf.SharedToolsetConfig):
    """Where the tool server sends tool calls."""

    server: str = DEFAULT_SERVER
    api_key: str | None = None
    timeout: float = 60.0


class FarmToolset(vf.Toolset[FarmToolsConfig, FarmState]):
    """The calling rollout's episode tools, over MCP: its tool list, and each call run in its episode."""

    TOOL_PREFIX = None  # the model sees the farm's tool names as they are

    def register(self, mcp: Any) -> None:
        """Answer ``tools/list`` and ``tools/call`` per rollout (the catalog depends on the episode)."""
        mcp.list_tools = self._with_state(self.list_tools)
        mcp.call_tool = self._with_state(self.call_tool)

    async def list_tools(self) -> list[dict[str, Any]]:
        """The episode's tools (MCP ``Tool`` fields)."""
        return list(self.state.tools)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """Run one call in the episode over REST; the result text, or ``Error: ...`` for a refused call."""
        config = self.config
        async with FarmClient(config.server, api_key=config.api_key, timeout=config.timeout) as farm:
            try:
                result = await farm.call_tool(self.state.episode_id, name, arguments)
            except ClientError as exc:
                return self._result(f"Error: {exc}", error=True)
        if result.is_error:
            return self._result(f"Error: {result.message or 'tool call failed'}", error=True)
        content = result.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        return self._result(text, error=False)

    @staticmethod
    def _result(text: str, *, error: bool) -> Any:
        """A ``CallToolResult`` of one text block, of the mcp release verifiers runs its tool servers on (only
        verifiers talks MCP here; the farm is reached over REST)."""
        from mcp.types import CallToolResult, TextContent

        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


class FarmTaskConfig(vf.TaskConfig):
    """The farm a task's episodes run on, what the reward is, and the simulated user, if any."""

    server: str = DEFAULT_SERVER
    api_key: str | None = None
    reward: RewardMode = "exact"
    timeout: float = 60.0
    user_model: str | None = None
    user_base_url: str | None = None
    user_api_key_var: str = "OPENAI_API_KEY"


class FarmData(vf.TaskData):
    """An envfarm task: its id and environment (the prompt holds the policy and instruction)."""

    task_id: str
    env_id: str


def _answer(trace: Any) -> str:
    """Every assistant text of the rollout, joined: what the farm scores against the required outputs."""
    texts = [vf.types.content_text(m.content) for m in trace.assistant_messages]
    return "\n".join(t for t in texts if t.strip())


async def _close(episode: LiveEpisode) -> None:
    """End the episode (idempotent) and its client's connections."""
    _LIVE.pop(episode.episode_id, None)
    try:
        await episode.close()
    finally:
        await episode.farm.aclose()


class FarmTask(vf.Task[FarmData, FarmState, FarmTaskConfig]):
    """One envfarm task: each rollout is one farm episode, scored by the farm."""

    @property
    def key(self) -> str:
        """The task id: stable across runs and unique in a taskset."""
        return str(self.data.task_id)

    async def setup(self, trace: Any, runtime: Any) -> None:
        """Open the rollout's episode; its tools become the model's tools."""
        config = self.config
        farm = FarmClient(config.server, api_key=config.api_key, timeout=config.timeout)
        try:
            episode = await LiveEpisode.open(farm, self.data.task_id, transport="rest", timeout=config.timeout)
        except BaseException:
            await farm.aclose()
            raise
        _LIVE[episode.episode_id] = episode
        opened = _OPENED.get()
        if opened is not None:
            opened.append(episode)
        trace.state.episode_id = episode.episode_id
        trace.info["envfarm"] = {"episode_id": episode.episode_id, "task_id": self.data.task_id}
        trace.state.tools = [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in episode.tools
        ]

    @vf.reward(weight=1.0)
    async def envfarm(self, trace: Any) -> float:
        """The farm's score of the episode (then closed): its exact reward, or partial credit."""
        episode = _LIVE.get(trace.state.episode_id)
        if episode is None:
            raise vf.TaskError(f"envfarm episode {trace.state.episode_id!r} is not open in this process")
        try:
            score = await episode.score(_answer(trace))
        finally:
            await _close(episode)
        trace.record_metric("farm_reward", float(score.reward))
        trace.record_metric("partial_credit", float(score.partial_credit))
        trace.record_metric("farm_seconds", episode.farm_seconds)
        return float(score.partial_credit if self.config.reward == "partial" else score.reward)


async def converse(task: FarmTask, agent: Any) -> None:
    """Run ``task`` as a conversation with a simulated user: the agent's rollout is held open turn by
    turn (its prompt left out: the instruction is the user's to tell), the user opens and answers each
    reply, acting on their own side first where they have tools, and the rollout ends when the user is
    done (or the agent's run ends). Scoring then runs as for any rollout, on the agent's texts."""
    config = task.config
    nulled = type(task)(task.data.model_copy(update={"prompt": None}), config)
    async with agent.interaction(nulled) as assistant:
        episode = _LIVE.get(assistant.trace.state.episode_id)
        if episode is None:
            raise vf.TaskError(f"envfarm episode {assistant.trace.state.episode_id!r} is not open in this process")
        user = _simulated_user(config, episode)
        try:
            task_view = await asyncio.to_thread(_task_view, config, task.data.task_id)
            said = await asyncio.to_thread(user.begin, task_view, episode.info)
            while not said.stop:
                segment = await assistant.turn(said.content or "(the user says nothing)")
                if segment.terminated:
                    break
                said = await asyncio.to_thread(user.answer, segment.last_reply)
        finally:
            user.close()


def _simulated_user(config: FarmTaskConfig, episode: LiveEpisode) -> Any:
    """The LLM user simulator (the eval's, called synchronously), acting in ``episode`` as the user."""
    from ..agents.base import LLMSettings
    from ..gym_user import GymUser

    settings = LLMSettings(
        model=config.user_model or "",
        api_key=os.environ.get(config.user_api_key_var) or "EMPTY",
        base_url=config.user_base_url,
        timeout=config.timeout,
    )
    headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}

    def run_tool(name: str, arguments: dict[str, Any]) -> ToolOutcome:
        body = {"tool": name, "arguments": arguments, "actor": "user"}
        with httpx.Client(base_url=config.server, headers=headers, timeout=config.timeout) as http:
            response = send(http, "POST", f"/episodes/{episode.episode_id}/calls", json=body)
        if response.status_code >= 400:
            return ToolOutcome(f"Error: {error_from_response(response)}", is_error=True)
        result = CallResult.model_validate(response.json())
        if result.is_error:
            return ToolOutcome(result.message or "tool call failed", is_error=True)
        content = result.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        return ToolOutcome(text, structured=content)

    return GymUser(settings, run_tool)


def _task_view(config: FarmTaskConfig, task_id: str) -> TaskView:
    """The task as its user sees it (the profile the simulator plays)."""
    headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
    with httpx.Client(base_url=config.server, headers=headers, timeout=config.timeout) as http:
        response = send(http, "GET", f"/tasks/{task_id}")
    if response.status_code >= 400:
        raise error_from_response(response)
    return TaskView.model_validate(response.json())


class FarmTasksetConfig(vf.TasksetConfig):
    """``--env.taskset.*``: the farm, the tasks and the reward."""

    server: str | None = None
    """The farm's URL (default ``$ENVFARM_SERVER``, else ``http://127.0.0.1:8765``)."""
    tasks: str = "all"
    """A selector as in ``envfarm eval --tasks`` (``all``, ``env:clinic``, ``clinic-001,clinic-002``) or an
    ``envfarm export tasks`` JSONL file."""
    api_key: str | None = None
    """The farm key (default ``$ENVFARM_SERVER_KEY``)."""
    reward: RewardMode = "exact"
    """``exact``: the task's 0/1 reward; ``partial``: partial credit."""
    timeout: float = 60.0
    """Seconds per farm request."""
    user_model: str | None = None
    """A simulated user's model (OpenAI-compatible): each rollout becomes a conversation with it, and
    dual-control tasks (the user acts too) are served; None: the instruction is the user's one message."""
    user_base_url: str | None = None
    """The simulated user's API base URL."""
    user_api_key_var: str = "OPENAI_API_KEY"
    """The variable holding the simulated user's API key."""


class FarmTaskset(vf.Taskset[FarmTask, FarmTasksetConfig]):
    """The farm's tasks: one ``FarmTask`` per selected task."""

    @classmethod
    def toolsets(cls, config: FarmTasksetConfig) -> list[Any]:
        """One tool server for the run; each call finds its rollout's episode in the rollout's state."""
        tools = FarmToolsConfig(
            server=config.server or default_server(),
            api_key=config.api_key or default_api_key(),
            timeout=config.timeout,
        )
        return [FarmToolset(tools)]

    def load(self) -> Iterator[FarmTask]:
        """Fetch the selected tasks from the farm."""
        config = self.config
        server, api_key = config.server or default_server(), config.api_key or default_api_key()
        update = {
            "server": server,
            "api_key": api_key,
            "reward": config.reward,
            "timeout": config.timeout,
            "user_model": config.user_model,
            "user_base_url": config.user_base_url,
            "user_api_key_var": config.user_api_key_var,
        }
        task_config = FarmTaskConfig.model_validate(config.task.model_dump() | update)
        with_user = config.user_model is not None
        for row in load_task_rows(server, config.tasks, api_key=api_key, with_user_turn=with_user):
            data = FarmData(
                id=row["task_id"],
                name=row["task_id"],
                task_id=row["task_id"],
                env_id=row["env_id"],
                system_prompt=row["policy"] or None,
                prompt=row["instruction"],
            )
            yield FarmTask(data, task_config)


class FarmEnvConfig(vf.EnvConfig):
    """The single agent, on a local runtime (the harness only talks to the model and the tool server)."""

    agent: vf.AgentConfig = vf.AgentConfig(runtime=SubprocessConfig(), max_turns=30)


class FarmEnv(vf.Env[FarmEnvConfig]):
    """One agent plays the task; every episode opened in the run is closed when it ends."""

    async def run(self, task: Any, agents: Any) -> None:
        """Run the agent, then close what it opened (a scored episode is closed already)."""
        opened: list[LiveEpisode] = []
        token = _OPENED.set(opened)
        try:
            if task.config.user_model:
                await converse(task, agents.agent)
            else:
                await agents.agent.run(task)
        finally:
            _OPENED.reset(token)
            for episode in opened:
                await _close(episode)


class FarmHarness(NullHarness):
    """verifiers' plain chat loop: the episode's tools only (no shell)."""


def load_environment(
    server: str | None = None,
    tasks: str = "all",
    api_key: str | None = None,
    reward: RewardMode = "exact",
    max_turns: int = 30,
    user_model: str | None = None,
    user_base_url: str | None = None,
    user_api_key_var: str = "OPENAI_API_KEY",
    **kwargs: Any,
) -> FarmEnv:
    """A ``FarmEnv`` on the farm at ``server`` (default ``$ENVFARM_SERVER``, else ``http://127.0.0.1:8765``;
    key: ``api_key`` or ``$ENVFARM_SERVER_KEY``). ``kwargs`` are further ``--env.taskset.*`` fields
    (``timeout``).

    >>> env = load_environment(server="http://127.0.0.1:8765", tasks="env:clinic")  # doctest: +SKIP
    >>> async with env.serving():  # doctest: +SKIP
    ...     episode = await env.run_slot(vf.RunSlot(next(iter(env.taskset))), ctx)
    """
    taskset = FarmTasksetConfig(
        id="envfarm-verifiers",
        server=server,
        tasks=tasks,
        api_key=api_key,
        reward=reward,
        user_model=user_model,
        user_base_url=user_base_url,
        user_api_key_var=user_api_key_var,
        **kwargs,
    )
    agent = vf.AgentConfig(runtime=SubprocessConfig(), max_turns=max_turns)
    return FarmEnv(FarmEnvConfig(taskset=taskset, agent=agent))


if __name__ == "__main__":  # verifiers starts the tool server as ``python -m clients.training.verifiers_env``
    FarmToolset.run()
