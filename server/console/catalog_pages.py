"""Console pages of the catalog: every environment, one environment, one task.

The data is the REST API's (``routes.catalog``: the same summaries, the same advertised tool schemas,
the same task view, so gold actions and checks show for admin keys only). Quality measures replay
every task of an environment (about half a second each), so they are measured when first asked for,
in a worker thread under the viewer's share, and kept for the life of the server.
"""

from __future__ import annotations

import logging
from typing import Literal
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from envs import Catalog, CatalogEntry, Task
from envs.formats.knowledge_modes import KnowledgeModeError, check_mode
from envs.formats.spec import EnvSpec
from envs.quality import ENV_COLUMNS, EnvQuality, env_quality

from ..api.deps import FarmDep, FarmState
from ..api.routes.catalog import env_summary, task_view, tool_infos
from ..auth import Principal
from .pages import ConsoleRoute, render
from .session import PREFIX, ViewerDep
from .views import dependencies, guards, table_views

log = logging.getLogger("envfarm.server")
router = APIRouter(prefix=PREFIX, route_class=ConsoleRoute, include_in_schema=False)
#: The measures the catalog list shows for each environment (the environment page shows them all),
#: each with what it counts and what a good value is (docs/synthesis.md, "Quality report", has them all).
LIST_MEASURES = ("refusal", "writes used", "policy-only", "dependent", "incoherent", "ambiguous")
MEASURE_HELP = {
    "refusal": "Share of tasks where the agent must decline all or part of the request "
    "(measure 1; 10–20 % is healthy).",
    "writes used": "Write tools that at least one task's gold actions call, of all write tools "
    "(measure 2; all is best).",
    "policy-only": "Rules only the policy states, which no tool enforces: the agent must hold back itself "
    "(measure 19; 40 % or more).",
    "dependent": "Share of tasks whose later write needs what an earlier write made (dependent chains; "
    "many, none undoing another).",
    "incoherent": "Seed rows whose two references disagree, of the rows that could (measure 6; 0 is the target; "
    "— when no row has such a pair).",
    "ambiguous": "Write goals the user cannot name unambiguously, of all write goals (measure 9; 0 is the target).",
}


_measured: WeakKeyDictionary[Catalog, dict[str, EnvQuality]] = WeakKeyDictionary()


async def quality(farm: FarmState, viewer: Principal, entry: CatalogEntry) -> EnvQuality:
    """The environment's quality measures, measured once per catalog."""
    cache = _measured.setdefault(farm.catalog, {})
    found = cache.get(entry.spec.id)
    if found is None:
        found = await farm.service.workers.run(viewer.tenant, lambda: env_quality(entry))
        cache[entry.spec.id] = found
    return found


def measures(q: EnvQuality, names: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """(label, value) of the quality measures ``names`` in that order, or of every measure; a count of
    nothing checked ("0/0") is shown as "—"."""
    shows = dict(ENV_COLUMNS)
    return [(label, "—" if (v := shows[label](q.counts)) == "0/0" else v) for label in names or shows]


@router.get("/", response_class=HTMLResponse)
def catalog_page(request: Request, farm: FarmDep, viewer: ViewerDep, sector: str | None = None) -> HTMLResponse:
    """Every environment, by sector, with counts; quality measures load row by row."""
    entries = farm.catalog.entries()
    sectors = sorted({e.spec.sector for e in entries})
    shown = [e for e in entries if not sector or e.spec.sector == sector]
    return render(
        request,
        "catalog.html",
        viewer=viewer,
        envs=[env_summary(e) for e in shown],
        sectors=sectors,
        sector=sector,
        skipped=farm.catalog.invalid(),
        measure_names=LIST_MEASURES,
        measure_help=MEASURE_HELP,
    )


@router.get("/envs/{env_id}/quality", response_class=HTMLResponse)
async def quality_fragment(
    request: Request, env_id: str, farm: FarmDep, viewer: ViewerDep, view: Literal["cells", "table"] = "table"
) -> HTMLResponse:
    """Quality measures as a catalog row's cells or the environment page's table (htmx loads them)."""
    entry = farm.catalog.get(env_id)
    try:
        q = await quality(farm, viewer, entry)
    except Exception:  # a measure that fails must not leave the page waiting; the log says why
        log.exception("measuring quality failed", extra={"env_id": env_id})
        unmeasured = [(label, "?") for label in (LIST_MEASURES if view == "cells" else dict(ENV_COLUMNS))]
        return render(request, f"_quality_{view}.html", cells=unmeasured, quality=None)
    if view == "cells":
        return render(request, "_quality_cells.html", cells=measures(q, LIST_MEASURES))
    return render(request, "_quality_table.html", cells=measures(q), quality=q)


@router.get("/envs/{env_id}", response_class=HTMLResponse)
def env_page(request: Request, env_id: str, farm: FarmDep, viewer: ViewerDep) -> HTMLResponse:
    """Policy, tables, tools with their schemas and guards, dependencies, tasks and quality."""
    entry = farm.catalog.get(env_id)
    spec = entry.spec
    tools = tool_infos(farm.service.environment(env_id))
    deps, deps_source = dependencies(entry)
    return render(
        request,
        "env.html",
        viewer=viewer,
        env=env_summary(entry),
        spec=spec,
        tables=table_views(spec),
        tools=tools,
        guards={t.name: guards(spec, t) for t in spec.tools},
        deps=deps,
        deps_source=deps_source,
        tasks=entry.tasks,
    )


@router.get("/tasks/{task_id}", response_class=HTMLResponse)
def task_page(request: Request, task_id: str, farm: FarmDep, viewer: ViewerDep) -> HTMLResponse:
    """Instruction, user facts, and (admin keys) the gold path and what the score checks."""
    entry, task = farm.catalog.task(task_id)
    return render(
        request,
        "task.html",
        viewer=viewer,
        env=env_summary(entry),
        task=task,
        view=task_view(task, viewer),
        admin=viewer.admin,
        prompt_modes=_prompt_modes(entry.spec, task, embeddings=farm.service.embedder is not None),
    )


#: How the console offers each way of giving the agent an environment's documents in its prompt.
_PROMPT_MODES = {
    "full": "with every document in the prompt",
    "required": "with the task's required documents in the prompt",
    "none": "with no documents at all",
    "embeddings": "with the documents searched by meaning",
}


def _prompt_modes(spec: EnvSpec, task: Task, *, embeddings: bool) -> list[tuple[str, str]]:
    """The knowledge modes besides searching an episode of ``task`` can start in (none without documents;
    ``embeddings`` only on a farm given an embedding model)."""
    modes = []
    for mode, label in _PROMPT_MODES.items():
        if mode == "embeddings" and not embeddings:
            continue
        try:
            check_mode(spec, task, mode)
        except KnowledgeModeError:
            continue
        modes.append((mode, label))
    return modes
