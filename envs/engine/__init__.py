"""Running tools: an :class:`Environment` is a compiled spec, an :class:`Episode` one isolated state.

Takes a validated spec (``formats``) and the schemas its calls are checked against (``schemas``); gives
episodes whose tool calls run in one transaction each, under the SQLite sandbox, step budget and
watchdog, with the fixed clock and the pure SQL functions spec SQL may call.
"""

from .episode import Environment, Episode
from .tool_calls import ToolResult

__all__ = ["Environment", "Episode", "ToolResult"]
