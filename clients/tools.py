"""Tool definitions as the LLM APIs want them, converted from MCP ``tools/list`` results.

MCP tools carry a name, a description and a JSON Schema of their arguments; OpenAI's chat
completions want ``{"type": "function", "function": {name, description, parameters}}`` and
Anthropic's Messages API wants ``{name, description, input_schema}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the mcp extra; these definitions are used without it too (REST episodes)
    from mcp.types import CallToolResult, Tool


@dataclass(frozen=True)
class ToolDef:
    """One tool an agent may call.

    >>> ToolDef("ping", "Check liveness").openai()["function"]["name"]
    'ping'
    """

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    @classmethod
    def from_mcp(cls, tool: Tool) -> ToolDef:
        """From an MCP ``Tool`` (``tools/list``)."""
        return cls(name=tool.name, description=tool.description or "", input_schema=dict(tool.input_schema))

    def openai(self) -> dict[str, Any]:
        """As an OpenAI chat-completions function tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema},
        }

    def anthropic(self) -> dict[str, Any]:
        """As an Anthropic Messages API tool."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call returned: the text the agent sees, whether it is an error, structured content."""

    text: str
    is_error: bool = False
    structured: Any = None

    @classmethod
    def from_mcp(cls, result: CallToolResult) -> ToolOutcome:
        """From an MCP ``CallToolResult`` (text parts joined; ``isError`` kept)."""
        parts = [c.text for c in result.content if c.type == "text"]
        text = "\n".join(parts)
        if not text and result.structured_content is not None:
            text = json.dumps(result.structured_content, ensure_ascii=False, default=str)
        return cls(text=text, is_error=bool(result.is_error), structured=result.structured_content)
