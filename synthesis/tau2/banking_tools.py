"""τ³ banking_knowledge's tools as SQL steps, in one place for the importer (``banking``): the agent's
base tools (``banking_agent_tools``), the customer's (``banking_user_tools``), and the machinery of the
discoverable tools the agent unlocks from what the knowledge base names (``listed: false``, run only by
``call_discoverable_agent_tool``'s ``call`` step) or hands to the customer (``banking_discoverable_dispatch``).

Every tool answers as tau2's does, text for text; the descriptions are ours. A discoverable tool's
``info`` (what unlocking it or handing it over shows) is written in tau2's layout from our descriptions,
or from tau2's own when the importer finds them (``banking.tool_texts``).
"""

from __future__ import annotations

from .banking_agent_tools import base_tools
from .banking_discoverable_dispatch import catalog_rows, discoverable_specs
from .banking_sql import record
from .banking_tool_spec import Discoverable, Param, info_text
from .banking_user_tools import user_tools

__all__ = [
    "Discoverable",
    "Param",
    "base_tools",
    "catalog_rows",
    "discoverable_specs",
    "info_text",
    "record",
    "user_tools",
]
