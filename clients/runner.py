"""The episode loop: user and agent take turns, tool calls run through MCP, the end state is scored.

One trial: open an episode (REST) and its MCP session; the user side opens the conversation; the
agent answers with tool calls (each run over MCP and answered by a tool message) or with text
(the user side replies or ends the conversation). In a dual-control environment the user may act
on their own side before speaking: their tool calls run at the user's MCP endpoint, and only the
user sees their results. ``max_turns`` bounds agent responses and
``max_tool_calls`` bounds tool calls: a run cut off by either is marked *truncated* and scored
as it stands. The answer scored against the required outputs is every agent text, joined.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .agents.base import Agent, EpisodeContext
from .farm import FarmClient
from .models import TaskView
from .records import Latency, Tokens, ToolCallRecord, TrialRecord
from .retry import classify, retry_hook
from .session import EpisodeSession, open_episode
from .tools import ToolOutcome
from .transcript import Message, ToolCallRequest, agent_view, openai_messages
from .users.base import UserSimulator, UserTurn


@dataclass(frozen=True)
class Limits:
    """Bounds of one episode.

    Attributes:
        max_turns: the most agent responses (model calls).
        max_tool_calls: the most tool calls.
    """

    max_turns: int = 30
    max_tool_calls: int = 50


@dataclass
class _Trial:
    record: TrialRecord
    messages: list[Message]

    def retried(self, exc: BaseException, delay: float) -> None:
        self.record.retries += 1


async def _run_call(ep: EpisodeSession, call: ToolCallRequest, actor: str) -> ToolOutcome:
    if call.arguments is None:
        return ToolOutcome(
            f"Invalid arguments for tool '{call.name}': expected a JSON object, got {call.raw_arguments[:200]!r}",
            is_error=True,
        )
    return await ep.call_tool(call.name, call.arguments, actor=actor)


async def _run_calls(
    ep: EpisodeSession, calls: list[ToolCallRequest], t: _Trial, limits: Limits, *, actor: str = "agent"
) -> None:
    """Run ``actor``'s tool calls, each recorded and answered by a tool message (the user's seen by the
    user alone). One budget of tool calls bounds both actors."""
    rec, messages = t.record, t.messages
    for call in calls:
        if len(rec.tool_calls) >= limits.max_tool_calls:
            rec.truncated = True
            outcome = ToolOutcome(
                f"Not run: the episode's budget of {limits.max_tool_calls} tool calls is spent", is_error=True
            )
        else:
            clock = time.perf_counter()
            outcome = await _run_call(ep, call, actor)
            elapsed = time.perf_counter() - clock
            rec.latency.tools_s += elapsed
            rec.tool_calls.append(
                ToolCallRecord(
                    id=call.id,
                    tool=call.name,
                    arguments=call.arguments,
                    raw_arguments=call.raw_arguments,
                    is_error=outcome.is_error,
                    result=outcome.text,
                    turn=rec.turns,
                    latency_ms=round(elapsed * 1000, 3),
                    actor="user" if actor == "user" else "agent",
                )
            )
        messages.append(Message.answering(call, outcome.text, is_error=outcome.is_error, user_side=actor == "user"))


async def _user_speaks(
    ep: EpisodeSession, ctx: EpisodeContext, user: UserSimulator, t: _Trial, limits: Limits, *, first: bool
) -> UserTurn:
    """The user's next message to the agent. A user who acts on their own side first (dual control)
    has those calls run and is asked again, seeing their results, until they speak."""
    rec = t.record
    asked_again = False
    while True:
        clock = time.perf_counter()
        turn = await (user.start(ctx) if first and not asked_again else user.reply(ctx, t.messages))
        rec.latency.user_s += time.perf_counter() - clock
        rec.tokens.user_input += turn.usage.input_tokens
        rec.tokens.user_output += turn.usage.output_tokens
        if not turn.tool_calls:
            return turn
        t.messages.append(Message(role="user", content=turn.content, tool_calls=turn.tool_calls, user_side=True))
        await _run_calls(ep, turn.tool_calls, t, limits, actor="user")
        if rec.truncated:
            return UserTurn(stop=True)
        asked_again = True


async def _converse(
    ep: EpisodeSession, ctx: EpisodeContext, agent: Agent, user: UserSimulator, t: _Trial, limits: Limits
) -> None:
    rec, messages = t.record, t.messages
    first = await _user_speaks(ep, ctx, user, t, limits, first=True)
    if first.content:
        messages.append(Message(role="user", content=first.content))
    if first.stop:  # the simulated user had nothing to ask
        rec.terminated = not rec.truncated
        return
    while True:
        if rec.turns >= limits.max_turns:
            rec.truncated = True
            return
        clock = time.perf_counter()
        turn = await agent.act(ctx, agent_view(messages))
        rec.latency.agent_s += time.perf_counter() - clock
        rec.turns += 1
        rec.tokens.agent_input += turn.usage.input_tokens
        rec.tokens.agent_output += turn.usage.output_tokens
        messages.append(Message(role="assistant", content=turn.content, tool_calls=turn.tool_calls))
        if turn.tool_calls:
            await _run_calls(ep, turn.tool_calls, t, limits)
            if rec.truncated:
                return
            continue
        reply = await _user_speaks(ep, ctx, user, t, limits, first=False)
        if reply.content:
            messages.append(Message(role="user", content=reply.content))
        if reply.stop:
            rec.terminated = not rec.truncated
            return


async def run_trial(
    farm: FarmClient,
    task: TaskView,
    agent: Agent,
    user: UserSimulator,
    *,
    trial: int = 0,
    limits: Limits = Limits(),
    sector: str = "",
    model: str | None = None,
    user_model: str | None = None,
    knowledge: str | None = None,
) -> TrialRecord:
    """Run one trial of ``task`` and return its record. Never raises for agent or server failures:
    they are classified in the record (``error_class``).

    >>> record = await run_trial(farm, task, OracleAgent(), SoloUser())  # doctest: +SKIP
    """
    started = time.time()
    record = TrialRecord(
        task_id=task.id,
        env_id=task.env,
        sector=sector,
        difficulty=task.difficulty,
        trial=trial,
        agent=agent.name,
        model=model,
        user=user.name,
        user_model=user_model,
        tokens=Tokens(),
        latency=Latency(),
        started_at=started,
    )
    t = _Trial(record, [])
    hook = retry_hook.set(t.retried)
    try:
        async with open_episode(farm, task_id=task.id, knowledge=knowledge) as ep:
            record.episode_id = ep.episode_id
            ctx = EpisodeContext(
                task=task, info=ep.info, tools=await ep.list_tools(), user_tools=await ep.list_tools(actor="user")
            )
            t.messages.append(Message(role="system", content=ctx.policy))
            try:
                await _converse(ep, ctx, agent, user, t, limits)
            except Exception as exc:
                _set_error(record, exc)
            if record.error_class != "infra":  # an agent failure is scored on the state it left
                record.answer = "\n".join(m.content for m in t.messages if m.role == "assistant" and m.content.strip())
                clock = time.perf_counter()
                score = await ep.score(record.answer)
                record.latency.score_s = time.perf_counter() - clock
                record.score, record.reward, record.partial_credit = score, score.reward, score.partial_credit
                record.diff = score.explain().splitlines()[1:]
    except Exception as exc:  # opening, listing tools or scoring failed: the trial cannot count
        _set_error(record, exc)
    finally:
        retry_hook.reset(hook)
    # As the agent saw it (the user's own tool use is in ``tool_calls``, actor "user"); names help
    # open models' chat templates.
    record.messages = openai_messages(agent_view(t.messages), tool_names=True)
    record.finished_at = time.time()
    record.latency.total_s = record.finished_at - started
    return record


def _set_error(record: TrialRecord, exc: BaseException) -> None:
    exc = _innermost(exc)
    record.error_class = classify(exc)
    record.error_type = type(exc).__name__
    record.error = " ".join(str(exc).split())[:500] or repr(exc)
    if record.error_class == "infra":
        record.score = record.reward = record.partial_credit = None


def _innermost(exc: BaseException) -> BaseException:
    """The one error inside a group of one (the MCP client's task groups wrap what failed), so a record
    names it rather than "unhandled errors in a TaskGroup"."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
