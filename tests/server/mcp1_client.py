"""What an mcp 1.x client and LangChain show against a farm: run in the mcp 1.x environment, not by pytest.

``scripts/setup`` makes that environment (``.venv-mcp1``: ``mcp>=1.30,<2`` and
``langchain-mcp-adapters``, which requires mcp 1.x); ``test_mcp1_clients.py`` runs this script there
against a live farm and reads what it prints: one JSON object, each scenario's name mapped to what
the client surfaced — ``{"result": text, "is_error": bool}`` for an answer, ``{"raised": type,
"message": text}`` for an exception.

Usage: ``python mcp1_client.py SPEC``, SPEC a JSON object of MCP URLs: ``open`` (an open episode),
``closed`` (an episode ended before the clients connect), ``unknown`` (no episode), and
``held_plain`` / ``held_langchain``, each ``{"mcp", "end"}``: an open episode the client connects to,
and the REST URL that ends it (by DELETE) while the client holds it. A SPEC holding only
``unauthorized`` (an episode's URL on a farm that wants a key, opened without one) runs the plain
client on it alone.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

TOOL, ARGS = "list_providers", {}


def _text(result: Any) -> dict[str, Any]:
    """An mcp ``CallToolResult`` as what a model gets: its text, and whether it is an error."""
    return {"result": "".join(c.text for c in result.content if c.type == "text"), "is_error": bool(result.isError)}


async def _surfaced(step: Callable[[], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
    try:
        return await step()
    except Exception as exc:  # what the client raises is the observation
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]
        return {"raised": type(exc).__name__, "message": str(exc)}


async def plain(url: str) -> dict[str, Any]:
    """An mcp 1.x session: initialize, list the tools, call one."""
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        listed = await _surfaced(lambda: _listed(session))
        called = await _surfaced(lambda: _called(session))
    return {"list": listed, "call": called}


async def _listed(session: ClientSession) -> dict[str, Any]:
    tools = (await session.list_tools()).tools
    return {"result": ",".join(t.name for t in tools), "is_error": False}


async def _called(session: ClientSession) -> dict[str, Any]:
    return _text(await session.call_tool(TOOL, ARGS))


async def plain_held(url: str, end: str) -> dict[str, Any]:
    """An mcp 1.x session that stays connected while its episode is ended."""
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        before = await _surfaced(lambda: _called(session))
        httpx.delete(end, timeout=20).raise_for_status()
        after = await _surfaced(lambda: _called(session))
    return {"before": before, "after": after}


async def langchain_tool_call(url: str) -> dict[str, Any]:
    """A LangChain tool call as an agent makes it: the ToolMessage the model gets back."""
    client = MultiServerMCPClient({"farm": {"transport": "streamable_http", "url": url}})
    tool = next(t for t in await client.get_tools() if t.name == TOOL)
    message = await tool.ainvoke({"type": "tool_call", "id": "call_1", "name": TOOL, "args": ARGS})
    content = message.content if isinstance(message.content, str) else json.dumps(message.content)
    return {"result": content, "is_error": message.status == "error"}


async def langchain_held(url: str, end: str) -> dict[str, Any]:
    """LangChain tools loaded from an open episode, called after it has ended."""
    client = MultiServerMCPClient({"farm": {"transport": "streamable_http", "url": url}})
    tool = next(t for t in await client.get_tools() if t.name == TOOL)
    call = {"type": "tool_call", "id": "call_1", "name": TOOL, "args": ARGS}
    before = await tool.ainvoke(call)
    httpx.delete(end, timeout=20).raise_for_status()
    after = await tool.ainvoke(call)
    return {
        "before": {"result": str(before.content), "is_error": before.status == "error"},
        "after": {"result": str(after.content), "is_error": after.status == "error"},
    }


async def langchain_load(url: str) -> dict[str, Any]:
    """Loading an episode's tools into LangChain."""
    client = MultiServerMCPClient({"farm": {"transport": "streamable_http", "url": url}})
    return {"result": ",".join(t.name for t in await client.get_tools()), "is_error": False}


async def main(spec: dict[str, Any]) -> dict[str, Any]:
    if "unauthorized" in spec:
        return {"plain/unauthorized": await _surfaced(functools.partial(plain, spec["unauthorized"]))}
    out: dict[str, Any] = {}
    out["langchain-call/open"] = await _surfaced(functools.partial(langchain_tool_call, spec["open"]))
    for name in ("open", "closed", "unknown"):
        out[f"plain/{name}"] = await _surfaced(functools.partial(plain, spec[name]))
        out[f"langchain-load/{name}"] = await _surfaced(functools.partial(langchain_load, spec[name]))
    held_plain, held_langchain = spec["held_plain"], spec["held_langchain"]
    out["plain/held"] = await _surfaced(functools.partial(plain_held, held_plain["mcp"], held_plain["end"]))
    out["langchain/held"] = await _surfaced(
        functools.partial(langchain_held, held_langchain["mcp"], held_langchain["end"])
    )
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
