"""A tau2 task's gold actions made on an episode while importing, each by the participant tau2 names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from envs.engine import Episode
from envs.errors import ToolError

from .inputs import Tau2ImportError

#: Who makes a gold action, by tau2's ``requestor`` (or a set-up action's ``env_type``).
ACTORS = {"assistant": "agent", "user": "user"}


def replay_gold(
    episode: Episode, actions: Sequence[Mapping[str, Any]], where: str
) -> tuple[list[dict[str, Any]], bool]:
    """Make a task's gold actions on ``episode``, each by its requestor: the gold as a task holds it, and
    whether any of them changed the state.

    Raises:
        Tau2ImportError: an action failed (named by ``where`` and its index); the episode is closed.
    """
    gold, changed = [], False
    for i, action in enumerate(actions):
        actor = ACTORS.get(str(action.get("requestor")), "agent")
        arguments = action.get("arguments") or {}
        try:
            result = episode.call_tool(action["name"], arguments, actor=actor)
        except ToolError as exc:
            episode.close()
            raise Tau2ImportError(f"{where}.evaluation_criteria.actions[{i}]: {action['name']}: {exc}") from None
        gold.append({"tool": action["name"], "arguments": arguments, "actor": actor})
        changed = changed or result.wrote
    return gold, changed
