"""An agent on any OpenAI-compatible chat-completions API, through the official ``openai`` SDK.

MCP tools become function tools; every tool call in a response (parallel calls included) is run
and answered by a ``tool`` message, tool errors prefixed with ``Error:``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import openai

from ..transcript import Message, ToolCallRequest, Usage
from ._api import call_api
from .base import AgentTurn, EpisodeContext, LLMSettings


def openai_client(settings: LLMSettings) -> openai.AsyncOpenAI:
    """An SDK client whose own retries are off (``clients.retry`` retries and counts them)."""
    return openai.AsyncOpenAI(
        api_key=settings.api_key, base_url=settings.base_url, max_retries=0, timeout=settings.timeout
    )


class OpenAIAgent:
    """Chat completions with tool calling.

    >>> OpenAIAgent(LLMSettings(model="gpt-4o-mini", api_key="EMPTY")).name
    'openai'
    """

    name = "openai"

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.client = openai_client(settings)

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        """One chat completion over the transcript, with the episode's tools."""
        request: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [m.openai() for m in messages],
            "max_tokens": self.settings.max_tokens,
        }
        if ctx.tools:
            request["tools"] = [t.openai() for t in ctx.tools]
        if self.settings.temperature is not None:
            request["temperature"] = self.settings.temperature
        response = await call_api(
            lambda: self.client.chat.completions.create(**request),
            self.settings.retry,
            what=f"chat completion ({self.settings.model})",
        )
        message = response.choices[0].message
        calls = [
            ToolCallRequest.parse(c.id, c.function.name, c.function.arguments)
            for c in message.tool_calls or []
            if c.type == "function"
        ]
        usage = Usage()
        if response.usage is not None:
            usage = Usage(input_tokens=response.usage.prompt_tokens, output_tokens=response.usage.completion_tokens)
        return AgentTurn(content=message.content or "", tool_calls=calls, usage=usage)

    async def aclose(self) -> None:
        """Close the SDK client."""
        await self.client.close()
