"""A simulated user for ``FarmEnv``: the LLM user simulator (its prompt and reading of replies are
``clients.users.prompt``'s) over the synchronous ``openai`` SDK (``pip install openai``).

With one, a ``FarmEnv`` episode is a conversation: the user opens it, each ``{"message": ...}`` step
goes to the user, who may act on their own side first (dual control: the user's tools, run over the
farm's REST API as the user, their results seen by the user alone) and answers; the episode ends,
and is scored, when the user writes the stop token. Trainers whose loop is a Gymnasium-style
``reset``/``step`` (and OpenEnv, which serves ``FarmEnv``) get a user turn this way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .agents.base import EpisodeContext, LLMSettings
from .errors import AgentError
from .models import EpisodeInfo, TaskView
from .tools import ToolDef, ToolOutcome
from .transcript import Message
from .users.base import UserTurn
from .users.prompt import STOP_TOKEN, simulator_request, simulator_turn, user_view

#: The most tool calls the simulated user may make before it says something (a loop that never
#: speaks is cut there, and the user's turn ends the conversation).
MAX_USER_CALLS_PER_TURN = 12
RunUserTool = Callable[[str, dict[str, Any]], ToolOutcome]


class GymUser:
    """The LLM user simulator, called synchronously; it keeps the episode's conversation.

    Args:
        settings: the simulator's model and endpoint (an OpenAI-compatible chat-completions API).
        run_tool: runs one of the user's own tools in the current episode, as the user.
        stop_token: the text by which the simulated user ends the conversation.
    """

    def __init__(self, settings: LLMSettings, run_tool: RunUserTool, *, stop_token: str = STOP_TOKEN) -> None:
        import openai  # the agents extra: a FarmEnv without a simulated user does without it

        self.settings = settings
        self.run_tool = run_tool
        self.stop_token = stop_token
        self.client = openai.OpenAI(
            api_key=settings.api_key,
            base_url=settings.base_url,
            max_retries=settings.retry.max_attempts - 1,
            timeout=settings.timeout,
        )
        self.ctx: EpisodeContext | None = None
        self.conversation: list[Message] = []  # what was said, and the user's own acts
        self.owns_client = True  # a fork's user shares the SDK client of the one it was forked from

    def begin(self, task: TaskView, info: EpisodeInfo) -> UserTurn:
        """Start the conversation of a new episode: the user's opening message."""
        user_tools = [ToolDef(t.name, t.description, dict(t.input_schema)) for t in info.user_tools or []]
        self.ctx = EpisodeContext(task=task, info=info, tools=[], user_tools=user_tools)
        self.conversation = []
        return self._speak()

    def answer(self, agent_text: str) -> UserTurn:
        """The user's answer to the agent's message (``stop`` when the user is done)."""
        self.conversation.append(Message(role="assistant", content=agent_text))
        return self._speak()

    def agent_said(self) -> str:
        """Everything the agent said, joined: the answer the episode is scored on."""
        return "\n".join(m.content for m in self.conversation if m.role == "assistant" and m.content.strip())

    def forked(self, run_tool: RunUserTool) -> GymUser:
        """The same user and conversation so far, acting in another episode (a fork)."""
        other = GymUser.__new__(GymUser)
        other.__dict__.update(self.__dict__)
        other.run_tool, other.conversation = run_tool, list(self.conversation)
        other.owns_client = False
        return other

    def _speak(self) -> UserTurn:
        """The user's next message, after any acts on their own side (kept in the conversation as the
        user's own, never shown to the agent).

        Raises:
            AgentError: the simulator's API failed.
        """
        assert self.ctx is not None
        for _ in range(MAX_USER_CALLS_PER_TURN + 1):
            request = simulator_request(self.settings, self.ctx, user_view(self.conversation), self.stop_token)
            try:
                response = self.client.chat.completions.create(**request)
            except Exception as exc:
                raise AgentError(f"user simulator ({self.settings.model}) failed: {exc}") from exc
            turn = simulator_turn(response, self.stop_token)
            if not turn.tool_calls:
                if turn.content:
                    self.conversation.append(Message(role="user", content=turn.content))
                return turn
            self.conversation.append(
                Message(role="user", content=turn.content, tool_calls=turn.tool_calls, user_side=True)
            )
            for call in turn.tool_calls:
                if call.arguments is None:
                    outcome = ToolOutcome(f"Invalid arguments for tool '{call.name}': not a JSON object", is_error=True)
                else:
                    outcome = self.run_tool(call.name, call.arguments)
                self.conversation.append(
                    Message.answering(call, outcome.text, is_error=outcome.is_error, user_side=True)
                )
        return UserTurn(stop=True)

    def close(self) -> None:
        """Close the SDK client (a fork's is its source's, closed with it)."""
        if self.owns_client:
            self.client.close()
