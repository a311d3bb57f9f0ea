"""The user side of an episode: who says the first message and answers the agent's replies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel

from ..agents.base import EpisodeContext
from ..transcript import Message, Usage


class UserTurn(BaseModel):
    """A user message; ``stop`` ends the conversation (after ``content``, if any)."""

    content: str = ""
    stop: bool = False
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
