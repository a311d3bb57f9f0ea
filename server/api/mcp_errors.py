"""Errors on an MCP endpoint in the shape an MCP client shows: a JSON-RPC error object.

Before the SDK sees a request, the farm may refuse it: an unknown, closed or expired episode, a
missing key, a Host or Origin not allowed, a body over the limit, a limit reached. Those answers are
the REST API's ``{"error": {"code", "message", "field"}}``, which an MCP client cannot read: the
``mcp`` SDK turned a 410 into "Server returned an error response" and a 404 into "Not Found", and
the farm's message was lost. Here every such answer on the MCP path keeps its HTTP status and
becomes ``{"jsonrpc": "2.0", "id": null, "error": {"code", "message", "data"}}``; clients surface a
JSON-RPC error body at any status, with their request's id. ``data`` keeps the REST code, field
and status for programs.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def jsonrpc_code(status: int) -> int:
    """A server-defined JSON-RPC code (-32000 to -32099) for an HTTP status: -32010 for 410, ..."""
    if status == 500:
        return -32603  # JSON-RPC's own "internal error"
    return -32000 - (status % 100) - (50 if status >= 500 else 0)


def as_jsonrpc(status: int, body: bytes) -> bytes | None:
    """The JSON-RPC error for a REST error body, or None when ``body`` is not one."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    error = parsed.get("error") if isinstance(parsed, dict) and "jsonrpc" not in parsed else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return None
    data = {"status": status, "code": error["code"], "field": error.get("field")}
    out = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": jsonrpc_code(status), "message": error.get("message"), "data": data},
    }
    return json.dumps(out).encode()


class JsonRpcErrors:
    """Rewrites the farm's error responses on an MCP endpoint as JSON-RPC errors (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: Message | None = None
        chunks: list[bytes] = []

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and message["status"] >= 400:
                start = message  # held until the body is known
                return
            if start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            shaped = as_jsonrpc(start["status"], body) if _is_json(start) else None
            if shaped is not None:
                body = shaped
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, rewrite)


def _is_json(start: Message) -> bool:
    headers: Any = start.get("headers", [])
    return any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in headers)
