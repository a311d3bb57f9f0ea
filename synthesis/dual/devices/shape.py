"""The shorthand the built-in descriptions are written in: one call per fault."""

from __future__ import annotations

from typing import Any


def fault(
    id: str,
    side: str,
    column: str,
    meaning: str,
    values: tuple[Any, Any],
    seen: tuple[str, str],
    fix: tuple[str, str, str],
    *,
    toggle: bool = False,
) -> dict[str, Any]:
    """A fault as ``synthesis.dual.description.Fault`` reads it: ``values`` is (good, bad), ``seen`` is
    (the status it shows, the customer's words for it), ``fix`` is (tool, its description, the
    imperative the policy uses); ``toggle``: the fix flips the switch, so doing it when nothing
    was wrong breaks it."""
    (good, bad), (symptom, observed), (tool, says, step) = values, seen, fix
    return {
        "id": id,
        "side": side,
        "column": column,
        "meaning": meaning,
        "good": good,
        "bad": bad,
        "symptom": symptom,
        "observed": observed,
        "fix_tool": tool,
        "fix_says": says,
        "fix_step": step,
        "toggle": toggle,
    }


ON = (True, False)  # a switch that should be on and is off
