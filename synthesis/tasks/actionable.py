"""How many of the user's records a request could be about: "cancel one of my memberships" is
something a customer says only when more than one of their memberships could be cancelled. A user
with a paused and an active membership who asks to "resume one of my memberships" has named it, and
an agent who asks "which one?" is made to ask what no real customer would leave open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from envs import EnvFarmError, Environment


def takes_call(env: Environment, image: bytes, tool: str, arguments: Mapping[str, Any]) -> bool:
    """Whether ``tool`` with ``arguments`` succeeds on the state ``image`` (an episode's snapshot)."""
    scratch = env.restore(image)
    try:
        scratch.call_tool(tool, dict(arguments))
        return True
    except EnvFarmError:
        return False
    finally:
        scratch.close()


def actionable_count(
    env: Environment,
    image: bytes,
    table: str,
    key_column: str,
    owned: Callable[[dict[str, Any]], bool],
    call: tuple[str, Mapping[str, Any]],
) -> int:
    """How many rows of ``table`` that are the user's (``owned``) would take ``call`` (a tool and its
    arguments), each with its own key in ``key_column``, on the state ``image``."""
    tool, arguments = call
    scratch = env.restore(image)
    try:
        rows = [r for r in scratch.dump(table) if owned(r)]
    finally:
        scratch.close()
    return sum(takes_call(env, image, tool, {**arguments, key_column: r[key_column]}) for r in rows)
