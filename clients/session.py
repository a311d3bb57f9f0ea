"""One episode, open: its REST info plus a connected MCP client, closed (``DELETE``) on exit. In a
dual-control environment (the user acts too) a second MCP client is connected to the user's
endpoint, for the user simulator's own tools.

>>> async def main(farm):  # doctest: +SKIP
...     async with open_episode(farm, task_id="clinic-001") as ep:
...         tools = await ep.list_tools()
...         out = await ep.call_tool("find_patient_by_email", {"email": "maria.lopez@example.com"})
...         score = await ep.score("A1001")
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, cast

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .errors import ClientError, TransportError
from .farm import FarmClient
from .guard import require_same_origin
from .models import EpisodeInfo, EpisodeStatus
from .tools import ToolDef, ToolOutcome
from .wire import Score

log = logging.getLogger("envfarm.clients")


class EpisodeSession:
    """An open episode: ``info`` from ``POST /episodes`` and ``mcp``, a connected MCP client."""

    def __init__(self, farm: FarmClient, info: EpisodeInfo, mcp: Client, user_mcp: Client | None = None) -> None:
        self.farm = farm
        self.info = info
        self.mcp = mcp
        self.user_mcp = user_mcp  # the user's endpoint, in a dual-control environment

    @property
    def episode_id(self) -> str:
        """The episode's id."""
        return self.info.episode_id

    async def list_tools(self, *, actor: str = "agent") -> list[ToolDef]:
        """``actor``'s tools, from MCP ``tools/list``: the agent's, or the user's (none where only the
        agent acts)."""
        mcp = self._client(actor)
        if mcp is None:
            return []
        try:
            result = await mcp.list_tools()
        except ClientError:
            raise
        except Exception as exc:
            raise TransportError(f"MCP tools/list failed for episode {self.episode_id}: {exc!r}") from exc
        return [ToolDef.from_mcp(t) for t in result.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], *, actor: str = "agent") -> ToolOutcome:
        """Call a tool through MCP as ``actor`` (the agent, or the user at their own endpoint). A failed
        tool call is an outcome with ``is_error``, not an exception.

        Raises:
            TransportError: the MCP endpoint failed (the call may or may not have run).
        """
        mcp = self._client(actor)
        if mcp is None:
            return ToolOutcome(f"Episode {self.episode_id} has no user side: only the agent acts", is_error=True)
        try:
            result = await mcp.call_tool(name, arguments)
        except Exception as exc:
            raise TransportError(f"MCP tools/call {name!r} failed for episode {self.episode_id}: {exc!r}") from exc
        return ToolOutcome.from_mcp(result)

    def _client(self, actor: str) -> Client | None:
        return self.user_mcp if actor == "user" else self.mcp

    async def score(self, answer: str = "") -> Score:
        """Score the episode over REST."""
        return await self.farm.score(self.episode_id, answer)

    async def reset(self) -> EpisodeStatus:
        """Put the episode back in its initial state over REST; this MCP session stays connected."""
        return await self.farm.reset_episode(self.episode_id)


@asynccontextmanager
async def open_episode(
    farm: FarmClient,
    *,
    task_id: str | None = None,
    env_id: str | None = None,
    keep: bool = False,
    mode: str = "auto",
    timeout: float = 60.0,
    knowledge: str | None = None,
) -> AsyncIterator[EpisodeSession]:
    """Create an episode and yield it with a connected MCP client; close it on exit unless ``keep``.

    Args:
        farm: the task service client.
        task_id: the task to start (or ``env_id`` for free play).
        env_id: the environment for free play.
        keep: leave the episode open at the end (it then expires after the server's TTL).
        mode: the MCP client's protocol negotiation (``auto``, ``legacy`` or a version).
        timeout: seconds per MCP request.
        knowledge: where the agent finds the environment's documents (None: the farm's default, search).

    Raises:
        FarmAPIError: the episode could not be created.
        ForeignOriginError: the farm returned an ``mcp_url`` on another origin than ``farm.base_url``'s
            (the episode is closed; nothing is sent to that URL).
        TransportError: the MCP endpoint could not be reached.
    """
    info = await farm.create_episode(task_id=task_id, env_id=env_id, knowledge=knowledge)
    try:
        # The MCP client sends the farm key: only to the origin the farm client was configured with.
        mcp_url = require_same_origin(info.mcp_url, farm.base_url)
        user_url = require_same_origin(info.user_mcp_url, farm.base_url) if info.user_mcp_url else None
        async with AsyncExitStack() as stack:
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=farm.auth_headers, timeout=timeout))
            clients: list[Client] = []
            for url in (mcp_url, user_url):
                if url is None:
                    continue
                try:
                    client = Client(streamable_http_client(url, http_client=http), mode=cast(Any, mode))
                    clients.append(await stack.enter_async_context(client))
                except Exception as exc:
                    raise TransportError(f"cannot open the MCP session at {url}: {exc!r}") from exc
            yield EpisodeSession(farm, info, clients[0], clients[1] if len(clients) > 1 else None)
    finally:
        if not keep:
            try:
                await farm.close_episode(info.episode_id)
            except ClientError as exc:  # the result stands; the episode will expire on its own
                log.warning("closing episode %s failed: %s", info.episode_id, exc)
