"""An episode's MCP URL opened in a browser leads to its console page."""

from __future__ import annotations

import httpx

from .conftest import KEY_A


def test_an_mcp_url_opened_in_a_browser_goes_to_the_episodes_console_page(keyed_server):
    """A page load (Accept: text/html) is no MCP request: it is sent to the episode's console page
    (which asks for the key, as every console page does) instead of a 406 in JSON. MCP clients,
    which accept JSON or an event stream, are answered as before."""
    with keyed_server.http(KEY_A) as c:
        episode = c.post("/episodes", json={"task_id": "clinic-001"}).json()
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    page = httpx.get(episode["mcp_url"], headers=browser, timeout=20)
    assert page.status_code == 303 and page.headers["location"] == f"/console/episodes/{episode['episode_id']}"
    landed = httpx.get(episode["mcp_url"], headers=browser, timeout=20, follow_redirects=True)
    assert landed.status_code == 200 and "text/html" in landed.headers["content-type"]
    stream = httpx.get(episode["mcp_url"], headers={"Accept": "text/event-stream"}, timeout=20)
    assert stream.status_code == 401  # an MCP client's GET still needs its key
