"""Schema dialects: google-genai's own MCP conversion over every tool of the default catalog in the
default dialect (which it gets without asking), every description kept; the same arguments valid in every dialect; descriptions that
read as sentences in every dialect."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from google.genai._mcp_utils import mcp_to_gemini_tool
from mcp.types import Tool

from envs.errors import UnknownDialect
from envs.schemas.dialects import DEFAULT_DIALECT, DIALECTS, in_dialect, parse_dialect, portable_schema
from envs.schemas.lint import lint_tool
from envs.schemas.tool_schemas import advertised_parameters
from tests.envs.catalog_tools import default_catalog_environments, tool_schemas_with_gold_arguments

from .test_tool_schemas import RICH, strict_arguments

# google-genai reads MCP objects by their 1.x names (``inputSchema``, ``isError``) first; where fastmcp
# is loaded too (a test before this one), fastmcp makes those names warn, and warnings are errors here.
pytestmark = pytest.mark.filterwarnings("ignore:Accessing `.*` is deprecated; MCP SDK v2 renamed")
#: The only text the default dialect adds: a minItems of 1 in words (google-genai drops the keyword).
GEMINI_ADDED = "At least 1 item."


def catalog_tools() -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(env id, tool name, tool description, advertised schema) of every tool of the default catalog."""
    for env in default_catalog_environments():
        for tool in env.spec.tools:
            yield env.spec.id, tool.name, tool.description, env.advertised_parameters(tool.name)


