"""What the LLM user simulator is told and how its replies are read, apart from any SDK: its system
prompt (the task's user profile, and in dual control the user guide and tools), the conversation
from its side, the request of its next turn and the turn read from a chat completion. The async
simulator (``clients.users.llm``) and the synchronous one of ``FarmEnv`` (``clients.gym_user``) share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..agents.base import EpisodeContext, LLMSettings
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


def simulator_request(
    settings: LLMSettings, ctx: EpisodeContext, view: list[dict[str, Any]], stop_token: str
) -> dict[str, Any]:
    """The chat-completions request of the simulator's next turn (with the user's own tools, if any)."""
    request: dict[str, Any] = {
        "model": settings.model,
        "messages": [{"role": "system", "content": user_system_prompt(ctx, stop_token)}, *view],
        "max_tokens": settings.max_tokens,
    }
    if settings.temperature is not None:
        request["temperature"] = settings.temperature
    if ctx.user_tools:
        request["tools"] = [t.openai() for t in ctx.user_tools]
    return request


def simulator_turn(response: Any, stop_token: str) -> UserTurn:
    """The simulator's turn from a chat completion: its tool calls (it acts first and speaks once it
    has seen what they show), or its message, ``stop`` when it wrote the stop token."""
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
    if calls:
        return UserTurn(content=text, tool_calls=calls, usage=usage)
    stop = stop_token in text
    return UserTurn(content=text.replace(stop_token, "").strip(), stop=stop, usage=usage)
