"""A document collection served: the retrieval tools work over REST and MCP like any tool, with
bounded results, and the task's required documents show to admin keys and on the console."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from click.testing import CliRunner

from envfarm.cli import cli

from ..clients.fakes import FakeLLM
from ..envs.embeddings.test_documents_by_meaning import ARTICLE_TEXTS, CONCEPTS
from ..envs.embeddings.toy import cosine_ranking
from ..envs.engine.test_knowledge import BODIES, TASK, write_knowledge_catalog
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


def test_the_documents_go_in_the_prompt_in_the_modes_that_put_them_there(make_server, tmp_path: Path):
    write_knowledge_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        full = client.post("/episodes", json={"task_id": "card_help-001", "knowledge": "full"}).json()
        names = [t["name"] for t in full["tools"]]
        assert full["knowledge"] == "full" and names == ["get_card"]  # the document tools are withheld
        assert full["policy"].count("<knowledge_base>") == 1 and "95 dollars" in full["policy"]
        assert "Travel insurance" in full["policy"]  # every document
        refused = call_rest(client, full["episode_id"], "search_articles", {"query": "gold annual fee"})
        assert refused["is_error"] and refused["error_type"] == "UnknownTool" and "not found" in refused["message"]
        assert client.get(f"/episodes/{full['episode_id']}").json()["knowledge"] == "full"
        fork = client.post("/episodes", json={"fork_of": full["episode_id"]}).json()
        assert fork["knowledge"] == "full" and [t["name"] for t in fork["tools"]] == ["get_card"]

        required = client.post("/episodes", json={"task_id": "card_help-001", "knowledge": "required"}).json()
        assert "95 dollars" in required["policy"] and "Travel insurance" not in required["policy"]
        none = client.post("/episodes", json={"task_id": "card_help-001", "knowledge": "none"}).json()
        assert "<knowledge_base>" not in none["policy"] and [t["name"] for t in none["tools"]] == ["get_card"]
        search = client.post("/episodes", json={"task_id": "card_help-001"}).json()
        assert search["knowledge"] == "search" and "<knowledge_base>" not in search["policy"]

        free = client.post("/episodes", json={"env_id": "card_help", "knowledge": "required"})
        assert free.status_code == 409 and free.json()["error"]["field"] == "knowledge"
        assert "free play has none" in free.json()["error"]["message"]
        bad = client.post("/episodes", json={"task_id": "card_help-001", "knowledge": "everything"})
        assert bad.status_code in (400, 422) and "knowledge" in bad.text
        other = client.post("/episodes", json={"fork_of": full["episode_id"], "knowledge": "search"})
        assert other.status_code == 409 and other.json()["error"]["field"] == "knowledge"

    async def over_mcp() -> tuple[list[str], str, bool]:
        async with mcp_session(full["mcp_url"], "legacy") as c:
            listed = [t.name for t in (await c.list_tools()).tools]
            policy = (await c.read_resource("envfarm://envs/card_help/policy")).contents[0]
            called = await c.call_tool("read_article", {"article_id": "A1"})
            return listed, getattr(policy, "text", ""), bool(called.is_error)

    listed, policy, refused_over_mcp = run(over_mcp())
    assert listed == ["get_card"] and "<knowledge_base>" in policy and refused_over_mcp


def test_an_environment_without_documents_is_served_only_with_search(make_server):
    farm = make_server()
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        response = client.post("/episodes", json={"env_id": "clinic", "knowledge": "full"})
        assert response.status_code == 409, response.text
        assert response.json()["error"]["field"] == "knowledge" and "has none" in response.json()["error"]["message"]
        assert client.post("/episodes", json={"env_id": "clinic", "knowledge": "search"}).status_code == 201


def test_the_console_starts_an_episode_with_the_documents_in_the_prompt(make_server, tmp_path: Path):
    write_knowledge_catalog(tmp_path / "catalog")
    farm = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=farm.base_url, timeout=60) as client:
        page = client.get("/console/tasks/card_help-001").text
        assert 'formaction="/console/tasks/card_help-001/episodes?knowledge=full"' in page
        assert "?knowledge=required" in page and "?knowledge=none" in page
        started = client.post("/console/tasks/card_help-001/episodes?knowledge=required")
        assert started.status_code == 303, started.text
        episode_id = started.headers["location"].rsplit("/", 1)[1]
        assert client.get(f"/episodes/{episode_id}").json()["knowledge"] == "required"
        shown = client.get(started.headers["location"]).text
        assert 'id="knowledge">the task&#39;s required ones in the prompt<' in shown


def test_documents_searched_by_meaning_only_on_a_farm_given_an_embedding_model(make_server, tmp_path: Path):
    write_knowledge_catalog(tmp_path / "catalog")
    plain = make_server(catalog=tmp_path / "catalog")
    with httpx.Client(base_url=plain.base_url, timeout=60) as client:
        refused = client.post("/episodes", json={"task_id": "card_help-001", "knowledge": "embeddings"})
        assert refused.status_code == 409 and refused.json()["error"]["field"] == "knowledge"
        assert "--embeddings local" in refused.json()["error"]["message"]
        assert "?knowledge=embeddings" not in client.get("/console/tasks/card_help-001").text

    service = FakeLLM().start()  # an OpenAI-compatible /v1/embeddings, through the real openai SDK
    try:
        service.concepts = CONCEPTS
        farm = make_server(catalog=tmp_path / "catalog", embeddings=f"toy-embedding@{service.base_url}")
        with httpx.Client(base_url=farm.base_url, timeout=60) as client:
            episode = client.post("/episodes", json={"task_id": "card_help-001", "knowledge": "embeddings"}).json()
            assert episode["knowledge"] == "embeddings" and "search_articles" in [t["name"] for t in episode["tools"]]
            for query in ("someone took my purse", "what does a vacation cover"):
                found = call_rest(client, episode["episode_id"], "search_articles", {"query": query})
                expected = [key for key, _ in cosine_ranking(query, ARTICLE_TEXTS, CONCEPTS)]
                assert [r["article_id"] for r in found["content"]] == expected, query
            searching = client.post("/episodes", json={"task_id": "card_help-001"}).json()
            words = call_rest(client, searching["episode_id"], "search_articles", {"query": "someone took my purse"})
            assert words["content"] == []  # the same farm's search episodes still rank by words
            fork = client.post("/episodes", json={"fork_of": episode["episode_id"]}).json()
            assert fork["knowledge"] == "embeddings"
            assert "?knowledge=embeddings" in client.get("/console/tasks/card_help-001").text
            documents_embedded = [b for b in service.calls_to("/v1/embeddings") if len(b["input"]) == len(BODIES)]
            assert len(documents_embedded) == 1  # once for the farm, not per episode
            service.fail(500, 500, 500)  # the SDK tries three times
            broken = call_rest(client, episode["episode_id"], "search_articles", {"query": "a new question"})
            assert broken["is_error"] and "could not rank the documents" in broken["message"]
            assert client.get(f"/episodes/{episode['episode_id']}").json()["status"] == "open"

        async def over_mcp() -> list[str]:
            async with mcp_session(episode["mcp_url"], "legacy") as c:
                found = await c.call_tool("search_articles", {"query": "my wallet is missing"})
                assert not found.is_error, found.content
                return [row["article_id"] for row in json.loads(found.content[0].text)]

        assert run(over_mcp())[0] == "A3"
    finally:
        service.stop()


def test_bench_retrieval_measures_bm25_and_meaning_on_the_same_tasks(tmp_path: Path):
    write_knowledge_catalog(tmp_path / "catalog")
    hidden = {**TASK, "id": "card_help-002", "instruction": "Somebody took my wallet, what now?", "outputs": []}
    hidden["required_documents"] = ["A3"]
    tasks_file = tmp_path / "catalog" / "card_help" / "tasks.json"
    tasks_file.write_text(json.dumps([*json.loads(tasks_file.read_text()), hidden]))
    service = FakeLLM().start()
    try:
        service.concepts = CONCEPTS
        out = tmp_path / "retrieval.json"
        args = ["bench", "retrieval", "--catalog", str(tmp_path / "catalog"), "--out", str(out)]
        result = CliRunner().invoke(cli, [*args, "--embeddings", f"toy@{service.base_url}"])
        assert result.exit_code == 0, result.output
    finally:
        service.stop()
    measured = json.loads(out.read_text())
    row = measured["environments"]["card_help"]
    assert (row["documents"], row["tasks"]) == (4, 2)
    # "gold card annual fee": A1 by either; "Somebody took my wallet": only its meaning finds A3
    assert (row["bm25_top3"], row["embeddings_top3"]) == (1, 2)
    assert cosine_ranking(hidden["instruction"], ARTICLE_TEXTS, CONCEPTS)[0][0] == "A3"
    assert measured["totals"]["bm25_share"] == 0.5 and measured["totals"]["embeddings_share"] == 1.0
    assert measured["model"] == f"toy@{service.base_url}"
