"""``/episodes``: create, inspect, call tools without MCP, score and close episodes."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from envs import Score
from envs.formats.knowledge_modes import knowledge_policy, withheld_tools
from envs.schemas.dialects import DEFAULT_DIALECT, DIALECT_FIELD, Dialect

from ...auth import Principal
from ...episode_memory import LiveEpisode
from ...errors import Forbidden
from ...schemas import (
    CallLogPage,
    CallRequest,
    CallResponse,
    EpisodeCreate,
    EpisodeCreated,
    EpisodeList,
    EpisodeStatus,
    ScoreRequest,
)
from ...store import STORE_UNREACHABLE, EpisodeRow, StoredCall
from ..deps import FarmDep, FarmState, PrincipalDep, get_principal
from ..errors import documented
from ..json_bodies import RustJsonRoute
from ..log_pages import calls_json, next_page, with_field
from .catalog import Limit, Offset, tool_infos

log = logging.getLogger("envfarm.server")
router = APIRouter(  # 503: the store is down
    tags=["episodes"], responses=documented(401, 403, 408, 413, 422, 503), route_class=RustJsonRoute
)
_METRICS_TEXT = {"text/plain": {"schema": {"type": "string"}}}
LOG_PAGE_CALLS = 100  # calls per page of GET /episodes/{id}/log unless the client asks for other
#: Calls GET /episodes/{id} embeds at most: every call of an episode within the call limit, so that
#: only a log over ENVFARM_LOG_PAGE_MAX_BYTES comes in pages (log_next).
EMBEDDED_LOG_CALLS = 10_000
LogLimit = Annotated[
    int, Query(ge=1, le=1000, description="Calls per page at most (a page also ends at ENVFARM_LOG_PAGE_MAX_BYTES)")
]
After = Annotated[
    int, Query(ge=0, le=2**31 - 1, description="Only calls with seq above this (the last seq of the page before)")
]


def _json(body: bytes) -> Response:
    return Response(body, media_type="application/json")


async def _status(farm: FarmState, row: EpisodeRow) -> EpisodeStatus:
    return EpisodeStatus(
        episode_id=row.id,
        env_id=row.env_id,
        task_id=row.task_id,
        status=row.status,
        created_at=row.created_at,
        last_active_at=row.last_active_at,
        expires_at=farm.service.expires_at(row),
        calls=row.calls,
        log_bytes=row.log_bytes,
        knowledge=row.knowledge,
    )


def base_url(farm: FarmState, request: Request) -> str:
    """Where clients reach this server: ``public_url``, else the address of the socket the request came
    in on. Never the Host header, which the caller chooses (a DNS-rebinding page would get its own name)."""
    if farm.settings.public_url:
        return farm.settings.public_url.rstrip("/")
    scheme = request.scope.get("scheme", "http")
    host, port = request.scope.get("server") or (None, None)
    if host is None or port is None:  # a Unix socket: only the settings say where TCP clients would go
        host, port = farm.settings.host, farm.settings.port
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def mcp_url(
    farm: FarmState, request: Request, episode_id: str, dialect: Dialect = DEFAULT_DIALECT, *, actor: str = "agent"
) -> str:
    """An episode's MCP endpoint: the agent's, or the user's (``actor="user"``, dual control)."""
    query = "" if dialect == DEFAULT_DIALECT else f"?{DIALECT_FIELD}={dialect}"
    side = "user/" if actor == "user" else ""
    return base_url(farm, request) + f"/episodes/{episode_id}/{side}mcp{query}"


