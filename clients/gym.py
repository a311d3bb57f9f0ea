"""A Gymnasium-style environment over the task service's REST API (no MCP, no LLM).

``reset(task_id)`` opens an episode and returns the observation (instruction, policy, tools);
``step(action)`` takes a tool call ``{"tool": ..., "arguments": {...}}`` or a final message
``{"message": ...}`` and returns ``(observation, reward, terminated, truncated, info)``. Reward
comes only at termination (the final message), from ``POST /episodes/{id}/score``; reaching
``max_steps`` tool calls truncates the episode (reward 0, the score is still in ``info``).
``branch()`` gives a second environment in the same state (a fork of the episode).

In a dual-control environment (the user acts too) the observation also holds ``user_tools`` and
``user_guide``, and a tool call with ``"actor": "user"`` runs one of the user's tools: the program
that drives the episode can play the user's side itself. Or give ``user=LLMSettings(...)``: a
simulated user (``clients.gym_user``) then opens the conversation (``user_message`` in the first
observation), answers each ``{"message": ...}`` step (acting on their own side first, where they
have tools), and the episode ends, scored on every message the agent sent, when the user is done.

>>> env = FarmEnv("http://127.0.0.1:8765")  # doctest: +SKIP
>>> obs = env.reset("clinic-001")  # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step({"tool": "list_providers", "arguments": {}})  # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step({"message": "Booked A1001, copay 20"})  # doctest: +SKIP
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

import httpx

from .errors import ClientError, TransportError
from .farm import error_from_response
from .guard import send
from .models import CallResult, EpisodeInfo, TaskView
from .tools import ToolOutcome
from .wire import Score

if TYPE_CHECKING:
    from .agents.base import LLMSettings
    from .gym_user import GymUser

Observation = dict[str, Any]


class EpisodeNotActive(ClientError):
    """``step`` was called with no open episode: call ``reset`` first."""


class FarmEnv:
    """One episode at a time of the farm, as a Gymnasium-style environment.

    Args:
        base_url: the task service's URL.
        api_key: a bearer key (None in local single-user mode).
        max_steps: tool calls after which the episode is truncated.
        reward: ``exact`` (the task's 0/1 reward) or ``partial`` (partial credit).
        timeout: seconds per request.
        user: a simulated user's model and endpoint (None: a ``message`` step is the final answer).
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        max_steps: int = 50,
        reward: Literal["exact", "partial"] = "exact",
        timeout: float = 30.0,
        user: LLMSettings | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)
        self._base_url, self._api_key, self._timeout = base_url, api_key, timeout
        self.max_steps = max_steps
        self.reward_mode = reward
        self.episode: EpisodeInfo | None = None
        self.steps = 0
        self.user: GymUser | None = None
        if user is not None:
            from .gym_user import GymUser  # the agents extra (openai): a FarmEnv without a user does without it

            self.user = GymUser(user, self._user_tool)

    def _request(self, method: str, path: str, json: Any = None) -> Any:
        try:
            response = send(self._http, method, path, json=json)
        except httpx.TransportError as exc:
            raise TransportError(f"cannot reach the task service: {exc!r}") from exc
        if response.status_code >= 400:
            raise error_from_response(response)
        return response.json()

    def reset(self, task_id: str, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Observation:
        """Close any open episode and start one of ``task_id``; return the first observation.

        ``seed`` and ``options`` are accepted for Gymnasium compatibility; episodes are deterministic.
        """
        self._close_episode()
        self.episode = EpisodeInfo.model_validate(self._request("POST", "/episodes", {"task_id": task_id}))
        self.steps = 0
        opening = self._user_opens(task_id) if self.user is not None else {}
        return opening | {
            "episode_id": self.episode.episode_id,
            "task_id": task_id,
            "instruction": self.episode.instruction,
            "policy": self.episode.policy,
            "tools": [t.model_dump() for t in self.episode.tools],
            **(
                {
                    "user_tools": [t.model_dump() for t in self.episode.user_tools],
                    "user_guide": self.episode.user_guide,
                }
                if self.episode.user_tools is not None
                else {}
            ),
        }

    def step(self, action: dict[str, Any]) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Apply a tool call or a final message.

        Returns:
            ``(observation, reward, terminated, truncated, info)``: a tool call gives its result
            (``{"tool", "is_error", "content"}``), reward 0; a final message ends the episode with the
            score's reward and ``info["score"]``.

        Raises:
            EpisodeNotActive: no open episode (call ``reset``).
            ValueError: the action is neither a tool call nor a message.
        """
        if self.episode is None:
            raise EpisodeNotActive("no open episode: call reset(task_id) first")
        episode_id = self.episode.episode_id
        if "message" in action and self.user is not None:
            return self._to_user(str(action["message"]))
        if "message" in action:
            score = self._score(str(action["message"]))
            self._close_episode()
            return {"message": action["message"]}, self._reward(score), True, False, {"score": score}
        if "tool" not in action:
            raise ValueError(f"an action is {{'tool', 'arguments'}} or {{'message'}}, got keys {sorted(action)}")
        body = {"tool": action["tool"], "arguments": action.get("arguments") or {}}
        if action.get("actor", "agent") != "agent":  # a user simulator driving the user's side (dual control)
            body["actor"] = action["actor"]
        result = CallResult.model_validate(self._request("POST", f"/episodes/{episode_id}/calls", body))
        self.steps += 1
        observation = {
            "tool": action["tool"],
            "is_error": result.is_error,
            "content": result.message if result.is_error else result.content,
        }
        info: dict[str, Any] = {"seq": result.seq, "error_type": result.error_type}
        if self.steps >= self.max_steps:
            info["score"] = self._score("")
            self._close_episode()
            return observation, 0.0, False, True, info
        return observation, 0.0, False, False, info

    def branch(self) -> FarmEnv:
        """A second environment whose episode is a fork of this one's current state, with the same step
        count: for search or several continuations from one point. Close it like any ``FarmEnv``.

        Raises:
            EpisodeNotActive: no open episode to branch from.
        """
        if self.episode is None:
            raise EpisodeNotActive("no open episode to branch: call reset(task_id) first")
        created = self._request("POST", "/episodes", {"fork_of": self.episode.episode_id})
        other = FarmEnv(self._base_url, api_key=self._api_key, max_steps=self.max_steps, timeout=self._timeout)
        other.reward_mode = self.reward_mode
        other.episode, other.steps = EpisodeInfo.model_validate(created), self.steps
        if self.user is not None:  # the same user, the conversation so far, acting in the fork
            other.user = self.user.forked(other._user_tool)
        return other

    def _user_opens(self, task_id: str) -> Observation:
        """The simulated user's first message (``user_message``), after any acts of their own."""
        assert self.user is not None and self.episode is not None
        task = TaskView.model_validate(self._request("GET", f"/tasks/{task_id}"))
        return {"user_message": self.user.begin(task, self.episode).content}

    def _to_user(self, text: str) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """An agent's message to the simulated user: their answer, or, when they are done, the end of the
        episode, scored on everything the agent said."""
        assert self.user is not None
        reply = self.user.answer(text)
        observation: Observation = {"message": text, "user_message": reply.content}
        if not reply.stop:
            return observation, 0.0, False, False, {}
        score = self._score(self.user.agent_said())
        self._close_episode()
        return observation, self._reward(score), True, False, {"score": score}

    def _user_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """One of the user's own tools, run as the user."""
        assert self.episode is not None
        body = {"tool": name, "arguments": arguments, "actor": "user"}
        result = CallResult.model_validate(self._request("POST", f"/episodes/{self.episode.episode_id}/calls", body))
        if result.is_error:
            return ToolOutcome(result.message or "tool call failed", is_error=True)
        content = result.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
        return ToolOutcome(text, structured=content)

    def _score(self, answer: str) -> Score:
        assert self.episode is not None
        return Score.model_validate(
            self._request("POST", f"/episodes/{self.episode.episode_id}/score", {"answer": answer})
        )

    def _reward(self, score: Score) -> float:
        return score.partial_credit if self.reward_mode == "partial" else score.reward

    def _close_episode(self) -> None:
        if self.episode is not None:
            episode_id, self.episode = self.episode.episode_id, None
            try:
                self._request("DELETE", f"/episodes/{episode_id}")
            except ClientError:
                pass  # it expires on its own

    def close(self) -> None:
        """Close the open episode, if any, and the HTTP client (and the simulated user's)."""
        self._close_episode()
        self._http.close()
        if self.user is not None:
            self.user.close()
