"""Output schemas over every tool of the default catalog (the reference environments, every built-in
domain as the default catalog synthesizes it, and tau2-bench's domains where their data is present):
no type arrays, no untyped schema anywhere (MCP Inspector's ``--strict`` rules), and real results
validate against them."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from envs.catalog import load_env, load_env_dir
from envs.engine import Environment
from envs.errors import EnvFarmError
from envs.formats.task import Task
from envs.schemas.dialects import SHAPES, in_dialect
from synthesis.domains.ontology import load_ontology
from synthesis.tau2 import domain_folders, import_domain
from synthesis.tools.envgen import generate_env

TAU2_DIR = Path(os.environ.get("ENVFARM_TAU2_DIR") or Path(__file__).resolve().parents[4] / "shared" / "tau2")

# MCP Inspector's schema lint (core/json/schemaLint.ts in @modelcontextprotocol/inspector 2.12):
# a schema with none of these keywords accepts anything and is reported as "untyped-schema".
_CONSTRAINING = frozenset(
    [
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "format",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "items",
        "prefixItems",
        "contains",
        "additionalItems",
        "unevaluatedItems",
        "properties",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "dependentSchemas",
        "dependencies",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
    ]
)
_BOOLEAN_VALUED = frozenset({"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"})


def inspector_findings(schema: Any, path: str = "", keyword: str | None = None) -> list[str]:
    """What ``inspector --cli --method tools/list --strict`` reports for one schema, as 'path: rule'."""
    if isinstance(schema, bool):
        return [] if keyword in _BOOLEAN_VALUED else [f"{path}: boolean-schema"]
    if not isinstance(schema, dict):
        return []
    out = []
    if isinstance(schema.get("type"), list):
        out.append(f"{path}: type-union")
    if isinstance(schema.get("$ref"), str) and schema["$ref"] and not schema["$ref"].startswith("#"):
        out.append(f"{path}: remote-ref")
    constrains = bool(set(schema) & _CONSTRAINING) or ("if" in schema and ("then" in schema or "else" in schema))
    if not constrains and keyword != "not":
        out.append(f"{path}: untyped-schema")
    for key in ("properties", "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            for name, sub in schema[key].items():
                out += inspector_findings(sub, f"{path}.{key}.{name}", key)
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        for i, sub in enumerate(schema.get(key) or []):
            out += inspector_findings(sub, f"{path}.{key}[{i}]", key)
    for key in ("items", "contains", "not", "propertyNames", "if", "then", "else", *_BOOLEAN_VALUED, "contentSchema"):
        if key in schema:
            out += inspector_findings(schema[key], f"{path}.{key}", key)
    return out


@pytest.fixture(scope="module")
def catalog() -> Iterator[list[tuple[Environment, list[Task]]]]:
    """(environment, tasks) of every environment; generated domains come without tasks."""
    out = [(e.environment, e.tasks) for e in (load_env("retail"), load_env("clinic"))]
    out += [(Environment(generate_env(domain, seed=0).spec), []) for domain in load_ontology()]
    with tempfile.TemporaryDirectory(prefix="envfarm-tau2-") as tmp:
        if (TAU2_DIR / "data").is_dir():
            for folder in domain_folders(TAU2_DIR / "data"):
                entry = load_env_dir(import_domain(folder, Path(tmp)).path)
                out.append((entry.environment, entry.tasks))
        yield out


def test_no_output_schema_has_a_type_array_or_an_untyped_schema(catalog: list[tuple[Environment, list[Task]]]) -> None:
    declared = 0
    problems: list[str] = []
    for env, _ in catalog:
        for tool in env.spec.tools:
            schema = env.output_schema(tool.name)
            if schema is None:
                continue
            declared += 1
            jsonschema.Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object" and schema["additionalProperties"] is False
            assert schema["required"] == list(schema["properties"])
            problems += [f"{env.spec.id}.{tool.name}: outputSchema{p}" for p in inspector_findings(schema)]
            problems += [
                f"{env.spec.id}.{tool.name}: inputSchema ({dialect}){p}"
                for dialect in SHAPES
                for p in inspector_findings(in_dialect(env.advertised_parameters(tool.name), dialect))
            ]
    assert declared > 1900
    assert problems == []


def _sample_arguments(env: Environment, tool_name: str, rows: int = 2) -> list[dict[str, Any]]:
    """Arguments for ``tool_name`` made of stored values: each required parameter named like a
    column takes that column's values from the first rows of a table that has it."""
    tool = env.tools[tool_name]
    properties = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", [])
    ep = env.episode()
    try:
        values: dict[str, list[Any]] = {}
        for name in required:
            table = next((t for t in env.spec.tables if any(c.name == name for c in t.columns)), None)
            if table is None or properties.get(name, {}).get("type") not in ("string", "integer", "number"):
                return []
            got = ep.query(f'SELECT "{name}" AS v FROM "{table.name}" WHERE "{name}" IS NOT NULL LIMIT {rows}')
            values[name] = [r["v"] for r in got]
        return [{name: vals[i] for name, vals in values.items() if i < len(vals)} for i in range(rows)]
    finally:
        ep.close()


def test_real_results_validate_against_the_output_schemas(catalog: list[tuple[Environment, list[Task]]]) -> None:
    """Every gold action of the tasks, and each tool that declares a schema called with stored values."""
    validated: set[tuple[str, str]] = set()
    declared, declaring = 0, set()
    for env, tasks in catalog:
        validators = {}
        for tool in env.spec.tools:
            schema = env.output_schema(tool.name)
            if schema is not None:
                validators[tool.name] = jsonschema.Draft202012Validator(schema)
        declared += len(validators)
        if validators:  # tau2's tools return text or lists, as tau2's do: no output schema
            declaring.add(env.spec.id)
        calls: list[tuple[Task | None, str, dict[str, Any]]] = []
        for task in tasks:
            calls += [(task, a.tool, a.arguments) for a in task.gold_actions if a.tool in validators]
        for name in validators:
            calls += [(None, name, arguments) for arguments in _sample_arguments(env, name)]
        for task, name, arguments in calls:
            ep = env.episode(task)
            try:
                content = ep.call_tool(name, arguments).content
            except EnvFarmError:  # a precondition the stored values do not meet: nothing returned
                continue
            finally:
                ep.close()
            error = jsonschema.exceptions.best_match(validators[name].iter_errors(content))
            assert error is None, f"{env.spec.id}.{name}{list(error.absolute_path)}: {error.message}"
            validated.add((env.spec.id, name))
    print(f"{len(validated)} of {declared} tools with an output schema returned a result that validates")
    assert len(validated) > declared / 2  # the rest need arguments no stored column gives (new records)
    assert {env_id for env_id, _ in validated} == declaring
