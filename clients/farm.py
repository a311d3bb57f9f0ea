"""``FarmClient``: an async client of the task service's REST API.

Every error the service sends (``{"error": {"code", "message", "field"}}``) becomes a
``FarmAPIError`` carrying the status, code and message; unreachable servers become
``TransportError``. Transient failures (429, 5xx, connection) are retried with backoff; tool
calls are retried only when the server cannot have run them (429, connection refused). Responses and
listings are read within bounds (``clients.guard``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from .errors import FarmAPIError, TransportError
from .guard import MAX_RESPONSE_BYTES, PAGE_SIZE, Pages, asend
from .models import CallResult, EnvInfo, EpisodeInfo, EpisodeStatus, TaskView
from .retry import RetryPolicy, is_transient, parse_retry_after, with_retries
from .wire import Score


def _not_yet_run(exc: BaseException) -> bool:
    """Retry a non-idempotent request only if the server cannot have acted on it."""
    if isinstance(exc, FarmAPIError):
        return exc.status == 429
    return isinstance(exc.__cause__, httpx.ConnectError)


class FarmClient:
    """Async client of the envfarm task service.

    Args:
        base_url: the service's URL, e.g. ``http://127.0.0.1:8765``.
        api_key: a bearer key (an admin key shows gold actions); None in local single-user mode.
        timeout: seconds per request.
        retry: how transient failures are retried.
        on_retry: called with the error and the delay before each retry.
        max_response_bytes: the largest response body read (``ResponseTooLarge`` past it); listings are
            bounded too (``PagingError``, see ``clients.guard``).

    >>> async def main():  # doctest: +SKIP
    ...     async with FarmClient("http://127.0.0.1:8765") as farm:
    ...         ep = await farm.create_episode(task_id="clinic-001")
    ...         print((await farm.score(ep.episode_id)).reward)
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        on_retry: Callable[[BaseException, float], None] | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_response_bytes = max_response_bytes
        self.api_key = api_key
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=self.auth_headers, timeout=timeout)

    @property
    def auth_headers(self) -> dict[str, str]:
        """The ``Authorization`` header for this client's key (empty without a key)."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    async def __aenter__(self) -> FarmClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()

    # -- plumbing -------------------------------------------------------------------------------------
    async def _send(
        self, method: str, path: str, json: Any = None, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        try:
            response = await asend(
                self._http, method, path, json=json, params=params, max_bytes=self.max_response_bytes
            )
        except httpx.TransportError as exc:
            raise TransportError(f"cannot reach the task service at {self.base_url}: {exc!r}") from exc
        if response.status_code >= 400:
            raise error_from_response(response)
        return response

    async def _respond(
        self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None, idempotent: bool = True
    ) -> httpx.Response:
        return await with_retries(
            lambda: self._send(method, path, json, params),
            self.retry,
            on_retry=self.on_retry,
            retry_if=is_transient if idempotent else _not_yet_run,
        )

    async def request(
        self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None, idempotent: bool = True
    ) -> Any:
        """Send one request (with retries) and return its decoded JSON body.

        Raises:
            FarmAPIError: the service answered with an error status.
            TransportError: the service could not be reached.
            ResponseTooLarge: the body is larger than ``max_response_bytes``.
        """
        response = await self._respond(method, path, json=json, params=params, idempotent=idempotent)
        return response.json()

    async def _pages(self, path: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        pages = Pages(path)
        while True:
            response = await self._respond("GET", path, params={**params, "limit": PAGE_SIZE, "offset": pages.offset})
            if not pages.add(response.json(), len(response.content)):
                return pages.items

    # -- catalog --------------------------------------------------------------------------------------
    async def health(self) -> dict[str, Any]:
        """``GET /healthz``."""
        result: dict[str, Any] = await self.request("GET", "/healthz")
        return result

    async def list_envs(self, *, sector: str | None = None) -> list[EnvInfo]:
        """Every environment (all pages), optionally of one sector."""
        params = {"sector": sector} if sector else {}
        return [EnvInfo.model_validate(e) for e in await self._pages("/envs", params)]

    async def get_env(self, env_id: str) -> EnvInfo:
        """One environment with its policy and tools."""
        return EnvInfo.model_validate(await self.request("GET", f"/envs/{env_id}"))

    async def list_tasks(self, env_id: str | None = None, *, difficulty: str | None = None) -> list[TaskView]:
        """Every task (all pages) of one environment, or of the whole catalog."""
        path = f"/envs/{env_id}/tasks" if env_id else "/tasks"
        params = {"difficulty": difficulty} if difficulty else {}
        return [TaskView.model_validate(t) for t in await self._pages(path, params)]

    async def get_task(self, task_id: str) -> TaskView:
        """One task (with gold actions if the key is an admin key)."""
        return TaskView.model_validate(await self.request("GET", f"/tasks/{task_id}"))

    # -- episodes -------------------------------------------------------------------------------------
    async def create_episode(
        self,
        *,
        task_id: str | None = None,
        env_id: str | None = None,
        fork_of: str | None = None,
        knowledge: str | None = None,
    ) -> EpisodeInfo:
        """Start an episode of a task, free play in an environment, or a fork of an episode's current state;
        ``knowledge`` says where its agent finds the environment's documents (search, full, required, none,
        embeddings)."""
        body: dict[str, str | None] = (
            {"fork_of": fork_of} if fork_of else {"task_id": task_id} if task_id else {"env_id": env_id}
        )
        if knowledge is not None:
            body["knowledge"] = knowledge
        return EpisodeInfo.model_validate(await self.request("POST", "/episodes", json=body, idempotent=False))

    async def list_episodes(self, *, status: str | None = None) -> list[EpisodeStatus]:
        """This key's episodes (all pages), newest first, optionally of one status (open, closed, expired)."""
        params = {"status": status} if status else {}
        return [EpisodeStatus.model_validate(e) for e in await self._pages("/episodes", params)]

    async def get_episode(self, episode_id: str, *, log: bool = True) -> EpisodeStatus:
        """Status and (with ``log``) the whole call log of an episode; a log the server sends in pages
        (``log_next``) is read to its end."""
        data = await self.request("GET", f"/episodes/{episode_id}", params={"log": str(log).lower()})
        if log and data.get("log_next") and data.get("log"):
            data["log"] += [call async for call in self.iter_log(episode_id, after=data["log"][-1]["seq"])]
            data["log_next"] = None
        return EpisodeStatus.model_validate(data)

    async def iter_log(self, episode_id: str, *, after: int = 0, page_size: int = 100) -> AsyncIterator[dict[str, Any]]:
        """An episode's calls with seq above ``after``, in order, read a page at a time
        (``GET /episodes/{id}/log``): a long log need not be held in memory at once."""
        while True:
            params = {"after": after, "limit": page_size}
            page = await self.request("GET", f"/episodes/{episode_id}/log", params=params)
            for call in page["items"]:
                yield call
            if page["next"] is None or not page["items"]:
                return
            after = page["items"][-1]["seq"]

    async def call_tool(
        self, episode_id: str, tool: str, arguments: dict[str, Any] | None = None, *, actor: str = "agent"
    ) -> CallResult:
        """Call a tool over REST (no MCP) as ``actor``: the agent, or in a dual-control environment the
        user (their own tools). A failed tool call is a result with ``is_error``."""
        body: dict[str, Any] = {"tool": tool, "arguments": arguments or {}}
        if actor != "agent":
            body["actor"] = actor
        data = await self.request("POST", f"/episodes/{episode_id}/calls", json=body, idempotent=False)
        return CallResult.model_validate(data)

    async def score(self, episode_id: str, answer: str = "") -> Score:
        """Score the episode's current state (and ``answer`` against the required outputs)."""
        return Score.model_validate(
            await self.request("POST", f"/episodes/{episode_id}/score", json={"answer": answer})
        )

    async def reset_episode(self, episode_id: str) -> EpisodeStatus:
        """Put an episode back in its initial state; its id, MCP URL and log stay. (Retried like a read:
        a second reset leaves the same state.)"""
        data = await self.request("POST", f"/episodes/{episode_id}/reset")
        return EpisodeStatus.model_validate(data)

    async def close_episode(self, episode_id: str) -> EpisodeStatus:
        """End an episode (``DELETE``); its log is kept by the server."""
        return EpisodeStatus.model_validate(await self.request("DELETE", f"/episodes/{episode_id}"))


def error_from_response(response: httpx.Response) -> FarmAPIError:
    """The ``FarmAPIError`` for an error response (code, message and field from its JSON body)."""
    code, message, field = "http_error", response.text[:300] or response.reason_phrase, None
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        err = body["error"]
        code = str(err.get("code") or code)
        message = str(err.get("message") or message)
        field = err.get("field")
    return FarmAPIError(
        response.status_code, code, message, field=field, retry_after=parse_retry_after(response.headers)
    )
