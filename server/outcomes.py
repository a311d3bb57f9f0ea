"""What a tool call produced, and a result's JSON text, as every server transport sends it.

Kept apart from the store and the episode service so that ``envfarm mcp`` (stdio) loads neither
SQLAlchemy nor the service before it answers ``initialize``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


@dataclass
class CallOutcome:
    """What a tool call produced: content on success, or an error type and message for the agent."""

    seq: int
    content: Any = None
    is_error: bool = False
    error_type: str | None = None
    message: str | None = None
    duration_ms: float = 0.0
    text: str | None = None  # ``content`` as JSON, when already serialized
    arguments_json: str | None = None  # the arguments as logged


_RESULT_JSON = json.JSONEncoder(ensure_ascii=False, default=str)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def served(value: Any) -> tuple[Any, str]:
    """A tool result as sent and logged: (the value, its JSON text). The logged ``result`` column
    and the MCP text content are this same text. A lone surrogate (JSON a query returned can hold
    one) becomes U+FFFD in both: neither the store nor the wire can carry it."""
    text = _RESULT_JSON.encode(value)
    if text.isascii() or not _LONE_SURROGATE.search(text):
        return value, text
    text = _LONE_SURROGATE.sub("\ufffd", text)
    return json.loads(text), text


def result_text(value: Any) -> str:
    """A tool result's JSON text (see ``served``)."""
    return served(value)[1]
