"""``oracle``: the user half of the oracle pair. It gives the instruction, takes the gold's user actions
(dual control) when the oracle agent asks for them, and ends the conversation at the agent's answer.

Where only the agent acts it is the ``solo`` user (whose opening it keeps): the instruction, then the
end at the first answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..agents.base import EpisodeContext
from ..agents.oracle import gold_call, gold_steps
from ..transcript import Message
from .base import UserTurn
from .solo import SoloUser


class OracleUser(SoloUser):
    """Takes the user's gold actions, one per turn, in the order the agent asked for them.

    >>> OracleUser().name
    'oracle'
    """

    name = "oracle"

    async def reply(self, ctx: EpisodeContext, messages: Sequence[Message]) -> UserTurn:
        """The next user action the agent has asked for; "Done." once they are all taken; the end
        once the agent has answered with every step behind it."""
        steps = gold_steps(ctx.task)
        asked = sum(1 for m in messages if m.role == "assistant")  # the agent's turns so far
        wanted = [a for step in steps[:asked] if isinstance(step, list) for a in step]
        taken = sum(len(m.tool_calls) for m in messages if m.user_side and m.role == "user")
        if taken < len(wanted):
            return UserTurn(tool_calls=[gold_call(wanted[taken], f"oracle_user_{taken}")])
        if asked > len(steps):  # the agent's answer came after the last step
            return UserTurn(stop=True)
        return UserTurn(content="Done.")
