"""Console pages of episodes: the viewer's tenant's episodes, and one episode's calls as a timeline.

Episodes are looked up as the REST API does (``EpisodeService.row``/``rows``: another tenant's episode
is not found) and calls are read from the store a page at a time, in a worker thread under the
viewer's share, like ``GET /episodes/{id}/log``. While an episode is open its page asks every second
(htmx) for the calls after the last one it shows, with its status and last score, and stops once
the episode has ended and every call is shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from envs.errors import EnvFarmError
from envs.formats.knowledge_modes import KnowledgeMode

from ..api.deps import FarmDep, FarmState
from ..api.routes.episodes import After, mcp_url
from ..auth import Principal
from ..store import EpisodeRow, StoredCall
from .pages import ConsoleRoute, render
from .session import PREFIX, ViewerDep

router = APIRouter(prefix=PREFIX, route_class=ConsoleRoute, include_in_schema=False)
PAGE_CALLS = 200  # calls one response renders at most; the next poll brings the next ones
LIST_PAGE = 50
#: Characters of one argument or result shown; the rest is in the REST log.
SHOWN_CHARS = 20_000


@dataclass
class CallView:
    """One logged call as the timeline shows it."""

    seq: int
    tool: str
    kind: str
    transport: str
    actor: str  # the agent, or the user (dual control)
    is_error: bool
    error_type: str | None
    offset_s: float  # seconds since the episode started
    duration_ms: float
    arguments: str
    result: str


def _shown(text: str | None) -> str:
    if text is None:
        return "null"
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    # a string (an error's message, an id) as its own text; anything else as indented JSON
    pretty = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    if len(pretty) > SHOWN_CHARS:
        return pretty[:SHOWN_CHARS] + f"\n… {len(pretty) - SHOWN_CHARS:,} more characters (GET the log over REST)"
    return pretty


def call_view(call: StoredCall, started: float) -> CallView:
    return CallView(
        seq=call.seq,
        tool=call.tool,
        kind=call.kind,
        transport=call.transport,
        actor=call.actor,
        is_error=call.is_error,
        error_type=call.error_type,
        offset_s=max(0.0, call.started_at - started),
        duration_ms=call.duration_ms,
        arguments=_shown(call.arguments_json),
        result=_shown(call.result_json),
    )


async def _calls(farm: FarmState, viewer: Principal, row: EpisodeRow, after: int) -> tuple[list[CallView], bool]:
    """Calls after ``after`` (a page), and whether more follow."""
    farm.service.flush()  # buffered rows are part of the log

    def read() -> tuple[list[CallView], bool]:
        _, page, more = farm.store.log_page(
            row.id, after=after, limit=PAGE_CALLS, max_bytes=farm.settings.log_page_max_bytes
        )
        return [call_view(c, row.created_at) for c in page], more

    return await farm.service.workers.run(viewer.tenant, read)


def _status(farm: FarmState, row: EpisodeRow) -> dict[str, Any]:
    recorded = farm.scores.last(row.id)
    return {"row": row, "expires_at": farm.service.expires_at(row), "recorded": recorded}


@router.get("/episodes", response_class=HTMLResponse)
def episodes_page(
    request: Request,
    farm: FarmDep,
    viewer: ViewerDep,
    status: Literal["open", "closed", "expired"] | None = None,
    offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
    fragment: bool = False,
) -> HTMLResponse:
    """The tenant's episodes, newest first, with status, calls and last reward; refreshed while shown."""
    total, rows = farm.service.rows(viewer, status=status, limit=LIST_PAGE, offset=offset)
    items = [_status(farm, row) for row in rows]
    return render(
        request,
        "_episode_rows.html" if fragment else "episodes.html",
        viewer=viewer,
        items=items,
        total=total,
        offset=offset,
        limit=LIST_PAGE,
        status=status,
    )


@router.get("/episodes/{episode_id}", response_class=HTMLResponse)
async def episode_page(request: Request, episode_id: str, farm: FarmDep, viewer: ViewerDep) -> HTMLResponse:
    """Status, the calls as a timeline (live while open), and the last score with its diff."""
    row = farm.service.row(viewer, episode_id)
    calls, more = await _calls(farm, viewer, row, 0)
    task = None
    if row.task_id:
        try:
            task = farm.catalog.task(row.task_id)[1]
        except EnvFarmError:  # the catalog served now no longer has it
            pass
    return render(
        request,
        "episode.html",
        viewer=viewer,
        **_timeline(farm, row, calls, more, after=0),
        task=task,
        **_endpoints(farm, request, row),
    )


@router.post("/tasks/{task_id}/episodes")
async def start_episode(
    task_id: str, farm: FarmDep, viewer: ViewerDep, knowledge: KnowledgeMode | None = None
) -> RedirectResponse:
    """Start an episode of the task under the viewer's key (the form on a task's page; ``knowledge``:
    where its agent finds the documents), and show it: its page holds the MCP URL and a client snippet.
    The console's cookie is ``SameSite=Strict``, so another site cannot make a browser post this."""
    live = await farm.service.create(viewer, task_id=task_id, env_id=None, knowledge=knowledge)
    return RedirectResponse(f"{PREFIX}/episodes/{live.row.id}", status_code=303)


@router.get("/episodes/{episode_id}/live", response_class=HTMLResponse)
async def episode_live(
    request: Request, episode_id: str, farm: FarmDep, viewer: ViewerDep, after: After = 0
) -> HTMLResponse:
    """What the episode page polls: the calls after ``after``, the status and score panels (swapped
    in by id), and the next poller while there is more to come."""
    row = farm.service.row(viewer, episode_id)
    calls, more = await _calls(farm, viewer, row, after)
    # the status card is redrawn whole: with the MCP URL, which it once lost a second after the page loaded
    timeline = _timeline(farm, row, calls, more, after=after)
    return render(request, "_live.html", viewer=viewer, **timeline, **_endpoints(farm, request, row))


def _endpoints(farm: FarmState, request: Request, row: EpisodeRow) -> dict[str, Any]:
    """The episode's MCP URLs: the agent's, and where the user acts too (dual control), the user's."""
    try:
        dual = farm.service.environment(row.env_id).dual_control
    except EnvFarmError:  # the catalog served now no longer has it: the agent's URL is all there is to show
        dual = False
    return {
        "mcp_url": mcp_url(farm, request, row.id),
        "user_mcp_url": mcp_url(farm, request, row.id, actor="user") if dual else None,
    }


def _timeline(farm: FarmState, row: EpisodeRow, calls: list[CallView], more: bool, *, after: int) -> dict[str, Any]:
    """What the episode page and its poller both show: status, the calls read, and whether (and
    after which call) to poll again."""
    return {
        **_status(farm, row),
        "calls": calls,
        "polling": row.status == "open" or more,
        "after": calls[-1].seq if calls else after,
    }
