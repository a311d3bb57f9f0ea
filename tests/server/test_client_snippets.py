"""Every MCP client snippet of docs/clients.md, run as written against a live farm with API keys.

Only the two marked lines change: ``MCP_URL`` becomes a new episode's URL and ``HEADERS`` the key's.
The mcp 1.x and LangChain snippets run in the mcp 1.x environment (``tests/mcp_clients.py``), the others in
this one; the openai-agents snippet's model is the scripted fake (``tests/clients/fakes.py``), reached
through the ``OPENAI_BASE_URL`` the snippet's ``AsyncOpenAI()`` reads.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..clients.fakes import FakeLLM, call, say
from ..mcp_clients import client_module, mcp1_python
from .conftest import KEY_A, LiveServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
ALL_SNIPPETS = dict(re.findall(r"^## ([^\n(]+?) \(.*?\n```python\n(.*?)```", DOC.read_text(), re.S | re.M))
MCP_CLIENTS = {"mcp 2.x", "mcp 1.x", "fastmcp", "LangChain", "openai-agents"}  # the model SDKs' own: test_gemini_*
SNIPPETS = {name: code for name, code in ALL_SNIPPETS.items() if name in MCP_CLIENTS}
IN_MCP1 = {"mcp 1.x", "LangChain"}
QUESTION = "Which providers does the clinic have?"


def test_the_doc_has_a_snippet_per_client() -> None:
    assert set(SNIPPETS) == MCP_CLIENTS


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    fake = FakeLLM().start()
    yield fake
    fake.stop()


def as_written(code: str, mcp_url: str, key: str) -> str:
    """The snippet with its URL and headers set (each marked line must be there, once)."""
    code, urls = re.subn(r'^MCP_URL = ".*?"', f"MCP_URL = {json.dumps(mcp_url)}", code, flags=re.M)
    headers = json.dumps({"Authorization": f"Bearer {key}"})
    code, heads = re.subn(
        r"^HEADERS: dict\[str, str\] = \{\}", f"HEADERS: dict[str, str] = {headers}", code, flags=re.M
    )
    assert (urls, heads) == (1, 1), code
    return code


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet(keyed_server: LiveServer, llm: FakeLLM, name: str) -> None:
    if name in ("openai-agents", "fastmcp"):
        client_module("agents" if name == "openai-agents" else "fastmcp")
    python = mcp1_python() if name in IN_MCP1 else Path(sys.executable)
    with keyed_server.http(KEY_A) as c:
        episode = c.post("/episodes", json={"task_id": "clinic-001"}).json()
    llm.script(QUESTION, call(("list_providers", {"specialty": None})), say("Dr. Amara Osei, among others."))
    env = {
        **os.environ,
        "OPENAI_BASE_URL": llm.base_url,
        "OPENAI_API_KEY": "sk-test",
    }
    env.pop("OPENAI_AGENTS_DISABLE_TRACING", None)  # the snippet itself must keep traces (and the key) home
    code = as_written(SNIPPETS[name], episode["mcp_url"], KEY_A)
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-4000:]
    out = done.stdout
    if name == "openai-agents":
        assert out.strip() == "Dr. Amara Osei, among others."
        # traces would go to api.openai.com with the provider's key: unreachable here, so an export logs
        assert "tracing" not in done.stderr.lower(), done.stderr[-2000:]
        tool_outputs = [m for body in llm.calls_to("chat") for m in body["messages"] if m["role"] == "tool"]
        assert len(tool_outputs) == 1 and "PR01" in json.dumps(tool_outputs[0]["content"])
    else:
        listed, called = out.splitlines()
        assert "'list_providers'" in listed, out
        flag, text = called.split(" ", 1)
        assert flag in ("False", "success") and "PR01" in text, out  # a result, not a tool error
    with keyed_server.http(KEY_A) as c:  # the call reached the episode, over MCP
        log = c.get(f"/episodes/{episode['episode_id']}").json()["log"]
    assert [(e["tool"], e["transport"]) for e in log] == [("list_providers", "mcp")]


def test_the_desktop_configuration_starts_a_stdio_episode(tmp_path: Path) -> None:
    """The Claude Desktop / Cursor configuration, as written, with its command's path made this
    checkout's: the MCP SDK's stdio client starts that server, lists its tools and calls one."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from .conftest import run

    block = re.search(r"^## Claude Desktop.*?\n```json\n(.*?)```", DOC.read_text(), re.S | re.M)
    assert block is not None
    (server,) = json.loads(block.group(1))["mcpServers"].values()
    assert server["command"].endswith("/.venv/bin/envfarm")
    script = Path(sys.executable).with_name("envfarm")
    params = StdioServerParameters(command=str(script), args=server["args"], cwd=tmp_path)

    async def session() -> tuple[list[str], Any]:
        with (tmp_path / "stderr.txt").open("w") as err:
            async with Client(stdio_client(params, errlog=err), mode="legacy") as client:
                tools = [t.name for t in (await client.list_tools()).tools]
                found = await client.call_tool("find_user_id_by_email", {"email": "nobody@example.com"})
                return tools, found

    tools, found = run(session())
    assert "find_user_id_by_email" in tools and "cancel_pending_order" in tools
    assert found.is_error and "nobody@example.com" in found.content[0].text
    assert '"score"' in (tmp_path / "stderr.txt").read_text()  # --score-on-exit


#: The table of docs/clients.md, "When the episode is over": client -> (top-level class, innermost class).
RAISES = {
    row[0]: (re.findall(r"`(\w+)", row[1])[0], row[2].split("`")[1].split(":")[0])
    for row in (
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in DOC.read_text().split("## When the episode is over", 1)[1].splitlines()
        if line.startswith("| ") and not line.startswith("| client")
    )
}
_RAISED = re.compile(r"^[ |+]*(?:[\w.]+\.)?(\w+(?:Error|Group|Exception)\w*): (.*)$", re.M)


def test_the_doc_says_what_each_client_raises_on_an_ended_episode() -> None:
    assert set(RAISES) == MCP_CLIENTS


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_on_an_ended_episode_each_snippet_raises_what_the_doc_says(keyed_server: LiveServer, name: str) -> None:
    if name in ("openai-agents", "fastmcp"):
        client_module("agents" if name == "openai-agents" else "fastmcp")
    python = mcp1_python() if name in IN_MCP1 else Path(sys.executable)
    with keyed_server.http(KEY_A) as c:
        episode = c.post("/episodes", json={"task_id": "clinic-001"}).json()
        assert c.delete(f"/episodes/{episode['episode_id']}").status_code == 200
    env = {**os.environ, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-test"}
    code = as_written(SNIPPETS[name], episode["mcp_url"], KEY_A)
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    raised = _RAISED.findall(done.stderr)  # outermost first, as Python prints a chain of groups
    assert raised, done.stderr[-2000:]
    top, inner = RAISES[name]
    assert (raised[0][0], raised[-1][0]) == (top, inner), raised
    assert raised[-1][1] == f"Episode '{episode['episode_id']}' is closed"
