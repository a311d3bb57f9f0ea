"""The oracle: replays a task's gold actions through MCP, then gives the task's reference answer.

It needs the admin view of the task (gold actions and outputs). Every task should score 1.0 with
it: a failure points at the catalog, the server or the MCP path, not at a model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..errors import AgentError
from ..transcript import Message, ToolCallRequest
from .base import AgentTurn, EpisodeContext


class OracleAgent:
    """Calls the gold actions one per turn, in order; then gives the reference answer (or the
    required outputs, one per line, for a task without one).

    >>> OracleAgent().name
    'oracle'
    """

    name = "oracle"

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        """The next gold action, or the final answer once all have been called."""
        gold = ctx.task.gold_actions
        if gold is None:
            raise AgentError(
                f"the oracle needs the gold actions of task {ctx.task.id}: the task service hides them from "
                "non-admin keys (use an admin key)"
            )
        done = sum(len(m.tool_calls) for m in messages if m.role == "assistant")
        if done < len(gold):
            action = gold[done]
            call = ToolCallRequest(
                id=f"oracle_{done}",
                name=action.tool,
                arguments=dict(action.arguments),
                raw_arguments=json.dumps(action.arguments, ensure_ascii=False),
            )
            return AgentTurn(tool_calls=[call])
        return AgentTurn(content=ctx.task.reference_answer)

    async def aclose(self) -> None:
        """Nothing to release."""