@router.post("/episodes", status_code=201, response_model=EpisodeCreated, responses=documented(400, 404, 409, 429))
async def create_episode(
    body: EpisodeCreate, request: Request, farm: FarmDep, principal: PrincipalDep
) -> EpisodeCreated:
    """Start an episode of a task, free play in an environment, or a fork of an episode; get its MCP URL."""
    live = await farm.service.create(
        principal, task_id=body.task_id, env_id=body.env_id, fork_of=body.fork_of, knowledge=body.knowledge
    )
    entry, mode = farm.catalog.get(live.row.env_id), live.row.knowledge
    return EpisodeCreated(
        episode_id=live.row.id,
        env_id=live.row.env_id,
        task_id=live.row.task_id,
        mcp_url=mcp_url(farm, request, live.row.id, body.dialect),
        instruction=live.task.instruction if live.task else None,
        policy=knowledge_policy(entry.spec, mode, live.task),
        knowledge=mode,
        tools=tool_infos(live.env, body.dialect, withheld=withheld_tools(entry.spec, mode)),
        expires_at=farm.service.expires_at(live.row),
        **_user_side(farm, request, live, body.dialect),
    )


def _user_side(farm: FarmState, request: Request, live: LiveEpisode, dialect: Dialect) -> dict[str, Any]:
    """A dual-control episode's user side, for the user simulator: its endpoint, tools and guide."""
    if not live.env.dual_control:
        return {}
    return {
        "user_mcp_url": mcp_url(farm, request, live.row.id, dialect, actor="user"),
        "user_tools": tool_infos(live.env, dialect, "user"),
        "user_guide": live.env.spec.user_guide,
    }


