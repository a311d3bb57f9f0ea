"""Schema dialects on a served farm: an episode lists the default dialect's schemas over real MCP unless
it asks for another, google-genai drives one as it is served through ``tools=[session]`` (its own
conversion and automatic function calling, against a fake Gemini API on loopback), and calls in that
shape work; an episode asked for in the strict dialect lists the advertised schemas as they are."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from envs import Catalog
from envs.schemas.dialects import Dialect, in_dialect
from server.threaded import ThreadedServer

from .conftest import KEY_A, MODES, auth, farm_error, mcp_session, run

CATALOG = Catalog()
CLINIC = CATALOG.get("clinic").environment


def schemas_in(dialect: Dialect, env: Any = CLINIC) -> list[dict[str, Any]]:
    return [in_dialect(env.advertised_parameters(t.name), dialect) for t in env.spec.tools]


def new_episode(client: httpx.Client, **body: str) -> dict[str, Any]:
    r = client.post("/episodes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("mode", MODES)
def test_an_episode_created_in_the_strict_dialect_lists_the_advertised_schemas_over_mcp(client, mode):
    ep = new_episode(client, env_id="clinic", dialect="strict")
    assert ep["mcp_url"].endswith(f"/episodes/{ep['episode_id']}/mcp?dialect=strict")
    assert [t["input_schema"] for t in ep["tools"]] == schemas_in("strict")
    plain_url = ep["mcp_url"].split("?")[0]

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            strict = (await c.list_tools()).tools
            slots = await c.call_tool("list_open_slots", {"provider_id": "PR01", "specialty": None, "date": None})
        async with mcp_session(plain_url, mode) as c:  # the same episode, default dialect: per connection
            default = (await c.list_tools()).tools
        async with mcp_session(plain_url + "?dialect=gemini", mode) as c:  # the default's shape, by its old name
            gemini = (await c.list_tools()).tools
        return strict, slots, default, gemini

    strict, slots, default, gemini = run(go())
    assert [t.input_schema for t in strict] == [CLINIC.advertised_parameters(t.name) for t in CLINIC.spec.tools]
    assert all(t.input_schema["additionalProperties"] is False for t in strict)
    assert [t.description for t in strict] == [t.description for t in CLINIC.spec.tools]
    assert [t.input_schema for t in default] == schemas_in("default") == [t.input_schema for t in gemini]
    assert not any("additionalProperties" in json.dumps(t.input_schema) for t in default)
    assert not slots.is_error and json.loads(slots.content[0].text)


def test_rest_listings_take_the_dialect(client):
    env = client.get("/envs/clinic", params={"dialect": "strict"}).json()
    assert [t["input_schema"] for t in env["tool_list"]] == schemas_in("strict")
    default = client.get("/envs/clinic").json()
    assert [t["input_schema"] for t in default["tool_list"]] == schemas_in("default")
    plain = client.post("/episodes", json={"env_id": "clinic"}).json()
    assert plain["mcp_url"].endswith("/mcp") and [t["input_schema"] for t in plain["tools"]] == schemas_in("default")


def test_an_unknown_dialect_is_refused_naming_the_field_and_the_value(client):
    ep = new_episode(client, env_id="clinic")
    r = client.post(
        ep["mcp_url"] + "?dialect=gemni",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
    )
    assert r.status_code == 400
    assert farm_error(r) == {
        "code": "bad_request",
        "message": "dialect: unknown schema dialect 'gemni'; choose one of default, strict, gemini. Did you mean 'gemini'?",
        "field": "dialect",
    }
    for response in (
        client.post("/episodes", json={"env_id": "clinic", "dialect": "gemni"}),
        client.get("/envs/clinic", params={"dialect": "gemni"}),
    ):
        assert response.status_code == 422, response.text
        error = farm_error(response)
        assert error["field"] == "dialect" and "'gemni'" in error["message"], error


# -- google-genai, tools=[session] ----------------------------------------------------------------------


class FakeGemini:
    """``POST /{version}/models/{model}:generateContent``: answers each request with the next scripted
    model turn (a function call, then text) and keeps the requests, as the Gemini API receives them."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        self.turns = turns
        self.requests: list[dict[str, Any]] = []
        app = Starlette(routes=[Route("/{version}/models/{rest:path}", self.generate, methods=["POST"])])
        self.server = ThreadedServer(app, timeout=20)

    async def generate(self, request: Request) -> JSONResponse:
        self.requests.append(await request.json())
        parts = self.turns[min(len(self.requests), len(self.turns)) - 1]
        candidate = {"content": {"role": "model", "parts": [parts]}, "finishReason": "STOP", "index": 0}
        return JSONResponse({"candidates": [candidate], "modelVersion": "fake"})


