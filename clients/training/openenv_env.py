"""An OpenEnv environment whose sessions are farm episodes (``pip install "envfarm-client[openenv]"``).

The server side is an ``openenv.core.Environment`` served by OpenEnv's own app (``create_app``): each
WebSocket session of an ``EnvClient`` gets an ``EnvfarmEnvironment``, which holds one episode at a time
of a farm (over its REST API, through ``clients.FarmEnv``):

* ``reset(task_id=...)`` (or a ``seed`` picking one of the served tasks) opens an episode; the
  observation carries the instruction, the environment's policy and the tools (name, description,
  JSON Schema of the arguments; ``openai_tools()`` gives them as chat-completions tools);
* ``step(EnvfarmAction(tool=..., arguments={...}))`` runs a tool call and observes its result
  (``content``: the text a model reads, ``Error: ...`` for a refused call; ``result``: the JSON);
* ``step(EnvfarmAction(message=...))`` is the final answer: the episode is scored and closed, and the
  observation is ``done`` with the farm's reward (``reward="partial"``: partial credit) and
  ``partial_credit``. ``max_steps`` tool calls end an episode too (``truncated``, reward 0).

With a simulated user (``user=LLMSettings(...)``, or ``ENVFARM_OPENENV_USER_MODEL``) an episode is a
conversation, as in tau2: the user opens it (``user_message`` at reset), a ``message`` goes to the user,
who may act on their own side first (dual control: the user's own tools) and answers in
``user_message``; the episode ends, scored, when the user is done. Dual-control tasks are served only so.

Serve it with ``ENVFARM_SERVER=http://127.0.0.1:8765 uvicorn --factory
clients.training.openenv_env:app_from_env --port 8000`` and connect with
``EnvfarmClient(base_url="http://127.0.0.1:8000")``. Episodes need the WebSocket session: OpenEnv's
stateless HTTP ``/reset`` and ``/step`` make a new environment per request.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any, Literal

from fastapi import FastAPI
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server import Action, Environment, Observation, State, create_app
from pydantic import Field, model_validator

from ..agents.base import LLMSettings
from ..gym import FarmEnv
from .episode import load_task_rows

RewardMode = Literal["exact", "partial"]


class EnvfarmAction(Action):
    """A tool call (``tool``, ``arguments``) or the final answer (``message``): exactly one of the two."""

    tool: str | None = Field(default=None, description="The tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments")
    message: str | None = Field(default=None, description="The final answer; ends the episode")

    @model_validator(mode="after")
    def _one_kind(self) -> EnvfarmAction:
        if (self.tool is None) == (self.message is None):
            raise ValueError("an action is either a tool call (tool, arguments) or a final answer (message)")
        return self


class EnvfarmObservation(Observation):
    """What the agent sees: the task at reset, a tool's result after a call, the score at the end."""

    task_id: str = ""
    episode_id: str = ""
    instruction: str = ""
    policy: str = ""
    tools: list[dict[str, Any]] = Field(default_factory=list, description="name, description, input_schema")
    tool: str | None = None
    user_message: str | None = Field(default=None, description="With a simulated user: what the user said")
    content: str = Field(default="", description="The tool result as the model reads it")
    result: Any = None
    is_error: bool = False
    partial_credit: float | None = None
    truncated: bool = False

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools as OpenAI chat-completions function tools."""
        return [
            {
                "type": "function",
                "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]},
            }
            for t in self.tools
        ]


class EnvfarmState(State):
    """The session's episode: OpenEnv's ``episode_id`` and ``step_count``, plus the task and whether it ended."""

    task_id: str | None = None
    done: bool = False


class EnvfarmEnvironment(Environment[EnvfarmAction, EnvfarmObservation, EnvfarmState]):
    """One farm episode at a time, for one OpenEnv session.

    Args:
        server: the farm's task service URL.
        tasks: the tasks ``reset`` picks from when not given a ``task_id`` (a selector, or an ``envfarm
            export tasks`` file); loaded on the first such reset.
        api_key: the farm key, if it has keys.
        max_steps: tool calls after which an episode is truncated.
        reward: ``exact`` (the task's 0/1 reward) or ``partial`` (partial credit).
        user: a simulated user's model and endpoint (None: a ``message`` is the final answer, and
            dual-control tasks are left out of ``tasks``).
    """

    SUPPORTS_CONCURRENT_SESSIONS = True  # every session has its own episode; the farm isolates them

    def __init__(
        self,
        server: str,
        *,
        tasks: str = "all",
        api_key: str | None = None,
        max_steps: int = 50,
        reward: RewardMode = "exact",
        user: LLMSettings | None = None,
    ) -> None:
        super().__init__()
        self.server, self.tasks, self.api_key = server, tasks, api_key
        self._gym = FarmEnv(server, api_key=api_key, max_steps=max_steps, reward=reward, user=user)
        self._task_ids: list[str] = []
        self._state = EnvfarmState()

    def _pick(self, seed: int | None) -> str:
        if not self._task_ids:
            rows = load_task_rows(
                self.server, self.tasks, api_key=self.api_key, with_user_turn=self._gym.user is not None
            )
            self._task_ids = [r["task_id"] for r in rows]
        if seed is None:
            return random.choice(self._task_ids)
        return self._task_ids[seed % len(self._task_ids)]

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None, **kwargs: Any
    ) -> EnvfarmObservation:
        """Close any open episode and open one of ``task_id`` (else of the task ``seed`` picks, else a random one).

        ``episode_id`` is OpenEnv's optional label and is ignored: the farm names its episodes.
        """
        task = task_id or self._pick(seed)
        obs = self._gym.reset(task)
        self._state = EnvfarmState(episode_id=obs["episode_id"], step_count=0, task_id=task)
        return EnvfarmObservation(
            task_id=task,
            episode_id=obs["episode_id"],
            instruction=obs["instruction"] or "",
            policy=obs["policy"],
            tools=[
                {"name": t["name"], "description": t["description"], "input_schema": t["input_schema"]}
                for t in obs["tools"]
            ],
            user_message=obs.get("user_message"),
            reward=0.0,
        )

    def step(self, action: EnvfarmAction, timeout_s: float | None = None, **kwargs: Any) -> EnvfarmObservation:
        """Run a tool call, or score and close the episode on the final answer.

        Raises:
            EpisodeNotActive: no open episode (call ``reset`` first).
        """
        common = {"task_id": self._state.task_id or "", "episode_id": self._state.episode_id or ""}
        if action.message is not None and self._gym.user is not None:
            obs, reward, terminated, _, info = self._gym.step({"message": action.message})
            self._state.done = terminated
            return EnvfarmObservation(
                **common,
                done=terminated,
                reward=reward,
                user_message=obs["user_message"],
                partial_credit=info["score"].partial_credit if terminated else None,
                content=action.message,
            )
        if action.message is not None:
            _, reward, _, _, info = self._gym.step({"message": action.message})
            self._state.done = True
            return EnvfarmObservation(
                **common, done=True, reward=reward, partial_credit=info["score"].partial_credit, content=action.message
            )
        obs, reward, _, truncated, info = self._gym.step({"tool": action.tool, "arguments": action.arguments})
        self._state.step_count += 1
        result = obs["content"]
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
        observation = EnvfarmObservation(
            **common,
            tool=action.tool,
            content=f"Error: {text}" if obs["is_error"] else text,
            result=result,
            is_error=obs["is_error"],
            reward=reward,
        )
        if truncated:
            self._state.done = True
            observation.done, observation.truncated = True, True
            observation.partial_credit = info["score"].partial_credit
        return observation

    @property
    def state(self) -> EnvfarmState:
        """The session's current episode."""
        return self._state

    def close(self) -> None:
        """Close the open episode, if any, and the HTTP client."""
        self._gym.close()


