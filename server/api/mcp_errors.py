"""Errors on an MCP endpoint in the shape every MCP client shows: JSON-RPC errors, at the right layer.

Before the SDK sees a request, the farm may refuse it. Two kinds of refusal, answered differently:

* **The episode cannot be served** (unknown to this tenant, closed, expired, or no longer replayable:
  ``ANSWERED_IN_BAND``). A POST is still handed to the MCP server, with the refusal in place of the
  episode: the handshake (``initialize``, ``server/discover``) and ``ping`` are answered as always,
  notifications get 202, every other request a JSON-RPC error at HTTP 200 with the request's id
  (``EpisodeUnavailable``), and ``tools/call`` an ``isError`` result, so the model reads "Episode '…' is
  closed". An HTTP 404/410 here broke clients: mcp 1.x raised ``HTTPStatusError: 410 Gone`` or an empty
  ``ClosedResourceError``, openai-agents told the model only "An error occurred while running the
  tool", and the Inspector, finding no discover answer, reported a failed version negotiation.
* **The request itself is refused at the HTTP layer**: a missing key (401, which OAuth-aware clients act
  on), a Host or Origin not allowed (403/421, DNS-rebinding protection, as the MCP spec asks), a body
  too large (413) or too slow (408), a limit reached (429), the episode store down (503, transient, for
  balancers and retries), an internal error (500). These keep their status; the farm's REST body
  ``{"error": {"code", "message", "field"}}`` becomes ``{"jsonrpc": "2.0", "id": null, "error":
  {"code", "message", "data"}}`` (``JsonRpcErrors``), which the 2.x SDK and the Inspector show at any
  status. ``id`` is null: most of these are decided before the body is read. A GET (the event
  stream) of an episode that cannot be served is one of these, answered 405 (``no_stream``).

In both, the JSON-RPC code is -32000 minus the HTTP status's last two digits (``jsonrpc_code``) and
``data`` carries the REST status, code and field for programs.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import EpisodeEnded, EpisodeNotFound, ReplayFailed, ServiceError
from ..mcp_adapter import McpError

#: Refusals about the episode, answered inside MCP (see the module docstring).
ANSWERED_IN_BAND = (EpisodeNotFound, EpisodeEnded, ReplayFailed)


def jsonrpc_code(status: int) -> int:
    """A server-defined JSON-RPC code (-32000 to -32099) for an HTTP status: -32010 for 410, ..."""
    if status == 500:
        return -32603  # JSON-RPC's own "internal error"
    return -32000 - (status % 100) - (50 if status >= 500 else 0)


def error_data(status: int, code: str, field: str | None) -> dict[str, Any]:
    """The ``data`` of a farm error in JSON-RPC: the REST status, code and field."""
    return {"status": status, "code": code, "field": field}


class EpisodeUnavailable(McpError):
    """The request's episode cannot be served: raised by every MCP handler of such a request.

    The SDK answers it as a JSON-RPC error carrying the request's id; ``tools/call`` returns its
    message as an ``isError`` result instead.
    """

    def __init__(self, refusal: ServiceError) -> None:
        data = error_data(refusal.status, refusal.code, refusal.field)
        super().__init__(str(refusal), data, code=jsonrpc_code(refusal.status))
        self.refusal = refusal


def no_stream(exc: ServiceError) -> ServiceError:
    """The answer to a GET (the event stream) on an episode that cannot be served: 405, the status by
    which an MCP client learns that the endpoint offers no stream and goes on, with the farm's
    message and code. A 404/410 here raced the client's next request: the Inspector CLI, when the 410
    landed first, never sent ``tools/list`` and printed ``{"tools": []}`` with exit code 0, as if the
    episode had no tools; with 405 it sends it and shows the in-band error."""
    answer = ServiceError(str(exc), field=exc.field)
    answer.status, answer.code = 405, exc.code
    return answer


def answered_in_band(exc: ServiceError, scope: Scope) -> bool:
    """Whether a refusal of this request goes to the MCP server (a POST about its episode)."""
    return scope["method"] == "POST" and isinstance(exc, ANSWERED_IN_BAND)


def as_jsonrpc(status: int, body: bytes) -> bytes | None:
    """The JSON-RPC error for a REST error body, or None when ``body`` is not one."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    error = parsed.get("error") if isinstance(parsed, dict) and "jsonrpc" not in parsed else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return None
    data = error_data(status, error["code"], error.get("field"))
    out = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": jsonrpc_code(status), "message": error.get("message"), "data": data},
    }
    return json.dumps(out).encode()


class JsonRpcErrors:
    """Rewrites the farm's HTTP-level refusals on an MCP endpoint as JSON-RPC errors (see the module)."""

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
