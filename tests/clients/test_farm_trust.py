"""What the clients accept from a farm: the key goes to the configured origin only, and listings and
responses are read within bounds (``clients.guard``).

The refused ``mcp_url`` comes from the real farm, configured with a public URL on another port where a
bystander listens; the farms whose pages or bodies never end are small hostile HTTP servers
(``tests/clients/hostile.py``), since the real farm cannot be made to misbehave that way.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients import FarmClient, FarmEnv, ForeignOriginError, PagingError, ResponseTooLarge, open_episode
from clients.guard import MAX_PAGES, MAX_RESPONSE_BYTES, origin, require_same_origin
from clients.training import LiveEpisode, load_task_rows
from server.api import create_app
from server.settings import Settings
from server.threaded import ThreadedServer

from .hostile import HostileServer, Reply, Route, Seen, endless_bytes

KEY = "farm-key-that-must-stay-home"


@pytest.fixture
def bystander() -> Iterator[HostileServer]:
    """A listener on another port of the same host: whatever reaches it has left the farm's origin."""
    with HostileServer(lambda request: Reply(body={})) as server:
        yield server


@pytest.fixture
def misdirecting_farm(bystander: HostileServer, tmp_path: Path) -> Iterator[str]:
    """The real farm, with keys, whose ``mcp_url`` points at the bystander (a wrong ``public_url``)."""
    settings = Settings.load(data_dir=tmp_path / "farm", api_keys=f"{KEY} tenant-a", public_url=bystander.url)
    server = ThreadedServer(create_app(settings))
    try:
        yield server.start()
    finally:
        server.stop()


def test_an_mcp_url_on_another_origin_is_refused_and_the_key_never_reaches_it(
    misdirecting_farm: str, bystander: HostileServer
) -> None:
    async def scenario() -> tuple[ForeignOriginError, ForeignOriginError, list[str]]:
        async with FarmClient(misdirecting_farm, api_key=KEY) as farm:
            with pytest.raises(ForeignOriginError) as by_session:
                async with open_episode(farm, task_id="clinic-001"):
                    pass
            with pytest.raises(ForeignOriginError) as by_training_adapter:
                await LiveEpisode.open(farm, "clinic-001")
            still_open = [e.episode_id for e in await farm.list_episodes(status="open")]
        return by_session.value, by_training_adapter.value, still_open

    by_session, by_training_adapter, still_open = asyncio.run(scenario())

    assert bystander.seen == []
    for error in (by_session, by_training_adapter):
        assert error.url.startswith(bystander.url + "/episodes/")
        assert error.origin == origin(misdirecting_farm)
        assert error.url in str(error) and error.origin in str(error)
    assert still_open == []  # the refused episodes were closed at the farm itself


def test_the_configured_origin_is_scheme_host_and_port() -> None:
    base = "http://127.0.0.1:8765/"
    assert require_same_origin("http://127.0.0.1:8765/episodes/e1/mcp", base) == "http://127.0.0.1:8765/episodes/e1/mcp"
    assert require_same_origin("/episodes/e1/mcp", base) == "http://127.0.0.1:8765/episodes/e1/mcp"
    assert require_same_origin("http://farm.example.org/mcp", "http://farm.example.org:80") == (
        "http://farm.example.org/mcp"
    )
    for elsewhere in (
        "http://127.0.0.1:8766/episodes/e1/mcp",  # another port
        "https://127.0.0.1:8765/episodes/e1/mcp",  # another scheme
        "http://localhost:8765/episodes/e1/mcp",  # another name, even for the same machine
        "http://127.0.0.1.evil.example:8765/mcp",
        "//127.0.0.2:8765/mcp",
    ):
        with pytest.raises(ForeignOriginError) as refused:
            require_same_origin(elsewhere, base)
        assert refused.value.origin == "http://127.0.0.1:8765"


def _endless_pages(request: Seen) -> Reply:
    """Every page is full and new, and the total always lies one page ahead."""
    offset, limit = int(request.query.get("offset", 0)), int(request.query.get("limit", 50))
    items = [{"id": f"env-{offset + i}"} for i in range(limit)]
    return Reply(body={"items": items, "total": offset + 2 * limit, "limit": limit, "offset": offset})


def _same_page_again(request: Seen) -> Reply:
    """The offset is ignored: the first page, again and again (no ``offset`` in the answer)."""
    return Reply(body={"items": [{"id": "env-0"}, {"id": "env-1"}], "total": 10**9})


_served = itertools.count()


def _wrong_offset(request: Seen) -> Reply:
    """A new page each time, always claiming to be the first."""
    return Reply(body={"items": [{"id": f"env-{next(_served)}"}], "total": 10**9, "offset": 0})


def test_a_farm_whose_pages_never_end_is_stopped_with_a_paging_error() -> None:
    with HostileServer(_endless_pages) as farm:
        with pytest.raises(PagingError) as stopped:
            load_task_rows(farm.url, "all", api_key=KEY)
        assert stopped.value.path == "/envs"
        assert 1 < len(farm.seen) <= MAX_PAGES

        farm.seen.clear()

        async def list_tasks() -> None:
            async with FarmClient(farm.url, api_key=KEY) as client:
                await client.list_tasks()

        with pytest.raises(PagingError):
            asyncio.run(list_tasks())
        assert 1 < len(farm.seen) <= MAX_PAGES


@pytest.mark.parametrize("route", [_same_page_again, _wrong_offset], ids=["repeated page", "wrong offset"])
def test_a_page_that_makes_no_progress_stops_the_listing_at_once(route: Route) -> None:
    with HostileServer(route) as farm:
        with pytest.raises(PagingError):
            load_task_rows(farm.url, "all")
        assert len(farm.seen) == 2


def test_a_response_that_never_ends_is_cut_at_the_limit() -> None:
    with HostileServer(lambda request: Reply(stream=endless_bytes())) as farm:
        with pytest.raises(ResponseTooLarge) as cut:
            load_task_rows(farm.url, "all", api_key=KEY)
        assert cut.value.max_bytes == MAX_RESPONSE_BYTES
        assert cut.value.url.startswith(farm.url + "/envs")

        with pytest.raises(ResponseTooLarge):
            FarmEnv(farm.url, api_key=KEY).reset("clinic-001")

        async def health(max_bytes: int) -> None:
            async with FarmClient(farm.url, max_response_bytes=max_bytes) as client:
                await client.health()

        with pytest.raises(ResponseTooLarge) as small:
            asyncio.run(health(10_000))
        assert small.value.max_bytes == 10_000


def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    huge = Reply(headers={"content-length": str(10 * MAX_RESPONSE_BYTES)}, stream=iter([b"{}"]))
    with HostileServer(lambda request: huge) as farm:

        async def health() -> None:
            async with FarmClient(farm.url) as client:
                await client.health()

        with pytest.raises(ResponseTooLarge):
            asyncio.run(health())


def test_the_real_farm_is_read_as_before(farm_url: str) -> None:
    rows = load_task_rows(farm_url, "env:clinic")
    assert rows and all(r["env_id"] == "clinic" and r["policy"] for r in rows)