def descriptions(node: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Every description of a schema by where it is: property names, "[]" for items, "anyOf[i]" for a
    branch of a union. JSON Schema (``anyOf``) and google-genai's ``Schema`` dump (``any_of``) alike;
    a nullable value (``anyOf: [X, null]``, or X marked nullable after conversion) is one place,
    whose description may stand beside the ``anyOf`` or inside X."""
    if not isinstance(node, dict):
        return {}
    out: dict[tuple[str, ...], str] = {}
    texts = [node["description"]] if node.get("description") else []
    branches = node.get("anyOf", node.get("any_of"))
    if isinstance(branches, list):
        values = [b for b in branches if b not in ({"type": "null"}, {"nullable": True})]
        if len(branches) == 2 and len(values) == 1:
            inner = descriptions(values[0], path)
            if path in inner:
                texts.append(inner.pop(path))
            out.update(inner)
        else:
            for i, branch in enumerate(branches):
                out.update(descriptions(branch, (*path, f"anyOf[{i}]")))
    for name, sub in (node.get("properties") or {}).items():
        out.update(descriptions(sub, (*path, name)))
    out.update(descriptions(node.get("items"), (*path, "[]")))
    if texts:
        out[path] = " ".join(texts)
    return out


def without_text(node: Any, *drop: str) -> Any:
    """``node`` without descriptions (and the keywords ``drop``), at every depth."""
    if isinstance(node, dict):
        return {k: without_text(v, *drop) for k, v in node.items() if k != "description" and k not in drop}
    if isinstance(node, list):
        return [without_text(v, *drop) for v in node]
    return node


# -- google-genai's conversion ---------------------------------------------------------------------------


def test_google_genai_converts_every_tool_of_the_default_catalog_and_keeps_every_description() -> None:
    tools = kept = params = 0
    refused_as_strict = 0
    for env_id, name, description, advertised in catalog_tools():
        where = f"{env_id}.{name}"
        try:
            mcp_to_gemini_tool(Tool(name=name, description=description, input_schema=in_dialect(advertised, "strict")))
        except AttributeError as exc:  # why the default is not the strict schema: additionalProperties: false
            assert "'bool' object has no attribute 'items'" in str(exc)
            refused_as_strict += 1
        assert in_dialect(advertised, "gemini") == in_dialect(advertised, DEFAULT_DIALECT), where
        shown = in_dialect(advertised, DEFAULT_DIALECT)
        converted = mcp_to_gemini_tool(Tool(name=name, description=description, input_schema=shown))
        (declaration,) = converted.function_declarations or []
        assert declaration.name == name and declaration.description == description, where
        assert declaration.parameters is not None, where
        got = descriptions(declaration.parameters.model_dump(mode="json", exclude_none=True))
        wanted = descriptions(advertised)
        assert set(wanted) <= set(got), (where, set(wanted) - set(got))
        for place, text in wanted.items():
            # the same text, with at most the one sentence the dialect adds
            assert " ".join(got[place].replace(GEMINI_ADDED, "").split()) == " ".join(text.split()), (where, place)
        # every parameter is there, by name, at every depth
        assert set(declaration.parameters.properties or {}) == set(advertised["properties"]), where
        tools += 1
        kept += len(wanted)
        params += sum(len(place) == 1 for place in wanted)
    print(f"\n{tools} tools converted, {kept} descriptions kept ({params} of top-level parameters)")
    assert tools > 3000 and refused_as_strict == tools
    assert params > 5000


def test_a_nullable_value_keeps_its_description_through_the_conversion() -> None:
    declaration = mcp_to_gemini_tool(
        Tool(name="t", description="T.", input_schema=in_dialect(advertised_parameters(RICH), DEFAULT_DIALECT))
    ).function_declarations
    assert declaration is not None and declaration[0].parameters is not None
    props = declaration[0].parameters.properties or {}
    assert props["email"].nullable and props["email"].description == (
        "An email address; at most 80 characters. Optional: null leaves it out."
    )
    assert props["note"].nullable and props["note"].description == "A note, or null."  # null is a value here
    items = props["items"]
    assert items.description == "2 to 5 items; no item repeated."


def test_the_default_dialect_says_min_items_in_words_and_keeps_the_optional_note_last() -> None:
    schema = portable_schema(
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["ids", "tags"],
            "properties": {
                "ids": {
                    "anyOf": [{"type": "array", "items": {"type": "string"}, "minItems": 1}, {"type": "null"}],
                    "description": "Order ids. Optional: null leaves it out.",
                },
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            },
        }
    )
    assert "additionalProperties" not in schema
    ids = schema["properties"]["ids"]
    assert "description" not in ids
    assert ids["anyOf"][0]["description"] == "Order ids. At least 1 item. Optional: null leaves it out."
    assert schema["properties"]["tags"]["description"] == "At least 1 item."


# -- the same arguments in every dialect -----------------------------------------------------------------


def test_every_dialect_takes_the_same_arguments() -> None:
    """Dialects differ in text and in keywords that do not constrain arguments (additionalProperties
    aside, which the engine enforces from the spec's own schema): the same properties, all required,
    the same types and nullability, so a model's call validates the same way."""
    for env_id, name, _, default in catalog_tools():
        for dialect in DIALECTS:
            shown = in_dialect(default, dialect)
            same = without_text(shown, "additionalProperties") == without_text(default, "additionalProperties")
            assert same, (env_id, name, dialect)
    assert in_dialect(RICH, "strict") is RICH
    validated = 0
    for name, raw, calls in tool_schemas_with_gold_arguments():  # gold calls as a strict-mode model sends them
        for dialect in DIALECTS:
            validator = jsonschema.Draft202012Validator(in_dialect(advertised_parameters(raw), dialect))
            for arguments in calls:
                assert validator.is_valid(strict_arguments(raw, arguments)), (name, dialect, arguments)
                validated += 1
    assert validated > 200


def test_the_default_dialect_passes_the_gemini_rules_and_is_json_schema() -> None:
    for env_id, name, _, advertised in catalog_tools():
        shown = in_dialect(advertised, DEFAULT_DIALECT)
        assert lint_tool(env_id, name, shown, vendors=["gemini"]).ok("gemini"), (env_id, name)
        assert shown["type"] == "object" and jsonschema_rs.meta.is_valid(shown), (env_id, name)
        # what it is not: a schema OpenAI takes with strict: true as it is (that is the strict dialect)
        assert not lint_tool(env_id, name, shown, vendors=["openai"]).ok("openai"), (env_id, name)


def test_the_strict_dialect_is_the_advertised_schema_every_strict_rule_takes() -> None:
    for env_id, name, _, advertised in catalog_tools():
        strict = in_dialect(advertised, "strict")
        assert strict is advertised
        linted = lint_tool(env_id, name, strict, vendors=["openai", "anthropic"])
        assert linted.ok("openai") and linted.ok("anthropic"), (env_id, name, linted.problems)


# -- descriptions read as sentences ----------------------------------------------------------------------

_LOWER_FIRST_WORD = re.compile(r"[a-z][a-z.]*(?:[\s,;:]|$)")


def reads_as_sentences(text: str) -> bool:
    """Ends a sentence, does not start with a plain lowercase word ("e.g.", "true"; a unit such as "kW"
    or an identifier such as "item_ids" may stand first), and no note is glued to an unfinished one."""
    text = text.strip()
    return (
        bool(text)
        and text.endswith((".", "!", "?"))
        and not _LOWER_FIRST_WORD.match(text)
        and not re.search(r"[^.!?] Optional: null leaves it out\.", text)
        and not re.search(r"[.!?] \(", text)
    )


@pytest.mark.parametrize("dialect", DIALECTS)
def test_descriptions_read_as_sentences_in_every_dialect(dialect: str) -> None:
    checked = 0
    for env_id, name, description, advertised in catalog_tools():
        assert reads_as_sentences(description), (env_id, name, description)
        for place, text in descriptions(in_dialect(advertised, parse_dialect(dialect))).items():
            assert reads_as_sentences(text), (dialect, env_id, name, place, text)
            checked += 1
    assert checked > 7000


# -- choosing a dialect ----------------------------------------------------------------------------------


def test_a_dialect_is_chosen_by_name() -> None:
    assert parse_dialect(None) == "default" and parse_dialect("gemini") == "gemini"
    assert parse_dialect("strict") == "strict"
    with pytest.raises(UnknownDialect) as caught:
        parse_dialect("gemni")
    assert str(caught.value) == (
        "dialect: unknown schema dialect 'gemni'; choose one of default, strict, gemini. Did you mean 'gemini'?"
    )
    assert caught.value.field == "dialect" and caught.value.value == "gemni"
