"""An mcp 1.x client and LangChain (langchain-mcp-adapters, which requires mcp < 2) against a live farm.

Both run in their own environment (``tests/mcp_clients.py``), by the script ``mcp1_client.py``, which prints
what each client surfaced.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx

from ..mcp_clients import mcp1_python
from .conftest import KEY_A, LiveServer

HERE = Path(__file__).parent


def new_episode(client: httpx.Client) -> dict[str, Any]:
    r = client.post("/episodes", json={"task_id": "clinic-001"})
    assert r.status_code == 201, r.text
    return dict(r.json())


def surfaced(spec: dict[str, Any]) -> dict[str, Any]:
    """What the mcp 1.x clients surfaced on the episodes of ``spec`` (``mcp1_client.py``)."""
    done = subprocess.run(
        [str(mcp1_python()), str(HERE / "mcp1_client.py"), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return dict(json.loads(done.stdout))


def test_mcp1_and_langchain_show_the_farms_message(server: LiveServer, client: httpx.Client) -> None:
    opened, closed, held_plain, held_langchain = (new_episode(client) for _ in range(4))
    assert client.delete(f"/episodes/{closed['episode_id']}").status_code == 200
    spec = {
        "open": opened["mcp_url"],
        "closed": closed["mcp_url"],
        "unknown": f"{server.base_url}/episodes/ep_nope/mcp",
        **{
            name: {"mcp": ep["mcp_url"], "end": f"{server.base_url}/episodes/{ep['episode_id']}"}
            for name, ep in (("held_plain", held_plain), ("held_langchain", held_langchain))
        },
    }
    seen = surfaced(spec)

    # Normal use works: listing, calling, LangChain's tool call.
    tools = "find_patient_by_email,find_patient_by_name_dob,get_patient_appointments,list_providers"
    assert seen["plain/open"]["list"]["result"].startswith(tools)
    assert seen["langchain-load/open"]["result"].startswith(tools)
    assert not seen["plain/open"]["call"]["is_error"] and "PR01" in seen["plain/open"]["call"]["result"]
    assert not seen["langchain-call/open"]["is_error"] and "PR01" in seen["langchain-call/open"]["result"]

    # An ended or unknown episode: the handshake succeeds, a listing raises the farm's message, and a
    # tool call is a tool error the model reads.
    for name, message in (
        ("closed", f"Episode '{closed['episode_id']}' is closed"),
        ("unknown", "Episode 'ep_nope' not found"),
    ):
        assert seen[f"plain/{name}"] == {
            "list": {"raised": "McpError", "message": message},
            "call": {"result": message, "is_error": True},
        }
        assert seen[f"langchain-load/{name}"] == {"raised": "McpError", "message": message}

    # Ended while a client holds it: the next call is a tool error with the farm's message.
    plain = seen["plain/held"]
    assert not plain["before"]["is_error"] and "PR01" in plain["before"]["result"]
    assert plain["after"] == {"result": f"Episode '{held_plain['episode_id']}' is closed", "is_error": True}
    langchain = seen["langchain/held"]
    assert not langchain["before"]["is_error"] and "PR01" in langchain["before"]["result"]
    assert langchain["after"]["is_error"]  # a ToolMessage with status "error", which goes to the model
    assert f"Episode '{held_langchain['episode_id']}' is closed" in langchain["after"]["result"]


def test_mcp1_shows_what_to_send_when_the_key_is_missing(keyed_server: LiveServer) -> None:
    """mcp 1.x raises httpx's ``HTTPStatusError``, whose message is the status line alone: the 401's says
    what to send."""
    with keyed_server.http(KEY_A) as c:
        episode = new_episode(c)
    seen = surfaced({"unauthorized": episode["mcp_url"]})["plain/unauthorized"]
    assert seen["raised"] == "HTTPStatusError"
    assert "401 Unauthorized (send Authorization: Bearer <key>)" in seen["message"]
