"""Would each major model API accept a tool's schema as it is? Rules checked per vendor.

Each vendor takes a different subset of JSON Schema for a function's parameters; a tool outside it
is refused with a 400 (or, through an SDK's conversion, silently changed). The rules below are the
vendors' documented ones (docs/serving.md, "Tool schemas", cites each source):

* ``openai``: function calling with ``strict: true`` (Structured Outputs' supported schemas);
* ``anthropic``: tool use with ``strict: true`` (structured outputs' JSON Schema limitations);
  without ``strict`` Anthropic takes any JSON Schema with an object root, so passing here is enough;
* ``gemini``: a function declaration's parameters, in the keywords both of its forms accept
  (``parameters``, an OpenAPI 3.0 Schema subset, and ``parametersJsonSchema``), plus
  ``additionalProperties: false``, which only ``parametersJsonSchema`` takes (see the docs);
* ``mcp``: the protocol's own rules for ``inputSchema`` and ``outputSchema`` (an object root, valid
  JSON Schema 2020-12).

``lint_tool`` checks one tool and says what each vendor would refuse; nothing here changes a schema.
``lint_environments`` checks each vendor's rules on the schema dialect (``dialects``) that vendor's
clients are served for them: the strict rules on the ``strict`` dialect (the schema handed to a model
API with ``strict: true`` as it is), Gemini's and MCP's on the ``default`` one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import jsonschema

from .dialects import Dialect, in_dialect

if TYPE_CHECKING:
    from ..formats.spec import EnvSpec

VENDORS = ("openai", "anthropic", "gemini", "mcp")
VENDOR_RULES = {
    "openai": "OpenAI function calling, strict",
    "anthropic": "Anthropic tool use, strict",
    "gemini": "Gemini function declarations",
    "mcp": "MCP inputSchema / outputSchema",
}
#: The dialect whose schemas each vendor's rules are checked on (see the module docstring).
VENDOR_DIALECT: dict[str, Dialect] = {"openai": "strict", "anthropic": "strict", "gemini": "default", "mcp": "default"}

_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_ANNOTATIONS = frozenset({"description", "title"})

_OPENAI_KEYWORDS = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
    "definitions", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "minItems", "maxItems",
}  # fmt: skip
_OPENAI_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
_ANTHROPIC_KEYWORDS = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "allOf", "$ref",
    "$defs", "definitions", "default", "format", "minItems", "pattern",
}  # fmt: skip
_ANTHROPIC_FORMATS = _OPENAI_FORMATS | {"uri"}
_GEMINI_KEYWORDS = _ANNOTATIONS | {
    "type", "format", "enum", "items", "minItems", "maxItems", "minimum", "maximum", "anyOf", "properties",
    "required", "additionalProperties",
}  # fmt: skip
_GEMINI_FORMATS = frozenset({"date-time"})  # for strings; "enum" is a format of the OpenAPI form only

_OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
_GEMINI_PARAMETER = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,63}$")

# OpenAI's documented size limits of one strict schema.
OPENAI_MAX_PROPERTIES = 5_000
OPENAI_MAX_NESTING = 10
OPENAI_MAX_STRING_BUDGET = 120_000
OPENAI_MAX_ENUM_VALUES = 1_000
OPENAI_LARGE_ENUM = 250
OPENAI_LARGE_ENUM_CHARS = 15_000


@dataclass
class ToolLint:
    """What each vendor would refuse in one tool (an empty list: accepted)."""

    env_id: str
    tool: str
    problems: dict[str, list[str]] = field(default_factory=lambda: {v: [] for v in VENDORS})

    def ok(self, vendor: str) -> bool:
        return not self.problems[vendor]


@dataclass
class LintReport:
    """Every tool checked, with counts per vendor."""

    tools: list[ToolLint] = field(default_factory=list)

    def passed(self, vendor: str) -> int:
        return sum(t.ok(vendor) for t in self.tools)

    @property
    def ok(self) -> bool:
        return all(t.ok(v) for t in self.tools for v in VENDORS)

    def failures(self, vendor: str) -> list[ToolLint]:
        return [t for t in self.tools if not t.ok(vendor)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tools": len(self.tools),
            "vendors": {v: {"passed": self.passed(v), "failed": len(self.failures(v))} for v in VENDORS},
            "failures": [
                {"env": t.env_id, "tool": t.tool, "problems": {v: p for v, p in t.problems.items() if p}}
                for t in self.tools
                if any(t.problems.values())
            ],
        }


def lint_tool(
    env_id: str,
    name: str,
    input_schema: dict[str, Any],
    output_schema: dict[str, Any] | None = None,
    *,
    vendors: Iterable[str] = VENDORS,
) -> ToolLint:
    """Check one tool's name and schemas against the rules of ``vendors`` (every vendor's by default;
    the others are left with no problems)."""
    checks: dict[str, Callable[[], list[str]]] = {
        "openai": lambda: _openai(name, input_schema),
        "anthropic": lambda: _anthropic(name, input_schema),
        "gemini": lambda: _gemini(name, input_schema),
        "mcp": lambda: _mcp(input_schema, output_schema),
    }
    out = ToolLint(env_id, name)
    for vendor in vendors:
        out.problems[vendor] = checks[vendor]()
    return out


def lint_tools(tools: Iterable[tuple[str, str, dict[str, Any], dict[str, Any] | None]]) -> LintReport:
    """Check (env id, tool name, input schema, output schema) tuples."""
    return LintReport([lint_tool(*t) for t in tools])


class Advertising(Protocol):
    """What the lint reads of an environment (an ``envs.engine.Environment``): its spec, and each
    tool's schemas as clients see them."""

    @property
    def spec(self) -> EnvSpec: ...

    def advertised_parameters(self, tool: str) -> dict[str, Any]: ...

    def output_schema(self, tool: str) -> dict[str, Any] | None: ...


