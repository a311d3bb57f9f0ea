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
from ..transcript import Message, ToolCallRequest, Usage
from .base import UserTurn

STOP_TOKEN = "###STOP###"
GREETING = "Hi! How can I help you today?"


def user_system_prompt(ctx: EpisodeContext, stop_token: str = STOP_TOKEN) -> str:
    """The simulator's instructions, built from the task's user profile.

    >>> from clients.models import EpisodeInfo, TaskView
    >>> task = TaskView(id="t", env="e", instruction="Cancel order 7")
    >>> ctx = EpisodeContext(task, EpisodeInfo(episode_id="x", env_id="e", mcp_url="u"), [])
    >>> "Cancel order 7" in user_system_prompt(ctx)
    True
    """
    profile = ctx.task.user
    lines = [
        "You are simulating a user who is contacting a customer-service agent. Stay in character.",
        "",
        f"Your goal, in your own words: {ctx.task.instruction}",
    ]
    if profile.persona:
        lines += ["", f"Who you are: {profile.persona}"]
    if profile.known_facts:
        lines += ["", "Facts you know and may share whenever they are useful:"]
        lines += [f"- {f}" for f in profile.known_facts]
    if profile.reveal_if_asked:
        lines += ["", "Facts you share ONLY if the agent asks for them (never volunteer these):"]
        lines += [f"- {f}" for f in profile.reveal_if_asked]
    if profile.behaviour:
        lines += ["", "How you behave in this conversation:"]
        lines += [f"- {b}" for b in profile.behaviour]
    if ctx.user_tools:
        lines += ["", "What you see and can do yourself, with your own tools:", ctx.info.user_guide or ""]
        lines += [
            "- Use your tools only when the agent asks you to do something on your side or to tell what you see;",
            "  then tell the agent, in your own words, what you did and what you saw. Never guess what a check",
            "  would show: run it.",
        ]
    lines += [
        "",
        "Rules:",
        "- Write one short message at a time, as the user; never act as the agent.",
        "- Do not invent facts that are not listed above; if asked for something you do not know, say so.",
        "- Do not give all the details at once: answer what the agent asks.",
        f"- When your goal is met, or the agent cannot help any further, end your message with {stop_token}",
    ]
    return "\n".join(lines)


def user_view(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation from the user's side: agent texts as ``user``, the user's own as ``assistant``,
    and the user's own tool calls and results (dual control) as the user's function calls."""
    view: list[dict[str, Any]] = [{"role": "user", "content": GREETING}]
    for m in messages:
        if m.user_side:  # the user's own tool use, as their model made and saw it
            view.append(Message(role="assistant" if m.role == "user" else m.role, **_rest(m)).openai())
        elif m.role == "user":
            view.append({"role": "assistant", "content": m.content})
        elif m.role == "assistant" and m.content.strip():
            view.append({"role": "user", "content": m.content})
    return view


def _rest(m: Message) -> dict[str, Any]:
    return m.model_dump(include={"content", "tool_calls", "tool_call_id", "name", "is_error"})


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
        request: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [{"role": "system", "content": user_system_prompt(ctx, self.stop_token)}, *view],
            "max_tokens": self.settings.max_tokens,
        }
        if self.settings.temperature is not None:
            request["temperature"] = self.settings.temperature
        if ctx.user_tools:
            request["tools"] = [t.openai() for t in ctx.user_tools]
        response = await call_api(
            lambda: self.client.chat.completions.create(**request),
            self.settings.retry,
            what=f"user simulator ({self.settings.model})",
        )
        message = response.choices[0].message
        text = message.content or ""
        usage = Usage()
        if response.usage is not None:
            usage = Usage(input_tokens=response.usage.prompt_tokens, output_tokens=response.usage.completion_tokens)
        calls = [
            ToolCallRequest.parse(c.id, c.function.name, c.function.arguments)
            for c in message.tool_calls or []
            if c.type == "function"
        ]
        if calls:  # the user acts first; they speak once they have seen what their tools show
            return UserTurn(content=text, tool_calls=calls, usage=usage)
        stop = self.stop_token in text
        return UserTurn(content=text.replace(self.stop_token, "").strip(), stop=stop, usage=usage)

    async def start(self, ctx: EpisodeContext) -> UserTurn:
        """The user's opening message, in answer to a greeting."""
        return await self._say(ctx, user_view([]))

    async def reply(self, ctx: EpisodeContext, messages: Sequence[Message]) -> UserTurn:
        """The user's answer to the agent's latest message."""
        return await self._say(ctx, user_view(messages))

    async def aclose(self) -> None:
        """Close the SDK client."""
        await self.client.close()
