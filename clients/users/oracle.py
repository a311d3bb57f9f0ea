"""``oracle``: the user half of the oracle pair. It gives the instruction, takes the gold's user actions
(dual control) when the oracle agent asks for them, and ends the conversation at the agent's answer.

Where only the agent acts it is the ``solo`` user: the instruction, then the end at the first answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..agents.base import EpisodeContext
from ..agents.oracle import gold_steps
from ..transcript import Message, ToolCallRequest
from .base import UserTurn


class OracleUser:
    """Takes the user's gold actions, one per turn, in the order the agent asked for them.

    >>> OracleUser().name
    'oracle'
    """

    name = "oracle"

    async def start(self, ctx: EpisodeContext) -> UserTurn:
        """The task's instruction."""
        return UserTurn(content=ctx.info.instruction or ctx.task.instruction)

    async def reply(self, ctx: EpisodeContext, messages: Sequence[Message]) -> UserTurn:
        """The next user action the agent has asked for; "Done." once they are all taken; the end
        once the agent has answered with every step behind it."""
        steps = gold_steps(ctx.task)
        asked = sum(1 for m in messages if m.role == "assistant")  # the agent's turns so far
        wanted = [a for step in steps[:asked] if isinstance(step, list) for a in step]
        taken = sum(len(m.tool_calls) for m in messages if m.user_side and m.role == "user")
        if taken < len(wanted):
            action = wanted[taken]
            call = ToolCallRequest(
                id=f"oracle_user_{taken}",
                name=action.tool,
                arguments=dict(action.arguments),
                raw_arguments=json.dumps(action.arguments, ensure_ascii=False),
            )
            return UserTurn(tool_calls=[call])
        if asked > len(steps):  # the agent's answer came after the last step
            return UserTurn(stop=True)
        return UserTurn(content="Done.")

    async def aclose(self) -> None:
        """Nothing to release."""
