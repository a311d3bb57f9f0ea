"""An agent on Anthropic's Messages API (tool use), through the official ``anthropic`` SDK.

The transcript is rendered as alternating user/assistant turns: tool calls become ``tool_use``
blocks and tool results ``tool_result`` blocks (with ``is_error``) in the next user turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from ..transcript import Message, ToolCallRequest, Usage
from ._api import call_api
from .base import AgentTurn, EpisodeContext, LLMSettings


def anthropic_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt and the Messages API turns for a transcript.

    >>> anthropic_messages([Message(role="system", content="Be brief"), Message(role="user", content="hi")])
    ('Be brief', [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}])
    """
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for m in messages:
        if m.role == "user":
            add("user", [{"type": "text", "text": m.content or "(no message)"}])
        elif m.role == "tool":
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": m.tool_call_id,
                "content": m.content or "(empty result)",
            }
            if m.is_error:
                block["is_error"] = True
            add("user", [block])
        elif m.role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments or {}} for c in m.tool_calls
            ]
            add("assistant", blocks or [{"type": "text", "text": "(no response)"}])
    return system, turns


class AnthropicAgent:
    """Messages API with tool use.

    >>> AnthropicAgent(LLMSettings(model="claude-sonnet-4-5", api_key="x")).name
    'anthropic'
    """

    name = "anthropic"

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.client = anthropic.AsyncAnthropic(
            api_key=settings.api_key, base_url=settings.base_url, max_retries=0, timeout=settings.timeout
        )

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        """One Messages API call over the transcript, with the episode's tools."""
        system, turns = anthropic_messages(messages)
        request: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens,
            "messages": turns,
        }
        if system:
            request["system"] = system
        if ctx.tools:
            request["tools"] = [t.anthropic() for t in ctx.tools]
        response = await call_api(
            lambda: self.client.messages.create(**request),
            self.settings.retry,
            what=f"messages ({self.settings.model})",
        )
        texts: list[str] = []
        calls: list[ToolCallRequest] = []
        for block in response.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCallRequest.parse(block.id, block.name, dict(block.input)))
        usage = Usage(input_tokens=response.usage.input_tokens, output_tokens=response.usage.output_tokens)
        return AgentTurn(content="\n".join(texts), tool_calls=calls, usage=usage)

    async def aclose(self) -> None:
        """Close the SDK client."""
        await self.client.close()
