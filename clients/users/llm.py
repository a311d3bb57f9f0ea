"""An LLM user simulator in the style of tau-bench.

An OpenAI-compatible chat model plays the user described by the task's profile: it pursues the
instruction, states ``known_facts`` freely, reveals ``reveal_if_asked`` facts only when the agent
asks for them, and ends the conversation by writing the stop token. It sees the agent's messages,
never its tool calls. Its model may differ from the agent's.

In a dual-control environment (tau2's telecom) the user holds tools of their own: the simulator is
given the user guide (what the user sees and can do) and the user's tools, calls them when the
agent asks it to act or to say what it sees, and reads their results, which the agent never sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..agents._api import call_api
from ..agents.base import EpisodeContext, LLMSettings
from ..agents.openai_agent import openai_client
from ..transcript import Message
from .base import UserTurn
from .prompt import GREETING, STOP_TOKEN, simulator_request, simulator_turn, user_system_prompt, user_view

__all__ = [
    "GREETING",
    "STOP_TOKEN",
    "LLMUser",
    "simulator_request",
    "simulator_turn",
    "user_system_prompt",
    "user_view",
]


class LLMUser:
    """The tau-bench-style user simulator over an OpenAI-compatible chat API.

    Args:
        settings: the simulator's model and endpoint.
        stop_token: the text by which the simulated user ends the conversation.
    """

    name = "llm"

    def __init__(self, settings: LLMSettings, *, stop_token: str = STOP_TOKEN) -> None:
        self.settings = settings
        self.stop_token = stop_token
        self.client = openai_client(settings)

    async def _say(self, ctx: EpisodeContext, view: list[dict[str, Any]]) -> UserTurn:
        request = simulator_request(self.settings, ctx, view, self.stop_token)
        response = await call_api(
            lambda: self.client.chat.completions.create(**request),
            self.settings.retry,
            what=f"user simulator ({self.settings.model})",
        )
        return simulator_turn(response, self.stop_token)

    async def start(self, ctx: EpisodeContext) -> UserTurn:
        """The user's opening message, in answer to a greeting."""
        return await self._say(ctx, user_view([]))

    async def reply(self, ctx: EpisodeContext, messages: Sequence[Message]) -> UserTurn:
        """The user's answer to the agent's latest message."""
        return await self._say(ctx, user_view(messages))

    async def aclose(self) -> None:
        """Close the SDK client."""
        await self.client.close()
