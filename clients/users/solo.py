"""``solo``: the instruction is the whole user side; the episode ends at the agent's first answer."""

from __future__ import annotations

from collections.abc import Sequence

from ..agents.base import EpisodeContext
from ..transcript import Message
from .base import UserTurn


class SoloUser:
    """Gives the task's instruction up front and never speaks again.

    >>> SoloUser().name
    'solo'
    """

    name = "solo"

    async def start(self, ctx: EpisodeContext) -> UserTurn:
        """The task's instruction."""
        return UserTurn(content=ctx.info.instruction or ctx.task.instruction)

    async def reply(self, ctx: EpisodeContext, messages: Sequence[Message]) -> UserTurn:
        """The agent answered: the episode is over."""
        return UserTurn(stop=True)

    async def aclose(self) -> None:
        """Nothing to release."""