def lint_environments(
    envs: Iterable[Advertising], *, source: bool = False, progress: Callable[[str], None] = lambda env_id: None
) -> LintReport:
    """Check every tool of ``envs`` as clients see it: the input schema in the dialect each vendor's
    clients are served (``VENDOR_DIALECT``) and the output schema; with ``source``, the spec's own
    ``parameters`` instead (what it would be without the derivation), and no output schema."""
    report = LintReport()
    for env in envs:
        for tool in env.spec.tools:
            if source:
                report.tools.append(lint_tool(env.spec.id, tool.name, tool.parameters))
                continue
            advertised, output = env.advertised_parameters(tool.name), env.output_schema(tool.name)
            linted = ToolLint(env.spec.id, tool.name)
            for vendor, dialect in VENDOR_DIALECT.items():
                one = lint_tool(env.spec.id, tool.name, in_dialect(advertised, dialect), output, vendors=[vendor])
                linted.problems[vendor] = one.problems[vendor]
            report.tools.append(linted)
        progress(env.spec.id)
    return report


# -- walking a schema ---------------------------------------------------------------------------------


def _nodes(schema: Any, path: str = "", depth: int = 0) -> Iterator[tuple[str, dict[str, Any], int]]:
    """(JSON path, node, object nesting depth) of every subschema (``$defs`` included)."""
    if not isinstance(schema, dict):
        return
    yield path or "(root)", schema, depth
    inner = depth + (schema.get("type") == "object" or "properties" in schema)
    for key in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
        if isinstance(schema.get(key), dict):
            for name, sub in schema[key].items():
                yield from _nodes(sub, f"{path}.{key}.{name}" if path else f"{key}.{name}", inner)
    for key in ("items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames"):
        if isinstance(schema.get(key), dict):
            yield from _nodes(schema[key], f"{path}.{key}" if path else key, inner)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(schema.get(key), list):
            for i, sub in enumerate(schema[key]):
                yield from _nodes(sub, f"{path}.{key}[{i}]" if path else f"{key}[{i}]", inner)


def _type_names(node: dict[str, Any]) -> list[str]:
    t = node.get("type")
    return [t] if isinstance(t, str) else [x for x in t if isinstance(x, str)] if isinstance(t, list) else []


def _root_problems(schema: dict[str, Any]) -> list[str]:
    out = []
    if schema.get("type") != "object":
        out.append('(root): the parameters must be an object schema ("type": "object")')
    return out


def _keyword_problems(nodes: Sequence[tuple[str, dict[str, Any], int]], allowed: frozenset[str]) -> list[str]:
    out = []
    for path, node, _ in nodes:
        for key in node:
            if key not in allowed:
                out.append(f"{path}: keyword '{key}' is not supported")
    return out


def _enum_primitive(nodes: Sequence[tuple[str, dict[str, Any], int]]) -> list[str]:
    return [
        f"{path}: enum values must be strings, numbers, booleans or null"
        for path, node, _ in nodes
        if isinstance(node.get("enum"), list) and any(isinstance(v, dict | list) for v in node["enum"])
    ]


def _closed_objects(nodes: Sequence[tuple[str, dict[str, Any], int]], *, all_required: bool) -> list[str]:
    out = []
    for path, node, _ in nodes:
        if "object" not in _type_names(node) and "properties" not in node:
            continue
        if node.get("additionalProperties") is not False:
            out.append(f'{path}: an object needs "additionalProperties": false')
        if all_required:
            props: dict[str, Any] = node["properties"] if isinstance(node.get("properties"), dict) else {}
            missing = [p for p in props if p not in (node.get("required") or [])]
            if missing:
                out.append(f"{path}: every property must be listed in required (missing: {', '.join(missing)})")
    return out


def _formats(nodes: Sequence[tuple[str, dict[str, Any], int]], allowed: frozenset[str]) -> list[str]:
    return [
        f"{path}: format '{node['format']}' is not supported"
        for path, node, _ in nodes
        if "format" in node and "string" in _type_names(node) and node["format"] not in allowed
    ]


