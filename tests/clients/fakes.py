"""Fake LLM APIs for the client tests: a Starlette app under uvicorn on loopback, in a thread.

It implements just ``POST /v1/chat/completions`` (OpenAI-compatible) and ``POST /v1/messages``
(Anthropic) with scripted responses, so the agents are driven through the real ``openai`` and
``anthropic`` SDKs over real HTTP; and ``POST /v1/embeddings``, whose vectors are the toy model's of
``tests/envs/embeddings/toy.py`` over ``concepts``.

Scripts are stateless with respect to concurrency: a request picks its script by a key that
appears in its messages (a task's instruction, say), and its step by how many assistant messages
the request already holds. Faults (HTTP statuses) are served, in order, before any script reply.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from envfarm.embedded import free_port

from ..envs.embeddings.toy import concept_vector

USER_SIM_MARKER = "You are simulating a user"


@dataclass
class Reply:
    """One scripted model response: text and/or tool calls (``arguments`` may be a raw, broken string)."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)


def say(text: str) -> Reply:
    return Reply(text=text)


def call(*calls: tuple[str, dict[str, Any] | str], text: str = "") -> Reply:
    return Reply(text=text, calls=list(calls))


@dataclass
class Fault:
    status: int
    headers: dict[str, str] = field(default_factory=dict)


class FakeLLM:
    """Scripted OpenAI- and Anthropic-compatible endpoints."""

    def __init__(self) -> None:
        self.agent_scripts: dict[str, list[Reply]] = {}
        self.user_scripts: dict[str, list[str | Reply]] = {}
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.concepts: list[set[str]] = []
        self.lock = threading.Lock()
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/messages", self.messages, methods=["POST"]),
                Route("/v1/embeddings", self.embeddings, methods=["POST"]),
            ]
        )
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.anthropic_url = f"http://127.0.0.1:{self.port}"
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", ws="none", lifespan="off")
        )
        self._thread = threading.Thread(target=lambda: asyncio.run(self._server.serve()), daemon=True)

    # -- control --------------------------------------------------------------------------------------
    def start(self) -> FakeLLM:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            assert time.monotonic() < deadline, "fake LLM server did not start"
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)

    def reset(self) -> None:
        with self.lock:
            self.agent_scripts.clear()
            self.user_scripts.clear()
            self.faults.clear()
            self.requests.clear()
            self.concepts = []

    def script(self, key: str, *replies: Reply) -> None:
        """The agent's replies in conversations whose messages contain ``key``."""
        self.agent_scripts[key] = list(replies)

    def user_script(self, key: str, *texts: str | Reply) -> None:
        """The simulated user's messages in conversations whose system prompt contains ``key`` (a
        ``Reply`` with calls: the user calls tools of their own, in dual control)."""
        self.user_scripts[key] = list(texts)

    def fail(self, *statuses: int, retry_after: str | None = None) -> None:
        """Answer the next requests with these HTTP statuses (before any scripted reply)."""
        headers = {"retry-after": retry_after} if retry_after is not None else {}
        self.faults += [Fault(s, dict(headers)) for s in statuses]

    def calls_to(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body in self.requests if p == path]

    # -- serving --------------------------------------------------------------------------------------
    async def embeddings(self, request: Request) -> JSONResponse:
        body = await request.json()
        with self.lock:
            self.requests.append(("/v1/embeddings", body))
        if (fault := self._fault()) is not None:
            return fault
        texts = [body["input"]] if isinstance(body["input"], str) else list(body["input"])
        if any(not t for t in texts):
            return JSONResponse({"error": {"message": "input must not be empty", "type": "invalid_request"}}, 400)
        data = [
            {"object": "embedding", "index": i, "embedding": concept_vector(t, self.concepts)}
            for i, t in enumerate(texts)
        ]
        usage = {"prompt_tokens": 0, "total_tokens": 0}
        return JSONResponse({"object": "list", "data": data, "model": body.get("model", ""), "usage": usage})

    def _fault(self) -> JSONResponse | None:
        with self.lock:
            fault = self.faults.pop(0) if self.faults else None
        if fault is None:
            return None
        body = {"error": {"message": f"scripted fault {fault.status}", "type": "server_error"}}
        return JSONResponse(body, status_code=fault.status, headers=fault.headers)

    @staticmethod
    def _text_of(messages: list[dict[str, Any]], system: Any = "") -> str:
        parts = [json.dumps(system)] + [json.dumps(m.get("content")) for m in messages]
        return "\n".join(parts)

    def _agent_reply(self, text: str, step: int) -> Reply:
        for key, replies in self.agent_scripts.items():
            if key in text:
                return replies[step] if step < len(replies) else Reply(text="I have nothing more to add.")
        return Reply(text="I cannot help with that.")

    def _user_reply(self, text: str, step: int) -> Reply:
        for key, lines in self.user_scripts.items():
            if key in text:
                line = lines[step] if step < len(lines) else "Thanks, bye. ###STOP###"
                return line if isinstance(line, Reply) else Reply(text=line)
        return Reply(text="###STOP###")

    async def chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        with self.lock:
            self.requests.append(("chat", body))
        if (fault := self._fault()) is not None:
            return fault
        messages = body["messages"]
        step = sum(m["role"] == "assistant" for m in messages)
        text = self._text_of(messages)
        usage = {"prompt_tokens": 100 + len(messages), "completion_tokens": 10, "total_tokens": 110 + len(messages)}
        simulated_user = messages and messages[0]["role"] == "system" and USER_SIM_MARKER in messages[0]["content"]
        reply = self._user_reply(text, step) if simulated_user else self._agent_reply(text, step)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{step}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
                }
                for i, (name, args) in enumerate(reply.calls)
            ]
        finish = "tool_calls" if reply.calls else "stop"
        if body.get("stream"):
            return self._chat_stream(body["model"], step, message, finish, usage)
        return JSONResponse(
            {
                "id": f"chatcmpl-{step}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": usage,
            }
        )

    @staticmethod
    def _chat_stream(
        model: str, step: int, message: dict[str, Any], finish: str, usage: dict[str, int]
    ) -> StreamingResponse:
        """The same reply as chat-completion chunks over SSE (``"stream": true``): one delta with the whole
        message, one with the finish reason and usage, then ``[DONE]``."""
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": i, **c} for i, c in enumerate(message["tool_calls"])]
        head = {"id": f"chatcmpl-{step}", "object": "chat.completion.chunk", "created": 0, "model": model}
        chunks = [
            head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            head | {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
        ]
        events = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return StreamingResponse(iter([events.encode()]), media_type="text/event-stream")

    async def messages(self, request: Request) -> JSONResponse:
        body = await request.json()
        with self.lock:
            self.requests.append(("messages", body))
        if (fault := self._fault()) is not None:
            return fault
        messages = body["messages"]
        step = sum(m["role"] == "assistant" for m in messages)
        reply = self._agent_reply(self._text_of(messages, body.get("system", "")), step)
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        for i, (name, args) in enumerate(reply.calls):
            assert isinstance(args, dict), "Anthropic tool_use input is always an object"
            content.append({"type": "tool_use", "id": f"toolu_{step}_{i}", "name": name, "input": args})
        return JSONResponse(
            {
                "id": f"msg_{step}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": "tool_use" if reply.calls else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 200 + len(messages), "output_tokens": 20},
            }
        )
