"""The oracle: replays a task's gold actions through MCP, then gives the task's reference answer.

It needs the admin view of the task (gold actions and outputs). Every task should score 1.0 with
it: a failure points at the catalog, the server or the MCP path, not at a model.

In a dual-control environment some gold actions are the user's: the oracle agent asks the user to
take them (one message per run of consecutive user actions), and the oracle user
(``clients.users.oracle``) takes them at the user's endpoint; together they replay the gold across
both sides, in its order.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from ..errors import AgentError
from ..models import TaskView
from ..transcript import Message, ToolCallRequest
from ..wire import ToolCall
from .base import AgentTurn, EpisodeContext

#: One step of the gold as the oracle agent takes it: an agent action, or a run of user actions.
Step = ToolCall | list[ToolCall]


def gold_steps(task: TaskView, offered: Collection[str] | None = None) -> list[Step]:
    """The task's gold actions as the agent's turns: each agent action alone, each run of consecutive
    user actions as one request to the user. With ``offered``, the agent's actions with a tool not in it
    are left out (the document tools of an episode given its documents in the prompt).

    Raises:
        AgentError: the task view holds no gold actions (a non-admin key).
    """
    if task.gold_actions is None:
        raise AgentError(
            f"the oracle needs the gold actions of task {task.id}: the task service hides them from "
            "non-admin keys (use an admin key)"
        )
    steps: list[Step] = []
    for action in task.gold_actions:
        if action.actor != "user" and offered is not None and action.tool not in offered:
            continue
        if action.actor != "user":
            steps.append(action)
        elif steps and isinstance(steps[-1], list):
            steps[-1].append(action)
        else:
            steps.append([action])
    return steps


def gold_call(action: ToolCall, call_id: str) -> ToolCallRequest:
    """A gold action as the tool call a model would have made."""
    return ToolCallRequest(
        id=call_id,
        name=action.tool,
        arguments=dict(action.arguments),
        raw_arguments=json.dumps(action.arguments, ensure_ascii=False),
    )


def ask_user(actions: list[ToolCall]) -> str:
    """The oracle agent's request that the user take ``actions`` on their own side."""
    wanted = "; ".join(f"{a.tool} {json.dumps(a.arguments, ensure_ascii=False)}" for a in actions)
    return f"Please do this on your side, then tell me when it is done: {wanted}"


class OracleAgent:
    """Calls the gold actions one per turn, in order (asking the user to take theirs); then gives the
    reference answer (or the required outputs, one per line, for a task without one).

    >>> OracleAgent().name
    'oracle'
    """

    name = "oracle"

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        """The next gold step, or the final answer once all have been taken."""
        steps = gold_steps(ctx.task, {t.name for t in ctx.tools} or None)  # no tools listed: none withheld
        done = sum(1 for m in messages if m.role == "assistant")
        if done >= len(steps):
            return AgentTurn(content=ctx.task.reference_answer)
        step = steps[done]
        if isinstance(step, list):
            return AgentTurn(content=ask_user(step))
        return AgentTurn(tool_calls=[gold_call(step, f"oracle_{done}")])

    async def aclose(self) -> None:
        """Nothing to release."""