@router.get("/episodes", response_model=EpisodeList)
async def list_episodes(
    farm: FarmDep,
    principal: PrincipalDep,
    status: Literal["open", "closed", "expired"] | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> EpisodeList:
    """Your episodes, newest first (e.g. ``status=open`` to find and close those a crashed trainer left)."""
    total, rows = farm.service.rows(principal, status=status, limit=limit, offset=offset)
    items = [await _status(farm, row) for row in rows]
    return EpisodeList(total=total, limit=limit, offset=offset, items=items)


@router.get("/episodes/{episode_id}", response_model=EpisodeStatus, responses=documented(404))
async def get_episode(episode_id: str, farm: FarmDep, principal: PrincipalDep, log: bool = True) -> Response:
    """Status and (unless log=false) the call log with timing: all of it, or for a log larger than one
    page (ENVFARM_LOG_PAGE_MAX_BYTES), its first page and ``log_next``, where the rest is."""
    status = await _status(farm, farm.service.row(principal, episode_id))
    if not log:
        return _json(status.model_dump_json().encode())
    farm.service.flush()  # buffered rows are part of the log
    _, page, more, calls = await _read_page(farm, principal, episode_id, after=0, limit=EMBEDDED_LOG_CALLS)
    status.log_next = next_page(episode_id, page, more, LOG_PAGE_CALLS)
    return _json(with_field(status.model_dump_json(exclude={"log"}), "log", calls))


@router.get("/episodes/{episode_id}/log", response_model=CallLogPage, responses=documented(404))
async def get_log(
    episode_id: str, farm: FarmDep, principal: PrincipalDep, after: After = 0, limit: LogLimit = LOG_PAGE_CALLS
) -> Response:
    """A page of the call log: calls with seq above ``after``, in order, at most ``limit`` of them and
    about ENVFARM_LOG_PAGE_MAX_BYTES (one call at least); ``next`` is the following page, null at the end."""
    farm.service.row(principal, episode_id)  # another tenant's episode is not found
    farm.service.flush()
    total, page, more, calls = await _read_page(farm, principal, episode_id, after=after, limit=limit)
    head = CallLogPage(
        episode_id=episode_id,
        total=total,
        after=after,
        limit=limit,
        items=[],
        next=next_page(episode_id, page, more, limit),
    )
    return _json(with_field(head.model_dump_json(exclude={"items"}), "items", calls))


async def _read_page(
    farm: FarmState, principal: Principal, episode_id: str, *, after: int, limit: int
) -> tuple[int, list[StoredCall], bool, str]:
    """A page of the log and its JSON text, read in a worker thread under the tenant's share: a page
    is megabytes of store reads and text, and eight readers on the event loop held every tenant's
    calls behind them (``envfarm bench isolation``, phase log_reads)."""

    def read() -> tuple[int, list[StoredCall], bool, str]:
        total, page, more = farm.store.log_page(
            episode_id, after=after, limit=limit, max_bytes=farm.settings.log_page_max_bytes
        )
        return total, page, more, calls_json(page)

    return await farm.service.workers.run(principal.tenant, read)


@router.post("/episodes/{episode_id}/calls", response_model=CallResponse, responses=documented(400, 404, 410, 429, 503))
async def call_tool(episode_id: str, body: CallRequest, farm: FarmDep, principal: PrincipalDep) -> CallResponse:
    """Call a tool without MCP (for trainers; ``actor: "user"`` for a dual-control environment's user
    simulator). A failed tool call is a 200 with is_error=true."""
    out = await farm.service.call(principal, episode_id, body.tool, body.arguments, transport="rest", actor=body.actor)
    return CallResponse(
        seq=out.seq,
        is_error=out.is_error,
        content=out.content,
        error_type=out.error_type,
        message=out.message,
        duration_ms=out.duration_ms,
    )


@router.post("/episodes/{episode_id}/reset", response_model=EpisodeStatus, responses=documented(404, 410, 429, 503))
async def reset_episode(episode_id: str, farm: FarmDep, principal: PrincipalDep) -> EpisodeStatus:
    """Put the episode back in its initial state, keeping its id and MCP URL (agents stay connected).
    The log keeps every call and the reset itself (kind "reset")."""
    return await _status(farm, await farm.service.reset(principal, episode_id))


@router.post("/episodes/{episode_id}/score", response_model=Score, responses=documented(404, 409, 410, 503))
async def score_episode(
    episode_id: str, farm: FarmDep, principal: PrincipalDep, body: ScoreRequest | None = None
) -> Score:
    """Score the episode's current state against its task (reward, partial credit, diff). The score is
    kept as the episode's last (the console's episode page shows it)."""
    answer = body.answer if body else ""
    score = await farm.service.score(principal, episode_id, answer)
    try:
        farm.scores.record(episode_id, score, answer)
    except STORE_UNREACHABLE:  # the score stands; only the console's record of it is missing
        log.warning("could not record the score", extra={"episode_id": episode_id}, exc_info=True)
    return score


@router.delete("/episodes/{episode_id}", response_model=EpisodeStatus, responses=documented(404))
async def close_episode(episode_id: str, farm: FarmDep, principal: PrincipalDep) -> EpisodeStatus:
    """End the episode. Its log is kept until retention ends."""
    return await _status(farm, await farm.service.close(principal, episode_id))


@router.get(
    "/healthz",
    tags=["ops"],
    responses={503: {"description": "The episode store does not answer: no call can be recorded"}},
)
def healthz(farm: FarmDep) -> JSONResponse:
    """Liveness, whether the episode store answers, and a little state; no key needed. A 503 tells a
    load balancer or orchestrator to send calls elsewhere: this replica cannot record them."""
    store_ok = farm.store.reachable()
    body = {
        "status": "ok" if store_ok else "unavailable",
        "store": "ok" if store_ok else "unreachable",
        "envs": len(farm.catalog.ids()),
        "episodes_in_memory": farm.service.in_memory,
    }
    return JSONResponse(body, status_code=200 if store_ok else 503)


@router.get(
    "/metrics",
    tags=["ops"],
    response_class=Response,
    responses={200: {"content": _METRICS_TEXT, "description": "Prometheus text format"}},
)
def metrics(farm: FarmDep, request: Request) -> Response:
    """Prometheus metrics. They cover every tenant, so with API keys configured only an admin key reads
    them, unless ``ENVFARM_METRICS_PUBLIC=true``."""
    if not farm.keys.local_mode and not farm.settings.metrics_public and not get_principal(request).admin:
        raise Forbidden(
            "/metrics covers every tenant: use an admin key, or set ENVFARM_METRICS_PUBLIC=true",
            field="authorization",
        )
    return Response(farm.metrics.render(), media_type="text/plain; version=0.0.4")
