"""The agent contract: given the episode and the conversation so far, produce the next turn.

An agent is stateless across episodes: everything it needs comes in the ``EpisodeContext`` and the
transcript, so one agent object serves many concurrent trials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel

from ..models import EpisodeInfo, TaskView
from ..retry import RetryPolicy
from ..tools import ToolDef
from ..transcript import Message, ToolCallRequest, Usage


@dataclass(frozen=True)
class EpisodeContext:
    """What an agent (or user simulator) knows about the episode it is in.

    Attributes:
        task: the task as the task service showed it (with gold actions for admin keys).
        info: the created episode (id, policy, instruction).
        tools: the episode's tools, from MCP ``tools/list``.
        user_tools: in a dual-control environment, the user's own tools (from the user's endpoint),
            which the user simulator calls; empty where only the agent acts.
    """

    task: TaskView
    info: EpisodeInfo
    tools: list[ToolDef]
    user_tools: list[ToolDef] = field(default_factory=list)

    @property
    def policy(self) -> str:
        """The environment's policy: the agent's system prompt."""
        return self.info.policy


class AgentTurn(BaseModel):
    """One agent response: text, and tool calls to run (none means the agent is answering)."""

    content: str = ""
    tool_calls: list[ToolCallRequest] = []
    usage: Usage = Usage()


@dataclass(frozen=True)
class LLMSettings:
    """How to reach a model.

    Attributes:
        model: the model name the API expects.
        api_key: the key (``EMPTY`` for servers that need none).
        base_url: the API's base URL (None for the vendor default).
        retry: retries of transient API errors (the SDK's own retries are off).
        timeout: seconds per request.
        max_tokens: the most tokens one response may have.
        temperature: sampling temperature (None: the API default).
    """

    model: str
    api_key: str
    base_url: str | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: float = 120.0
    max_tokens: int = 4096
    temperature: float | None = None


class Agent(Protocol):
    """An agent: ``act`` returns the next turn for the conversation so far."""

    name: str

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        """The next turn. ``messages`` starts with the system prompt (the policy) and the user's message."""
        ...

    async def aclose(self) -> None:
        """Release API clients."""
        ...
