"""A Gymnasium-style environment over the task service's REST API (no MCP, no LLM).

``reset(task_id)`` opens an episode and returns the observation (instruction, policy, tools);
``step(action)`` takes a tool call ``{"tool": ..., "arguments": {...}}`` or a final message
``{"message": ...}`` and returns ``(observation, reward, terminated, truncated, info)``. Reward
comes only at termination (the final message), from ``POST /episodes/{id}/score``; reaching
``max_steps`` tool calls truncates the episode (reward 0, the score is still in ``info``).
``branch()`` gives a second environment in the same state (a fork of the episode).

>>> env = FarmEnv("http://127.0.0.1:8765")  # doctest: +SKIP
>>> obs = env.reset("clinic-001")  # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step({"tool": "list_providers", "arguments": {}})  # doctest: +SKIP
>>> obs, reward, terminated, truncated, info = env.step({"message": "Booked A1001, copay 20"})  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any, Literal

import httpx

from .errors import ClientError, TransportError
from .farm import error_from_response
from .guard import send
from .models import CallResult, EpisodeInfo
from .wire import Score

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
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        max_steps: int = 50,
        reward: Literal["exact", "partial"] = "exact",
        timeout: float = 30.0,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)
        self._base_url, self._api_key, self._timeout = base_url, api_key, timeout
        self.max_steps = max_steps
        self.reward_mode = reward
        self.episode: EpisodeInfo | None = None
        self.steps = 0

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
        return {
            "episode_id": self.episode.episode_id,
            "task_id": task_id,
            "instruction": self.episode.instruction,
            "policy": self.episode.policy,
            "tools": [t.model_dump() for t in self.episode.tools],
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
        if "message" in action:
            score = self._score(str(action["message"]))
            self._close_episode()
            return {"message": action["message"]}, self._reward(score), True, False, {"score": score}
        if "tool" not in action:
            raise ValueError(f"an action is {{'tool', 'arguments'}} or {{'message'}}, got keys {sorted(action)}")
        body = {"tool": action["tool"], "arguments": action.get("arguments") or {}}
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
        return other

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
        """Close the open episode, if any, and the HTTP client."""
        self._close_episode()
        self._http.close()
