"""What a tool's parameter schema may not do, checked when a spec is loaded.

Specs are data a stranger or an LLM may have written, and their schemas are evaluated on every
call. So, beyond being valid JSON Schema, a schema must:

* refer only inside itself: a ``$ref`` is a local JSON pointer (``#/$defs/x``) to a place that
  exists, and no chain of references leads back to itself (a remote or ``file:`` reference would
  make the server fetch it; a cycle would recurse for ever);
* hold only finite numbers (``1e999`` reads as infinity);
* use patterns in RE2's syntax, whose matching time is linear in the text (a backtracking engine
  spent 18 s on ``^(a+)+$`` against 29 characters); RE2 has no backreferences or lookaround, and
  ``patternProperties`` is refused (jsonschema matches property names with Python's ``re``);
* nest at most ``MAX_SCHEMA_DEPTH`` levels.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import re2

MAX_SCHEMA_DEPTH = 32
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # the error goes into the SpecError, not to stderr


@functools.lru_cache(maxsize=4096)
def compiled_pattern(pattern: str) -> Any:
    """The RE2 regex of a schema pattern (checked at load, so it compiles)."""
    return re2.compile(pattern, _OPTIONS)


def _pointer(root: Any, ref: str) -> Any:
    """The value a local ``$ref`` points at; KeyError if nowhere."""
    node = root
    for raw in ref[1:].split("/")[1:] if ref != "#" else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise KeyError(ref)
    return node


def _walk(root: Any) -> tuple[list[tuple[str, str]], str | None]:
    """Every ``$ref`` as (path, target), and the first other problem as 'at <path>: <what>'."""
    refs: list[tuple[str, str]] = []
    stack: list[tuple[Any, str, int]] = [(root, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return refs, f"at {path or '(root)'}: {node} is not a finite number"
        if not isinstance(node, dict | list):
            continue
        if depth > MAX_SCHEMA_DEPTH:
            return refs, f"at {path or '(root)'}: nested deeper than {MAX_SCHEMA_DEPTH} levels"
        if isinstance(node, list):
            stack.extend((v, f"{path}/{i}", depth + 1) for i, v in enumerate(node))
            continue
        for key, value in node.items():
            here = f"{path}/{key}"
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                if not value.startswith("#"):
                    return refs, f"at {here}: only local references ('#/...') are allowed, not {value!r}"
                refs.append((path, value))
            elif key == "pattern" and isinstance(value, str):
                if (problem := _pattern_problem(value)) is not None:
                    return refs, f"at {here}: {problem}"
            elif key == "patternProperties":  # jsonschema matches these with Python's backtracking ``re``
                return refs, f"at {here}: patternProperties is not supported in tool parameters; name the properties"
            stack.append((value, here, depth + 1))
    return refs, None


def _pattern_problem(pattern: str) -> str | None:
    try:
        compiled_pattern(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        return f"pattern {pattern!r} is not RE2 syntax ({reason}); backreferences and lookaround are not supported"
    return None


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` may not be a tool's parameters ('at <JSON path>: <what>'), or None."""
    refs, problem = _walk(schema)
    if problem is not None:
        return problem
    targets: dict[str, str] = {}
    for path, ref in refs:
        try:
            _pointer(schema, ref)
        except KeyError:
            return f"at {path or '(root)'}/$ref: {ref!r} points nowhere in the schema"
        targets[path] = ref[1:]  # a JSON pointer, as the paths here are written
    # A reference whose target contains (or is) a reference that leads back to it is a cycle.
    for start in targets:
        seen: set[str] = set()
        frontier = [start]
        while frontier:
            at = frontier.pop()
            target = targets[at]
            inside = [p for p in targets if p == target or p.startswith(target + "/") or target == ""]
            for nxt in inside:
                if nxt == start:
                    return f"at {start or '(root)'}/$ref: the references form a cycle through {targets[start]!r}"
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
    return None
