"""Episodes over MCP (streamable HTTP) with the real SDK client, in both protocol eras."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from envs import Catalog, score_episode
from envs.schemas.arguments import bounded_strings
from envs.schemas.dialects import DEFAULT_DIALECT, in_dialect
from envs.schemas.tool_schemas import advertised_parameters

from .conftest import KEY_A, KEY_B, MODES, farm_error, mcp_session, rpc, run

pytestmark = pytest.mark.parametrize("mode", MODES)

CATALOG = Catalog()
EXPECTED_VERSION = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


def new_episode(client: httpx.Client, **body: str) -> dict:
    r = client.post("/episodes", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_tools_match_the_spec(client, mode):
    ep = new_episode(client, task_id="clinic-001")
    spec = CATALOG.get("clinic").spec

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            assert c.protocol_version == EXPECTED_VERSION[mode]
            return (await c.list_tools()).tools

    tools = run(go())
    env = CATALOG.get("clinic").environment
    assert [t.name for t in tools] == [t.name for t in spec.tools]
    for tool, ts in zip(tools, spec.tools, strict=True):
        # The advertised schema (envs.schemas.tool_schemas: the spec's schema with every string's limit stated,
        # as the engine enforces it) in the default dialect, which every client tested converts whole.
        assert tool.input_schema == in_dialect(env.advertised_parameters(ts.name), DEFAULT_DIALECT)
        assert tool.input_schema == in_dialect(advertised_parameters(bounded_strings(ts.parameters)[0]), "default")
        assert set(tool.input_schema["required"]) == set(ts.parameters["properties"])
        assert tool.output_schema == env.output_schema(ts.name)
        assert tool.description == ts.description
        assert tool.annotations.read_only_hint is (ts.kind == "read")
        assert tool.annotations.destructive_hint is (ts.kind == "write")
    # Control actions are never agent tools.
    assert not {"score", "reset", "close"} & {t.name for t in tools}


def test_output_schemas_and_strict_calls(client, mode):
    """Object results are declared and validated by the SDK client; a strict-mode call sends null
    for every optional parameter, which means "not given"."""
    ep = new_episode(client, task_id="clinic-001")

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            strict = await c.call_tool("list_open_slots", {"provider_id": "PR01", "specialty": None, "date": None})
            plain = await c.call_tool("list_open_slots", {"provider_id": "PR01"})
            provider = await c.call_tool("get_provider", {"provider_id": "PR01"})  # validated against its schema
            missing = await c.call_tool("get_provider", {"provider_id": "PR99"})
            return tools, strict, plain, provider, missing

    tools, strict, plain, provider, missing = run(go())
    assert tools["get_provider"].output_schema["required"] == list(provider.structured_content)
    assert tools["list_open_slots"].output_schema is None  # a list: no output schema, no structured content
    assert not strict.is_error and strict.content[0].text == plain.content[0].text
    assert missing.is_error and "PR99" in missing.content[0].text


def test_read_and_write_calls(client, mode):
    ep = new_episode(client, task_id="clinic-001")

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            read = await c.call_tool("find_patient_by_email", {"email": "maria.lopez@example.com"})
            write = await c.call_tool("book_appointment", {"patient_id": "P0001", "slot_id": "S021", "reason": "cough"})
            again = await c.call_tool("list_open_slots", {"provider_id": "PR01", "date": "2026-03-04"})
            return read, write, again

    read, write, again = run(go())
    assert not read.is_error
    assert read.structured_content["patient_id"] == "P0001"
    assert json.loads(read.content[0].text) == read.structured_content
    assert not write.is_error
    assert write.structured_content["appointment_id"] == "A1001"
    assert write.structured_content["status"] == "booked"
    # The write is visible to later calls: the booked slot is no longer open.
    assert again.structured_content is None  # a list is the text alone, never wrapped into an object
    open_slots = json.loads(again.content[0].text)
    assert "S021" not in {s["slot_id"] for s in open_slots}
    log = client.get(f"/episodes/{ep['episode_id']}").json()["log"]
    assert [(c["tool"], c["kind"], c["transport"]) for c in log] == [
        ("find_patient_by_email", "read", "mcp"),
        ("book_appointment", "write", "mcp"),
        ("list_open_slots", "read", "mcp"),
    ]


def test_a_string_result_is_its_own_text(client, mode):
    ep = new_episode(client, env_id="retail")

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            found = await c.call_tool("find_user_id_by_email", {"email": "mathew.kidd38@example.com"})
            total = await c.call_tool("calculate", {"operation": "add", "a": 1.5, "b": 2})
            return found, total

    found, total = run(go())
    logged = [c["result"] for c in client.get(f"/episodes/{ep['episode_id']}").json()["log"]]
    assert not found.is_error and found.structured_content is None
    assert found.content[0].text == "mathew_kidd_6458" == logged[0]  # unquoted, and the log's value
    assert total.content[0].text == "3.5"  # a number is still its JSON text


def test_tool_errors_are_results_with_the_reason(client, mode):
    ep = new_episode(client, task_id="clinic-001")

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            bad_type = await c.call_tool("find_patient_by_email", {"email": 5})
            missing = await c.call_tool("book_appointment", {"patient_id": "P0001", "slot_id": "S021"})
            guard = await c.call_tool("book_appointment", {"patient_id": "P0001", "slot_id": "S999", "reason": "x"})
            unknown = await c.call_tool("find_patient_by_mail", {"email": "a@b.c"})
            ok = await c.call_tool("list_providers", {})
            return bad_type, missing, guard, unknown, ok

    bad_type, missing, guard, unknown, ok = run(go())
    assert bad_type.is_error and "'email'" in bad_type.content[0].text
    assert "not of type 'string'" in bad_type.content[0].text
    assert missing.is_error and "'reason'" in missing.content[0].text
    assert guard.is_error and guard.content[0].text == "Slot S999 not found"
    assert unknown.is_error and "Tool 'find_patient_by_mail' not found." in unknown.content[0].text
    assert "find_patient_by_email" in unknown.content[0].text  # did-you-mean
    assert not ok.is_error  # errors leave the episode usable
    log = client.get(f"/episodes/{ep['episode_id']}").json()["log"]
    assert [c["is_error"] for c in log] == [True, True, True, True, False]
    assert [c["error_type"] for c in log[:4]] == ["ToolArgumentError", "ToolArgumentError", "StateError", "UnknownTool"]


def test_policy_resource_and_instruction_prompt(client, mode):
    ep = new_episode(client, task_id="clinic-001")
    entry, task = CATALOG.task("clinic-001")

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            resources = (await c.list_resources()).resources
            text = (await c.read_resource(resources[0].uri)).contents[0].text
            prompts = (await c.list_prompts()).prompts
            prompt = await c.get_prompt("instruction")
            with pytest.raises(MCPError, match="Unknown resource 'envfarm://envs/retail/policy'"):
                await c.read_resource("envfarm://envs/retail/policy")
            with pytest.raises(MCPError, match="Unknown prompt 'nope'"):
                await c.get_prompt("nope")
            return resources, text, prompts, prompt

    resources, text, prompts, prompt = run(go())
    assert [str(r.uri) for r in resources] == ["envfarm://envs/clinic/policy"]
    assert text == entry.spec.policy
    assert [p.name for p in prompts] == ["instruction"]
    assert prompt.messages[0].role == "user"
    assert prompt.messages[0].content.text == task.instruction


def test_free_play_has_no_instruction_prompt(client, mode):
    ep = new_episode(client, env_id="retail")

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            return (await c.list_prompts()).prompts, (await c.list_tools()).tools

    prompts, tools = run(go())
    assert prompts == []
    assert len(tools) == len(CATALOG.get("retail").spec.tools)


def test_gold_actions_over_mcp_score_one_and_match_the_engine(client, mode):
    entry, task = CATALOG.task("clinic-001")
    ep = new_episode(client, task_id=task.id)

    async def go():
        async with mcp_session(ep["mcp_url"], mode) as c:
            return [await c.call_tool(a.tool, a.arguments) for a in task.gold_actions]

    results = run(go())
    assert not any(r.is_error for r in results)
    answer = "Booked: appointment A1001 at 10:30, copay $20."
    served = client.post(f"/episodes/{ep['episode_id']}/score", json={"answer": answer})
    assert served.status_code == 200, served.text
    assert served.json()["reward"] == 1.0

    env = entry.environment
    local = env.episode(task)
    try:
        for a in task.gold_actions:
            local.call_tool(a.tool, a.arguments)
        expected = score_episode(env, task, local, answer).model_dump(mode="json")
    finally:
        local.close()
    assert served.json() == expected
    # Without the answer the outputs component fails: the server really scores what it is sent.
    bare = client.post(f"/episodes/{ep['episode_id']}/score").json()
    assert bare["reward"] == 0.0 and bare["components"]["outputs"] == 0.0 and bare["components"]["state"] == 1.0


def test_episodes_of_one_task_are_isolated(client, mode):
    one = new_episode(client, task_id="clinic-001")
    two = new_episode(client, task_id="clinic-001")
    assert one["episode_id"] != two["episode_id"]
    book = {"patient_id": "P0001", "slot_id": "S021", "reason": "cough"}

    async def go():
        async with mcp_session(one["mcp_url"], mode) as c1, mcp_session(two["mcp_url"], mode) as c2:
            first = await c1.call_tool("book_appointment", book)
            seen_by_two = await c2.call_tool("get_patient_appointments", {"patient_id": "P0001"})
            second = await c2.call_tool("book_appointment", book)  # the slot is still open in episode two
            again_in_one = await c1.call_tool("book_appointment", book)  # but not in episode one
            return first, seen_by_two, second, again_in_one

    first, seen_by_two, second, again_in_one = run(go())
    assert not first.is_error and not second.is_error
    assert "A1001" not in seen_by_two.content[0].text
    assert second.structured_content["appointment_id"] == "A1001"  # same deterministic id, separate state
    assert again_in_one.is_error
    assert client.get(f"/episodes/{one['episode_id']}").json()["calls"] == 2
    assert client.get(f"/episodes/{two['episode_id']}").json()["calls"] == 2


def test_other_tenants_cannot_reach_an_episode_over_mcp(keyed_server, mode):
    with keyed_server.http(KEY_A) as a:
        ep = new_episode(a, task_id="clinic-001")
    url, eid = ep["mcp_url"], ep["episode_id"]
    booking = {"name": "book_appointment", "arguments": {"patient_id": "P0001", "slot_id": "S021", "reason": "x"}}
    # Another tenant's episode does not exist for this key: MCP answers, as for any unknown episode.
    r = rpc(url, "tools/list", mode=mode, key=KEY_B)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json"), r.text
    assert farm_error(r, request_id=1) == {
        "code": "episode_not_found",
        "message": f"Episode '{eid}' not found",
        "field": "episode_id",
    }
    r = rpc(url, "tools/call", booking, mode=mode, key=KEY_B)
    assert r.status_code == 200 and r.json()["id"] == 1, r.text
    result = r.json()["result"]
    assert result["isError"] is True and result["content"] == [{"type": "text", "text": f"Episode '{eid}' not found"}]
    for method, params in (("tools/list", {}), ("tools/call", booking)):
        r = rpc(url, method, params, mode=mode)  # no key at all: HTTP 401 (clients with OAuth act on it)
        assert r.status_code == 401
        assert farm_error(r) == {
            "code": "unauthorized",
            "message": "Missing or invalid API key: send 'Authorization: Bearer <key>'",
            "field": "authorization",
        }
        assert rpc(url, method, params, mode=mode, key="key-wrong-wrong-wrong").status_code == 401

    async def intruder():
        async with mcp_session(url, mode, KEY_B) as c:
            return await c.call_tool("book_appointment", booking["arguments"])

    # The SDK client shows the farm's own message, as a tool error the model reads.
    refused = run(intruder())
    assert refused.is_error and refused.content[0].text == f"Episode '{eid}' not found"

    with keyed_server.http(KEY_B) as b:
        assert b.get(f"/episodes/{eid}").status_code == 404
        assert b.post(f"/episodes/{eid}/score").json()["error"]["code"] == "episode_not_found"
        assert b.post(f"/episodes/{eid}/calls", json={"tool": "list_providers"}).status_code == 404
        assert b.delete(f"/episodes/{eid}").status_code == 404

    async def owner():
        async with mcp_session(url, mode, KEY_A) as c:
            return await c.call_tool("list_providers", {})

    assert not run(owner()).is_error
    with keyed_server.http(KEY_A) as a:
        state = a.get(f"/episodes/{eid}").json()
    # Only the owner's call reached the episode; the intruder's never ran.
    assert [c["tool"] for c in state["log"]] == ["list_providers"]
    assert state["status"] == "open"


def test_the_client_shows_why_an_ended_episode_refuses_it(keyed_server, mode):
    """A closed episode answers its MCP endpoint with the farm's message, which the real client shows:
    raised from a listing, the result of a tool call (tests/server/test_mcp_gone.py has the rest)."""
    with keyed_server.http(KEY_A) as a:
        ep = new_episode(a, task_id="clinic-001")
        assert a.delete(f"/episodes/{ep['episode_id']}").status_code == 200

    async def late_agent() -> object:
        async with mcp_session(ep["mcp_url"], mode, KEY_A) as c:
            result = await c.call_tool("list_providers", {})
            with pytest.raises(MCPError, match=rf"^Episode '{ep['episode_id']}' is closed$"):
                await c.list_tools()
            return result

    result = run(late_agent())
    assert result.is_error and result.content[0].text == f"Episode '{ep['episode_id']}' is closed"
