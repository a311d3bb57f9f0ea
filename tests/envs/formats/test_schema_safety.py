"""A tool's parameter schema from a stranger's spec: refused at load when it reaches outside itself,
loops, holds infinite numbers or backtracking patterns; odd property names are just names."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pydantic
import pytest

from envs.errors import ToolArgumentError
from envs.formats.spec import ToolSpec
from envs.schemas.arguments import ArgumentValidator


def _tool(parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "t",
        "description": "A tool.",
        "kind": "read",
        "parameters": parameters,
        "steps": [{"kind": "return", "sql": "SELECT 1 AS one"}],
    }


def _refused(parameters: dict[str, Any]) -> str:
    with pytest.raises(pydantic.ValidationError) as info:
        ToolSpec.model_validate(_tool(parameters))
    return str(info.value)


@pytest.fixture
def listener() -> Any:
    """A loopback server that records every connection made to it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    seen: list[Any] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            seen.append(conn.recv(200))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], seen
    stop.set()
    thread.join()
    server.close()


def test_a_remote_or_file_reference_is_refused_and_never_fetched(listener):
    port, seen = listener
    for ref in (f"http://127.0.0.1:{port}/schema.json", "file:///etc/passwd", "https://example.com/s.json#/x"):
        message = _refused({"type": "object", "properties": {"a": {"$ref": ref}}})
        assert "only local references" in message and "/properties/a/$ref" in message
        # a spec that slipped past the load check still never fetches anything
        validator = ArgumentValidator({"type": "object", "properties": {"a": {"$ref": ref}}})
        with pytest.raises(ToolArgumentError, match="cannot be resolved"):
            validator.validate("t", {"a": 1})
    assert seen == []


@pytest.mark.parametrize(
    ("parameters", "says"),
    [
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "points nowhere"),
        ({"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}, "form a cycle"),
        ({"type": "object", "properties": {"a": {"$ref": "#"}}}, "form a cycle"),
        ({"type": "object", "properties": {"n": {"type": "number", "minimum": float("inf")}}}, "not a finite number"),
        ({"type": "object", "properties": {"s": {"type": "string", "pattern": "(a)\\1"}}}, "not RE2 syntax"),
        ({"type": "object", "properties": {"s": {"type": "string", "pattern": "a(?=b)"}}}, "not RE2 syntax"),
        ({"type": "object", "patternProperties": {"^x": {}}}, "patternProperties is not supported"),
    ],
    ids=["missing-ref", "ref-cycle", "root-cycle", "infinite-minimum", "backreference", "lookahead", "pattern-props"],
)
def test_unsafe_schemas_are_refused_at_load_naming_the_place(parameters, says):
    assert says in _refused(parameters)


def test_a_schema_read_from_json_with_1e999_is_refused():
    parameters = json.loads('{"type": "object", "properties": {"n": {"type": "number", "maximum": 1e999}}}')
    assert "/properties/n/maximum: inf is not a finite number" in _refused(parameters)


def test_property_names_are_only_names():
    names = ['a"b', "c}d{", "e\\f", "g\nh", "i'j", "__import__('os')"]
    parameters = {
        "type": "object",
        "properties": {n: {"type": "integer"} for n in names},
        "required": names,
        "additionalProperties": False,
    }
    ToolSpec.model_validate(_tool(parameters))
    validator = ArgumentValidator(parameters)
    validator.validate("t", {n: 1 for n in names})
    with pytest.raises(ToolArgumentError) as info:
        validator.validate("t", {**{n: 1 for n in names}, "g\nh": "x"})
    assert info.value.field == "g\nh"


def test_local_references_still_work():
    parameters = {
        "type": "object",
        "$defs": {"id": {"type": "string", "pattern": "^P[0-9]+$"}},
        "properties": {"patient": {"$ref": "#/$defs/id"}, "other": {"$ref": "#/$defs/id"}},
    }
    ToolSpec.model_validate(_tool(parameters))
    validator = ArgumentValidator(parameters)
    validator.validate("t", {"patient": "P1", "other": "P22"})
    with pytest.raises(ToolArgumentError, match="does not match"):
        validator.validate("t", {"patient": "X1"})
