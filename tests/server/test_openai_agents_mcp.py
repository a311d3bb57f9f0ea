"""openai-agents' MCP tool path against a live farm: what the model reads when its episode has ended.

A real ``Agent`` with ``MCPServerStreamableHttp`` runs on the scripted OpenAI-compatible fake
(``tests/clients/fakes.py``) through the real ``openai`` SDK; the fake records every request, so the
tool message the model received is what is checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from envs.schemas.lint import lint_tool

from ..clients.fakes import FakeLLM, call, say
from ..mcp_clients import client_module
from .conftest import run

agents = client_module("agents")
agents_mcp = client_module("agents.mcp")


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    fake = FakeLLM().start()
    yield fake
    fake.stop()


def tool_messages(llm: FakeLLM, marker: str) -> list[str]:
    """The content of every tool message the model was sent in conversations naming ``marker``."""
    seen = []
    for body in llm.calls_to("chat"):
        messages = body["messages"]
        if marker in json.dumps(messages):
            seen += [json.dumps(m["content"]) for m in messages if m["role"] == "tool"]
    return seen


def test_the_model_reads_why_its_episode_refuses_a_call(client: httpx.Client, llm: FakeLLM) -> None:
    ep = client.post("/episodes", json={"task_id": "clinic-001"}).json()
    eid = ep["episode_id"]
    for turn in ("first turn", "second turn"):
        # Every parameter is required in advertised schemas (strict mode): an optional one is sent as null.
        llm.script(turn, call(("list_providers", {"specialty": None})), say("Done."))

    async def go() -> list[Any]:
        openai = agents.AsyncOpenAI(base_url=llm.base_url, api_key="sk-test")
        model = agents.OpenAIChatCompletionsModel(model="fake-model", openai_client=openai)
        mcp = agents_mcp.MCPServerStreamableHttp(params={"url": ep["mcp_url"]}, cache_tools_list=True)
        async with openai, mcp:
            agent = agents.Agent(name="clinic", instructions="Help the patient.", model=model, mcp_servers=[mcp])
            config = agents.RunConfig(tracing_disabled=True)
            first = await agents.Runner.run(agent, "first turn", run_config=config)
            assert client.delete(f"/episodes/{eid}").status_code == 200  # ended by its trainer, or expired
            second = await agents.Runner.run(agent, "second turn", run_config=config)
        return [first.final_output, second.final_output]

    assert run(go()) == ["Done.", "Done."]
    [before] = tool_messages(llm, "first turn")
    assert "PR01" in before  # the providers, as the tool returned them
    [after] = tool_messages(llm, "second turn")
    assert f"Episode '{eid}' is closed" in after, after


def test_strict_conversion_makes_the_default_dialect_strict(client: httpx.Client, llm: FakeLLM) -> None:
    """openai-agents' own strict conversion (``convert_schemas_to_strict``) of the default dialect, which
    leaves ``additionalProperties`` out for google-genai's sake: every tool with parameters reaches the
    model API with ``strict: true`` and a schema OpenAI's strict rules take. A tool without parameters
    it serves non-strict (it will not close an object that declares no properties): there is nothing
    for strict mode to hold, and the farm refuses any argument such a tool is sent."""
    ep = client.post("/episodes", json={"env_id": "clinic"}).json()
    llm.script("strict turn", say("Done."))

    async def go() -> None:
        openai = agents.AsyncOpenAI(base_url=llm.base_url, api_key="sk-test")
        model = agents.OpenAIChatCompletionsModel(model="fake-model", openai_client=openai)
        mcp = agents_mcp.MCPServerStreamableHttp(params={"url": ep["mcp_url"]})
        async with openai, mcp:
            agent = agents.Agent(
                name="clinic", model=model, mcp_servers=[mcp], mcp_config={"convert_schemas_to_strict": True}
            )
            await agents.Runner.run(agent, "strict turn", run_config=agents.RunConfig(tracing_disabled=True))

    run(go())
    (body,) = [b for b in llm.calls_to("chat") if "strict turn" in json.dumps(b["messages"])]
    sent = {t["function"]["name"]: t["function"] for t in body["tools"]}
    assert len(sent) == len(ep["tools"]) > 5
    without = {t["name"] for t in ep["tools"] if not t["input_schema"]["properties"]}
    assert without == {"list_insurance_plans"}
    for name, function in sent.items():
        assert function["strict"] is (name not in without), name
        if name in without:
            continue
        linted = lint_tool("clinic", name, function["parameters"], vendors=["openai"])
        assert linted.ok("openai"), (name, linted.problems["openai"])
