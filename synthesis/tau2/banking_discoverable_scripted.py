"""τ³ banking_knowledge's discoverable tools that change nothing and answer a fixed text: the steps of
the knowledge base's special human-transfer procedures, and tau2's placeholder example tool (which no
gold action uses).
"""

from __future__ import annotations

from .banking_discoverable_sql import answer, check
from .banking_sql import lit
from .banking_tool_spec import Discoverable


def _constant(name: str, description: str, text: str) -> Discoverable:
    return Discoverable(
        name,
        description,
        (),
        False,
        [check("NULL"), answer(lit(f"{text}\n\nExecuted: {name}\nArguments: (no arguments)"))],
    )


INITIAL_TRANSFER_0218 = _constant(
    "initial_transfer_to_human_agent_0218",
    "Start a transfer to a human agent, as a special transfer procedure asks.",
    "Initial Transfer Initiated, Inform the user that the lines are busy.",
)
INITIAL_TRANSFER_1822 = _constant(
    "initial_transfer_to_human_agent_1822",
    "Start a transfer to a human agent, as a special transfer procedure asks.",
    "Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a "
    "real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.",
)
EMERGENCY_TRANSFER_1114 = _constant(
    "emergency_credit_bureau_incident_transfer_1114",
    "Log a case of the 11/14 credit bureau reporting incident for priority handling.",
    "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction "
    "team. Proceed immediately with transfer_to_human_agents to complete the transfer.",
)

EXAMPLE_TOOL = Discoverable(
    "example_agent_tool_0000",
    "A placeholder tool that does nothing.",
    (),
    True,
    [check("NULL"), answer("'Example tool executed successfully.'")],
)