def _openai(name: str, schema: dict[str, Any]) -> list[str]:
    out = [] if _OPENAI_NAME.match(name) else [f"the name '{name}' must match {_OPENAI_NAME.pattern}"]
    out += _root_problems(schema)
    if "anyOf" in schema:
        out.append("(root): anyOf is not allowed at the root")
    nodes = list(_nodes(schema))
    out += _keyword_problems(nodes, _OPENAI_KEYWORDS)
    out += _closed_objects(nodes, all_required=True)
    out += _formats(nodes, _OPENAI_FORMATS)
    out += _enum_primitive(nodes)
    for path, node, _ in nodes:
        if not set(_type_names(node)) <= _TYPES:
            out.append(f"{path}: unknown type {node.get('type')!r}")
        if not ({"type", "anyOf", "enum", "const", "$ref"} & set(node)):
            out.append(f"{path}: every schema needs a type (or anyOf, enum, const)")
    depth = max(d for _, _, d in nodes)
    if depth > OPENAI_MAX_NESTING:
        out.append(f"objects nest {depth} levels deep; the limit is {OPENAI_MAX_NESTING}")
    props = sum(len(n["properties"]) for _, n, _ in nodes if isinstance(n.get("properties"), dict))
    if props > OPENAI_MAX_PROPERTIES:
        out.append(f"{props} object properties in all; the limit is {OPENAI_MAX_PROPERTIES}")
    enums = [n["enum"] for _, n, _ in nodes if isinstance(n.get("enum"), list)]
    if sum(map(len, enums)) > OPENAI_MAX_ENUM_VALUES:
        out.append(f"{sum(map(len, enums))} enum values in all; the limit is {OPENAI_MAX_ENUM_VALUES}")
    for values in enums:
        chars = sum(len(v) for v in values if isinstance(v, str))
        if len(values) > OPENAI_LARGE_ENUM and chars > OPENAI_LARGE_ENUM_CHARS:
            out.append(
                f"an enum of {len(values)} values has {chars} characters; the limit is {OPENAI_LARGE_ENUM_CHARS}"
            )
    budget = sum(
        len(k) for _, n, _ in nodes for key in ("properties", "$defs", "definitions") for k in (n.get(key) or {})
    )
    budget += sum(len(v) for values in enums for v in values if isinstance(v, str))
    budget += sum(len(n["const"]) for _, n, _ in nodes if isinstance(n.get("const"), str))
    if budget > OPENAI_MAX_STRING_BUDGET:
        out.append(f"names and enum values hold {budget} characters; the limit is {OPENAI_MAX_STRING_BUDGET}")
    return out


def _anthropic(name: str, schema: dict[str, Any]) -> list[str]:
    out = [] if _ANTHROPIC_NAME.match(name) else [f"the name '{name}' must match {_ANTHROPIC_NAME.pattern}"]
    out += _root_problems(schema)
    nodes = list(_nodes(schema))
    out += _keyword_problems(nodes, _ANTHROPIC_KEYWORDS)
    out += _closed_objects(nodes, all_required=False)
    out += _formats(nodes, _ANTHROPIC_FORMATS)
    out += _enum_primitive(nodes)
    for path, node, _ in nodes:
        if node.get("minItems", 0) not in (0, 1):
            out.append(f"{path}: minItems may only be 0 or 1")
        if not set(_type_names(node)) <= _TYPES:
            out.append(f"{path}: unknown type {node.get('type')!r}")
    return out


def _gemini(name: str, schema: dict[str, Any]) -> list[str]:
    out = [] if _GEMINI_NAME.match(name) else [f"the name '{name}' must match {_GEMINI_NAME.pattern}"]
    out += _root_problems(schema)
    nodes = list(_nodes(schema))
    out += _keyword_problems(nodes, _GEMINI_KEYWORDS)
    out += _formats(nodes, _GEMINI_FORMATS)
    for path, node, _ in nodes:
        t = node.get("type")
        if t is not None and not (isinstance(t, str) and t in _TYPES):
            out.append(f"{path}: type must be one type name, not {json.dumps(t)}")
        if isinstance(node.get("enum"), list) and not all(isinstance(v, str) for v in node["enum"]):
            out.append(f"{path}: enum values must be strings")
        if "additionalProperties" in node and node["additionalProperties"] is not False:
            out.append(f"{path}: additionalProperties may only be false")
        if isinstance(node.get("properties"), dict):
            bad = [p for p in node["properties"] if not _GEMINI_PARAMETER.match(p)]
            if bad:
                out.append(f"{path}: parameter name(s) {bad} must match {_GEMINI_PARAMETER.pattern}")
    return out


def _mcp(input_schema: dict[str, Any], output_schema: dict[str, Any] | None) -> list[str]:
    out = []
    for label, schema in (("inputSchema", input_schema), ("outputSchema", output_schema)):
        if schema is None:
            continue
        if schema.get("type") != "object":
            out.append(f'{label}: the root must be "type": "object"')
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            out.append(f"{label}: not valid JSON Schema 2020-12: {exc.message}")
    return out
