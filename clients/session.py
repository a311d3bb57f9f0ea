"""One episode, open: its REST info plus a connected MCP client, closed (``DELETE``) on exit.

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

    def __init__(self, farm: FarmClient, info: EpisodeInfo, mcp: Client) -> None:
        self.farm = farm
        self.info = info
        self.mcp = mcp

    @property
    def episode_id(self) -> str:
        """The episode's id."""
        return self.info.episode_id

    async def list_tools(self) -> list[ToolDef]:
        """The episode's tools, from MCP ``tools/list``."""
        try:
            result = await self.mcp.list_tools()
        except ClientError:
            raise
        except Exception as exc:
            raise TransportError(f"MCP tools/list failed for episode {self.episode_id}: {exc!r}") from exc
        return [ToolDef.from_mcp(t) for t in result.tools]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call a tool through MCP. A failed tool call is an outcome with ``is_error``, not an exception.

        Raises:
            TransportError: the MCP endpoint failed (the call may or may not have run).
        """
        try:
            result = await self.mcp.call_tool(name, arguments)
        except Exception as exc:
            raise TransportError(f"MCP tools/call {name!r} failed for episode {self.episode_id}: {exc!r}") from exc
        return ToolOutcome.from_mcp(result)

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
) -> AsyncIterator[EpisodeSession]:
    """Create an episode and yield it with a connected MCP client; close it on exit unless ``keep``.

    Args:
        farm: the task service client.
        task_id: the task to start (or ``env_id`` for free play).
        env_id: the environment for free play.
        keep: leave the episode open at the end (it then expires after the server's TTL).
        mode: the MCP client's protocol negotiation (``auto``, ``legacy`` or a version).
        timeout: seconds per MCP request.

    Raises:
        FarmAPIError: the episode could not be created.
        ForeignOriginError: the farm returned an ``mcp_url`` on another origin than ``farm.base_url``'s
            (the episode is closed; nothing is sent to that URL).
        TransportError: the MCP endpoint could not be reached.
    """
    info = await farm.create_episode(task_id=task_id, env_id=env_id)
    try:
        # The MCP client sends the farm key: only to the origin the farm client was configured with.
        mcp_url = require_same_origin(info.mcp_url, farm.base_url)
        async with AsyncExitStack() as stack:
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=farm.auth_headers, timeout=timeout))
            try:
                client = Client(streamable_http_client(mcp_url, http_client=http), mode=cast(Any, mode))
                await stack.enter_async_context(client)
            except Exception as exc:
                raise TransportError(f"cannot open the MCP session at {info.mcp_url}: {exc!r}") from exc
            yield EpisodeSession(farm, info, client)
    finally:
        if not keep:
            try:
                await farm.close_episode(info.episode_id)
            except ClientError as exc:  # the result stands; the episode will expire on its own
                log.warning("closing episode %s failed: %s", info.episode_id, exc)
