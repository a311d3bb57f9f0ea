"""The baseline of ``envfarm bench serve``: a bare low-level MCP server with one trivial tool.

Same SDK, same transport settings as the farm (streamable HTTP, JSON responses, stateless), so the
ratio measures what the farm adds: episode routing, argument validation, SQLite, the call log.
Run: ``python -m server.bench.bare --port 8800``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)
from starlette.applications import Starlette
from starlette.routing import Route

_TOOL = Tool(name="echo", description="Echo a value.", input_schema={"type": "object", "properties": {"v": {}}})


async def _list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[_TOOL])


async def _call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    out = {"v": (params.arguments or {}).get("v")}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(out))], structured_content=out)


def create_bare_app() -> Starlette:
    server = Server("bare", on_list_tools=_list_tools, on_call_tool=_call_tool, get_tool_input_schema=lambda n: None)
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)

    class Endpoint:  # an object, so Starlette's Route treats it as an ASGI app, not a request handler
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Route("/mcp", endpoint=Endpoint())], lifespan=lifespan)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(create_bare_app(), host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
