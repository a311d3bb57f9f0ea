"""Schema dialects: the advertised input schema in the shape one kind of client takes without loss.

The advertised schema (``envs.schemas.tool_schemas``) is written for strict tool use: every object
closed with ``"additionalProperties": false``, every property required, null for an optional one
meaning "not given". A dialect is that schema (the same properties, the same types and nullability,
so arguments validate exactly alike) written for a kind of client:

* ``default``: what a client gets when it asks for nothing, converted whole by every client tested
  (docs/serving.md, "Schema dialects"). google-genai's ``mcp_to_gemini_tool`` (the path behind
  ``tools=[session]``, which announces itself only as the ``mcp`` SDK) turns the JSON Schema into
  Gemini's OpenAPI-style ``Schema``: it fails on ``"additionalProperties": false`` (it reads every
  ``additionalProperties`` as a schema: ``'bool' object has no attribute 'items'``), collapses
  ``anyOf: [X, {"type": "null"}]`` into X marked nullable, keeping X's description and dropping the one
  beside ``anyOf``, and drops ``minItems``. So the default has no ``additionalProperties``, puts the
  description of a nullable property inside its non-null branch, and says a ``minItems`` of 1 in words
  too ("At least 1 item."). The SDKs that offer strict tool use close every object themselves when
  they make a schema strict (openai-agents' ``convert_schemas_to_strict``, LangChain's
  ``bind_tools(strict=True)``; anthropic's public ``transform_schema`` helper), and the engine refuses
  unknown arguments whatever the schema says.
* ``strict``: the advertised schema as it is, for code that hands ``inputSchema`` to OpenAI or
  Anthropic with ``strict: true`` and converts nothing (both refuse an object without
  ``"additionalProperties": false``).
* ``gemini``: the default's shape under the name it was first served by (``?dialect=gemini`` URLs
  keep working).

Which dialect a client gets is its choice (docs/serving.md): ``?dialect=strict`` on an MCP URL or a
REST listing, ``"dialect"`` when creating an episode, ``envfarm mcp --dialect strict``.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from ..errors import UnknownDialect
from .sentences import OPTIONAL_NOTE, sentence

Dialect = Literal["default", "strict", "gemini"]
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
DEFAULT_DIALECT: Dialect = "default"
#: The dialects that differ in shape (``gemini`` writes what ``default`` writes).
SHAPES: tuple[Dialect, ...] = ("default", "strict")
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
    ``dialect``: ``strict`` is ``advertised`` itself, the others a new schema."""
    if dialect == "strict":
        return advertised
    return portable_schema(advertised)


def portable_schema(node: dict[str, Any]) -> dict[str, Any]:
    """An advertised schema node as the default (and gemini) dialect writes it (see the module docstring).

    >>> portable_schema({"type": "object", "additionalProperties": False, "required": ["ids"], "properties": {
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
            out[key] = {name: portable_schema(sub) if isinstance(sub, dict) else sub for name, sub in value.items()}
        elif key == "items" and isinstance(value, dict):
            out[key] = portable_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [portable_schema(b) if isinstance(b, dict) else b for b in value]
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