@pytest.fixture
def fake_gemini() -> Iterator[FakeGemini]:
    call = {
        "functionCall": {"name": "list_open_slots", "args": {"provider_id": "PR01", "specialty": None, "date": None}}
    }
    fake = FakeGemini([call, {"text": "PR01 has open slots."}])
    fake.server.start()
    try:
        yield fake
    finally:
        fake.server.stop()


DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def snippet_as_written(farm_url: str, key: str) -> str:
    """The doc's snippet with ``FARM`` and ``HEADERS`` set (each marked line must be there, once)."""
    (code,) = re.findall(r"^## google-genai \(.*?^```python\n(.*?)^```", DOC.read_text(), re.S | re.M)
    code, urls = re.subn(r'^FARM = ".*?"', f"FARM = {json.dumps(farm_url)}", code, flags=re.M)
    headers = json.dumps(auth(key))
    code, heads = re.subn(
        r"^HEADERS: dict\[str, str\] = \{\}", f"HEADERS: dict[str, str] = {headers}", code, flags=re.M
    )
    assert (urls, heads) == (1, 1), code
    return code


def test_the_google_genai_snippet_drives_an_episode_as_it_is_served(keyed_server, fake_gemini):
    """docs/clients.md's google-genai snippet as written, in a process of its own: google-genai's
    ``generate_content`` with the MCP session as its tools, against the fake Gemini API."""
    env = {**os.environ, "GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": fake_gemini.server.url}
    env.pop("GOOGLE_API_KEY", None)
    code = snippet_as_written(keyed_server.base_url, KEY_A)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    text, reward = done.stdout.splitlines()
    assert text == "PR01 has open slots." and reward.startswith("reward "), done.stdout
    first, second = fake_gemini.requests
    # What the Gemini API received: every tool, converted by google-genai itself, descriptions kept.
    declarations = {d["name"]: d for tool in first["tools"] for d in tool["functionDeclarations"]}
    assert list(declarations) == [t.name for t in CLINIC.spec.tools]
    for tool, schema in zip(CLINIC.spec.tools, schemas_in("default"), strict=True):
        sent = declarations[tool.name]
        assert sent["description"] == tool.description
        assert "additionalProperties" not in json.dumps(sent)
        for name, prop in schema["properties"].items():
            said = prop.get("description") or next(b["description"] for b in prop["anyOf"] if "description" in b)
            assert sent["parameters"]["properties"][name]["description"] == said, (tool.name, name)
    # The model's call, null for the parameters it leaves out, ran on the episode; its result went back.
    (returned,) = [p["functionResponse"] for p in second["contents"][-1]["parts"]]
    assert returned["name"] == "list_open_slots" and "error" not in returned["response"]
    with keyed_server.http(KEY_A) as client:
        (episode,) = client.get("/episodes").json()["items"]
        log = client.get(f"/episodes/{episode['episode_id']}").json()["log"]
    assert [(c["tool"], c["is_error"], c["transport"]) for c in log] == [("list_open_slots", False, "mcp")]
    assert log[0]["arguments"] == {"provider_id": "PR01", "specialty": None, "date": None}
    assert log[0]["result"] == json.loads(returned["response"]["result"]["content"][0]["text"])
