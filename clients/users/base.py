"""The user side of an episode: who says the first message and answers the agent's replies, and, in a
dual-control environment, acts on their own side with tools of their own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel

from ..agents.base import EpisodeContext
from ..transcript import Message, ToolCallRequest, Usage


class UserTurn(BaseModel):
    """A user message; ``stop`` ends the conversation (after ``content``, if any). ``tool_calls``: the
    user acts on their own side first (dual control); the runner runs them at the user's endpoint,
    shows the user the results (never the agent) and asks the user again."""

    content: str = ""
    stop: bool = False
    tool_calls: list[ToolCallRequest] = []
    usage: Usage = Usage()


class UserSimulator(Protocol):
    """Plays the user: opens the conversation and replies whenever the agent answers without tools."""

    name: str

    async def start(self, ctx: EpisodeContext) -> UserTurn:
        """The user's first message."""
        ...

    async def reply(self, ctx: EpisodeContext, messages: Sequence[Message]) -> UserTurn:
        """The user's answer to the agent's latest message (``stop`` to end the conversation)."""
        ...

    async def aclose(self) -> None:
        """Release API clients."""
        ...
