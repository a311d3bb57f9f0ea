"""A fake OpenAI-compatible chat API for the LLM backend's tests: real HTTP, scripted answers.

A Starlette app serves ``POST /v1/chat/completions`` under uvicorn on a free loopback port in a
background thread. Each request pops the next scripted :class:`Reply` (an answer, or an HTTP error) and
is recorded, so tests can assert what the real ``openai`` SDK sent.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


@dataclass
class Reply:
    """One scripted response: the assistant's ``content``, or an error with HTTP ``status``."""

    content: str | Callable[[dict[str, Any]], str] = ""  # or computed from the request body
    status: int = 200
    error: str = "scripted failure"


class FakeLLM:
    """The fake server. ``reject_response_format`` answers 400 to requests that set ``response_format``."""

    def __init__(self, *, reject_response_format: bool = False) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.reject_response_format = reject_response_format
        app = Starlette(routes=[Route("/v1/chat/completions", self._completions, methods=["POST"])])
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", ws="none", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name=f"fake-llm-{self.port}", daemon=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._server.serve())
        finally:
            loop.close()

    def script(self, *replies: Reply | str) -> None:
        """Queue replies; a plain string is a successful answer with that content."""
        self.replies.extend(r if isinstance(r, Reply) else Reply(content=r) for r in replies)

    async def _completions(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.requests.append(body)
        if self.reject_response_format and "response_format" in body:
            return _error(400, "response_format is not supported by this server", "invalid_request_error")
        if not self.replies:
            return _error(500, "the fake LLM has no scripted reply left", "server_error")
        reply = self.replies.popleft()
        if reply.status != 200:
            return _error(reply.status, reply.error, "server_error" if reply.status >= 500 else "invalid_request_error")
        content = reply.content(body) if callable(reply.content) else reply.content
        return JSONResponse(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    def start(self) -> FakeLLM:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the fake LLM server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "param": None, "code": None}}, status_code=status)
