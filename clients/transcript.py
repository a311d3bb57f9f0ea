"""The conversation of one episode, kept in one API-neutral form and rendered per API.

The runner owns the transcript; agents translate it to their API on every turn (OpenAI chat
messages, Anthropic content blocks). Trial records and SFT exports store the OpenAI rendering.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

ERROR_PREFIX = "Error: "


class Usage(BaseModel):
    """Tokens one or more model calls used."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens, output_tokens=self.output_tokens + other.output_tokens
        )


class ToolCallRequest(BaseModel):
    """A tool call the agent asked for.

    Attributes:
        id: the API's call id (tool results refer to it).
        name: the tool name, as the model wrote it (it may not exist).
        arguments: the parsed arguments, or None when they were not a JSON object.
        raw_arguments: the arguments as the model wrote them (a JSON string).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    arguments: dict[str, Any] | None = None
    raw_arguments: str = "{}"

    @classmethod
    def parse(cls, call_id: str, name: str, raw: str | dict[str, Any] | None) -> ToolCallRequest:
        """From raw arguments (a JSON string or an object); bad JSON leaves ``arguments`` None.

        >>> ToolCallRequest.parse("c1", "f", '{"a": 1}').arguments
        {'a': 1}
        >>> ToolCallRequest.parse("c2", "f", '{"a": ').arguments is None
        True
        """
        if isinstance(raw, dict):
            return cls(id=call_id, name=name, arguments=raw, raw_arguments=json.dumps(raw, ensure_ascii=False))
        text = raw if raw is not None and raw.strip() else "{}"
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        return cls(id=call_id, name=name, arguments=value if isinstance(value, dict) else None, raw_arguments=text)


class Message(BaseModel):
    """One message of the conversation.

    ``tool`` messages answer one ``ToolCallRequest`` (``tool_call_id``) and say whether the tool failed.
    """

    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCallRequest] = []
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    #: Part of the user's own tool use (dual control): the user's call (a ``user`` message with
    #: ``tool_calls``) or its result. The agent never sees these (``agent_view``).
    user_side: bool = False

    @classmethod
    def answering(cls, call: ToolCallRequest, text: str, *, is_error: bool, user_side: bool = False) -> Message:
        """The ``tool`` message that answers ``call`` (the user's own, with ``user_side``)."""
        return cls(
            role="tool", content=text, tool_call_id=call.id, name=call.name, is_error=is_error, user_side=user_side
        )

    def openai(self, *, tool_names: bool = False) -> dict[str, Any]:
        """As an OpenAI chat-completions message (tool errors are prefixed with ``Error: ``).

        Args:
            tool_names: add the tool's ``name`` to tool messages (chat templates of open models use it;
                the OpenAI API does not take it).
        """
        if self.role == "tool":
            text = ERROR_PREFIX + self.content if self.is_error else self.content
            out: dict[str, Any] = {"role": "tool", "tool_call_id": self.tool_call_id, "content": text}
            if tool_names:
                out["name"] = self.name
            return out
        message: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
                for c in self.tool_calls
            ]
        return message


def agent_view(messages: Sequence[Message]) -> list[Message]:
    """The conversation as the agent sees it: without the user's own tool use."""
    return [m for m in messages if not m.user_side]


def openai_messages(messages: list[Message], *, tool_names: bool = False) -> list[dict[str, Any]]:
    """The transcript as OpenAI chat-completions messages."""
    return [m.openai(tool_names=tool_names) for m in messages]
