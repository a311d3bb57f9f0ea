"""A document collection served: the retrieval tools work over REST and MCP like any tool, with
bounded results, and the task's required documents show to admin keys and on the console."""

from __future__ import annotations

from pathlib import Path

import httpx

from ..envs.engine.test_knowledge import write_knowledge_catalog
from .conftest import call_rest, mcp_session, run


def test_search_read_and_grep_over_rest_and_mcp(make_server, tmp_path: Path):
    write_knowledge_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        episode = client.post("/episodes", json={"task_id": "card_help-001"}).json()
        names = [t["name"] for t in episode["tools"]]
        assert names[:3] == ["search_articles", "read_article", "grep_articles"]
        found = call_rest(client, episode["episode_id"], "search_articles", {"query": "gold annual fee"})
        assert found["content"][0]["article_id"] == "A1" and len(found["content"]) <= 5
        grep = call_rest(client, episode["episode_id"], "grep_articles", {"pattern": "lost or stolen"})
        assert [r["article_id"] for r in grep["content"]] == ["A3"]
        task = client.get("/tasks/card_help-001").json()
        assert task["required_documents"] == ["A1"]  # local mode: the admin view
        page = client.get("/console/tasks/card_help-001").text
        assert 'id="required-documents"' in page and "<code>A1</code>" in page

    async def over_mcp() -> tuple[bool, str]:
        async with mcp_session(episode["mcp_url"], "legacy") as c:
            read = await c.call_tool("read_article", {"article_id": "A1"})
            return bool(read.is_error), read.content[0].text

    is_error, text = run(over_mcp())
    assert not is_error and "95 dollars" in text
