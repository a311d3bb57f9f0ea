"""Schema dialects: the advertised input schema in the shape one kind of client converts without loss.

The ``default`` dialect is the advertised schema itself (``envs.schemas.tool_schemas``): accepted as it is by
OpenAI strict function calling and Anthropic tool use, strict included. Some clients do not hand an
MCP ``inputSchema`` to their model API as it is but convert it first, and a conversion can fail or
drop text. A dialect is the same schema (the same properties, all of them required, null for an
optional one meaning "not given", so arguments validate exactly as in the default) written so that
such a conversion keeps everything:

* ``gemini``: google-genai's ``mcp_to_gemini_tool`` (the path behind ``tools=[session]``) turns the
  JSON Schema into Gemini's OpenAPI-style ``Schema``. It fails on ``"additionalProperties": false``
  (it reads every ``additionalProperties`` as a schema: ``'bool' object has no attribute 'items'``),
  collapses ``anyOf: [X, {"type": "null"}]`` into X marked nullable, keeping X's description and
  dropping the one beside ``anyOf``, and drops ``minItems``. So the gemini dialect has no
  ``additionalProperties``, puts the description of a nullable property inside its non-null branch,
  and says a ``minItems`` of 1 in words too ("At least 1 item.").

Which dialect a client gets is its choice (docs/serving.md): ``?dialect=gemini`` on an MCP URL or a
REST listing, ``"dialect"`` when creating an episode, ``envfarm mcp --dialect gemini``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from ..errors import UnknownDialect
from .sentences import OPTIONAL_NOTE, sentence

Dialect = Literal["default", "gemini"]
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
DEFAULT_DIALECT: Dialect = "default"
#: The name of the query parameter (MCP URL, REST listings) and of the body field that choose one.
DIALECT_FIELD = "dialect"

_NULL = {"type": "null"}


def parse_dialect(value: str | None, *, field: str = DIALECT_FIELD) -> Dialect:
    """The dialect named ``value`` (None: the default), asked for in ``field``.

    Raises:
        UnknownDialect: ``value`` names no dialect (the message names ``field`` and ``value``).
    """
    if value is None:
        return DEFAULT_DIALECT
    for dialect in DIALECTS:
        if value == dialect:
            return dialect
    raise UnknownDialect(value, DIALECTS, field=field)


def in_dialect(advertised: dict[str, Any], dialect: Dialect) -> dict[str, Any]:
    """The advertised schema ``advertised`` (``Environment.advertised_parameters``) written in
    ``dialect``; the default is ``advertised`` itself, the others a new schema."""
    if dialect == "gemini":
        return gemini_schema(advertised)
    return advertised


def gemini_schema(node: dict[str, Any]) -> dict[str, Any]:
    """An advertised schema node as the gemini dialect writes it (see the module docstring).

    >>> gemini_schema({"type": "object", "additionalProperties": False, "required": ["ids"], "properties": {
    ...     "ids": {"anyOf": [{"type": "array", "items": {"type": "string"}, "minItems": 1}, {"type": "null"}],
    ...             "description": "Order ids. Optional: null leaves it out."}}})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'type': 'object', 'required': ['ids'], 'properties': {'ids': {'anyOf': [{'type': 'array',
     'items': {'type': 'string'}, 'minItems': 1,
     'description': 'Order ids. At least 1 item. Optional: null leaves it out.'}, {'type': 'null'}]}}}
    """
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "additionalProperties":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: gemini_schema(sub) if isinstance(sub, dict) else sub for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = gemini_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [gemini_schema(b) if isinstance(b, dict) else b for b in value]
        else:
            out[key] = value
    if out.get("type") == "array" and out.get("minItems") == 1:
        out["description"] = _joined(out.get("description"), "At least 1 item.")
    branches = out.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and _NULL in branches and "description" in out:
        # The converter keeps only the non-null branch (marked nullable), and that branch's description.
        value_branch = branches[1 - branches.index(_NULL)]
        if isinstance(value_branch, dict):
            description = out.pop("description")
            value_branch["description"] = _joined(description, value_branch.get("description"))
    return out


def _joined(first: Any, second: Any) -> str:
    """Two descriptions as one text of sentences, the optional note (if either has it) last."""
    texts = [sentence(t) for t in (first, second) if isinstance(t, str) and t.strip()]
    if any(t.endswith(OPTIONAL_NOTE) for t in texts):
        texts = [t.removesuffix(OPTIONAL_NOTE).rstrip() for t in texts]
        texts = [t for t in texts if t] + [OPTIONAL_NOTE]
    return " ".join(texts)