class EnvfarmClient(EnvClient[EnvfarmAction, EnvfarmObservation, EnvfarmState]):
    """OpenEnv's WebSocket client for an envfarm OpenEnv server: one session, one episode at a time.

    >>> with EnvfarmClient(base_url="http://127.0.0.1:8000") as env:  # doctest: +SKIP
    ...     first = env.reset(task_id="clinic-001").observation
    ...     result = env.step(EnvfarmAction(tool="list_providers"))
    ...     result = env.step(EnvfarmAction(message="Booked: A1001"))  # result.done, result.reward
    """

    def _step_payload(self, action: EnvfarmAction) -> dict[str, Any]:
        payload: dict[str, Any] = action.model_dump(exclude={"metadata"})
        return payload

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[EnvfarmObservation]:
        observation = EnvfarmObservation(
            **payload.get("observation", {}), reward=payload.get("reward"), done=payload.get("done", False)
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> EnvfarmState:
        state: EnvfarmState = EnvfarmState.model_validate(payload)
        return state


def create_openenv_app(
    server: str,
    *,
    tasks: str = "all",
    api_key: str | None = None,
    max_steps: int = 50,
    reward: RewardMode = "exact",
    max_sessions: int = 64,
    user: LLMSettings | None = None,
) -> FastAPI:
    """OpenEnv's FastAPI app serving ``EnvfarmEnvironment`` sessions on the farm at ``server``."""

    def factory() -> EnvfarmEnvironment:
        return EnvfarmEnvironment(server, tasks=tasks, api_key=api_key, max_steps=max_steps, reward=reward, user=user)

    app: FastAPI = create_app(
        factory, EnvfarmAction, EnvfarmObservation, env_name="envfarm", max_concurrent_envs=max_sessions
    )
    return app


def app_from_env() -> FastAPI:
    """``create_openenv_app`` configured from the environment, for ``uvicorn --factory``: ``ENVFARM_SERVER``
    (default ``http://127.0.0.1:8765``), ``ENVFARM_SERVER_KEY``, ``ENVFARM_OPENENV_TASKS`` (default ``all``),
    ``ENVFARM_OPENENV_MAX_STEPS`` (50), ``ENVFARM_OPENENV_REWARD`` (``exact``|``partial``),
    ``ENVFARM_OPENENV_MAX_SESSIONS`` (64); a simulated user with ``ENVFARM_OPENENV_USER_MODEL``, at
    ``ENVFARM_OPENENV_USER_BASE_URL`` with the key in the variable ``ENVFARM_OPENENV_USER_API_KEY_ENV``
    names (default ``OPENAI_API_KEY``)."""
    reward = os.environ.get("ENVFARM_OPENENV_REWARD", "exact")
    user = None
    if model := os.environ.get("ENVFARM_OPENENV_USER_MODEL"):
        key_env = os.environ.get("ENVFARM_OPENENV_USER_API_KEY_ENV") or "OPENAI_API_KEY"
        base_url = os.environ.get("ENVFARM_OPENENV_USER_BASE_URL") or None
        user = LLMSettings(model=model, api_key=os.environ.get(key_env) or "EMPTY", base_url=base_url)
    return create_openenv_app(
        os.environ.get("ENVFARM_SERVER") or "http://127.0.0.1:8765",
        tasks=os.environ.get("ENVFARM_OPENENV_TASKS", "all"),
        api_key=os.environ.get("ENVFARM_SERVER_KEY") or None,
        max_steps=int(os.environ.get("ENVFARM_OPENENV_MAX_STEPS", "50")),
        reward="partial" if reward == "partial" else "exact",
        max_sessions=int(os.environ.get("ENVFARM_OPENENV_MAX_SESSIONS", "64")),
        user=user,
    )
