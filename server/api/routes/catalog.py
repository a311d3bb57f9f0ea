"""``/envs`` and ``/tasks``: browse environments and tasks, with pagination and filters."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query

from envs import CatalogEntry, Environment, Task
from envs.schemas.dialects import DEFAULT_DIALECT, Dialect

from ...auth import Principal
from ...schemas import EnvDetail, EnvList, EnvSummary, SkippedEnv, TaskAdmin, TaskList, TaskPublic, ToolInfo
from ..deps import FarmDep, PrincipalDep
from ..errors import documented

router = APIRouter(tags=["catalog"], responses=documented(401, 403, 422))
Limit = Annotated[int, Query(ge=1, le=500, description="Page size")]
Offset = Annotated[int, Query(ge=0, description="Items to skip")]
Difficulty = Literal["easy", "medium", "hard"]
# Path parameters, with examples from the reference environments (every catalog has them).
EnvId = Annotated[str, Path(description="Environment id", examples=["clinic"])]
TaskId = Annotated[str, Path(description="Task id", examples=["clinic-001"])]
DialectQuery = Annotated[
    Dialect,
    Query(description="The schema dialect of the tools' input schemas (docs/serving.md, 'Schema dialects')"),
]


def env_summary(entry: CatalogEntry) -> EnvSummary:
    s = entry.spec
    return EnvSummary(
        id=s.id,
        name=s.name,
        sector=s.sector,
        description=s.description,
        tools=len(s.tools),
        write_tools=sum(t.kind == "write" for t in s.tools),
        tasks=len(entry.tasks),
        dual_control=s.dual_control,
    )


def tool_infos(
    env: Environment, dialect: Dialect = DEFAULT_DIALECT, actor: str = "agent", withheld: frozenset[str] = frozenset()
) -> list[ToolInfo]:
    """``actor``'s tools (the agent's, or the user's in a dual-control environment) as the server's own
    environment advertises them (with the string limits it enforces), input schemas in ``dialect``;
    ``withheld`` ones left out."""
    return [
        ToolInfo(
            name=t.name,
            description=t.description,
            kind=t.kind,
            input_schema=env.schema_in(t.name, dialect),
            output_schema=env.output_schema(t.name),
        )
        for t in env.spec.tools_of("user" if actor == "user" else "agent")
        if t.name not in withheld
    ]


def task_view(task: Task, principal: Principal) -> TaskPublic | TaskAdmin:
    """Non-admin keys never see gold actions, the answer checks (outputs, distractors, refusals, the
    reference answer) or the checklist."""
    public = {
        "id": task.id,
        "env": task.env,
        "instruction": task.instruction,
        "user": task.user,
        "difficulty": task.difficulty,
        "tags": task.tags,
        "gold_calls": len(task.gold_actions),
    }
    if not principal.admin:
        return TaskPublic(**public)
    return TaskAdmin(
        **public,
        gold_actions=[a.model_dump() for a in task.gold_actions],
        outputs=task.outputs,
        distractors=task.distractors,
        refusals=[r.model_dump(exclude_none=True) for r in task.refusals],
        answer=task.answer,
        assertions=[a.model_dump() for a in task.assertions],
        reward_basis=list(task.reward_basis),
        required_documents=task.required_documents,
    )


@router.get("/envs", response_model=EnvList)
def list_envs(
    farm: FarmDep, principal: PrincipalDep, sector: str | None = None, limit: Limit = 50, offset: Offset = 0
) -> EnvList:
    """Environments in the catalog, optionally of one sector. Those that do not validate are listed
    under ``skipped`` with the reason, never failing the listing."""
    entries = farm.catalog.entries()
    if sector:
        entries = [e for e in entries if e.spec.sector == sector]
    page = entries[offset : offset + limit]
    skipped = [SkippedEnv(id=env_id, reason=exc.reason) for env_id, exc in farm.catalog.invalid().items()]
    return EnvList(
        total=len(entries), limit=limit, offset=offset, items=[env_summary(e) for e in page], skipped=skipped
    )


@router.get("/envs/{env_id}", response_model=EnvDetail, responses=documented(404, 409))
def get_env(
    env_id: EnvId, farm: FarmDep, principal: PrincipalDep, dialect: DialectQuery = DEFAULT_DIALECT
) -> EnvDetail:
    """One environment: policy, tables and tools."""
    entry = farm.catalog.get(env_id)
    env = farm.service.environment(env_id)
    return EnvDetail(
        **env_summary(entry).model_dump(),
        policy=entry.spec.policy,
        tables=[t.model_dump(mode="json") for t in entry.spec.tables],
        tool_list=tool_infos(env, dialect),
        user_tool_list=tool_infos(env, dialect, "user") if env.dual_control else None,
        user_guide=env.spec.user_guide or None,
    )


def _task_page(tasks: list[Task], principal: Principal, difficulty: str | None, limit: int, offset: int) -> TaskList:
    if difficulty:
        tasks = [t for t in tasks if t.difficulty == difficulty]
    page = tasks[offset : offset + limit]
    return TaskList(total=len(tasks), limit=limit, offset=offset, items=[task_view(t, principal) for t in page])


@router.get("/envs/{env_id}/tasks", response_model=TaskList, responses=documented(404, 409))
def list_env_tasks(
    env_id: EnvId,
    farm: FarmDep,
    principal: PrincipalDep,
    difficulty: Difficulty | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> TaskList:
    """Tasks of one environment."""
    return _task_page(farm.catalog.get(env_id).tasks, principal, difficulty, limit, offset)


@router.get("/tasks", response_model=TaskList)
def list_tasks(
    farm: FarmDep,
    principal: PrincipalDep,
    sector: str | None = None,
    difficulty: Difficulty | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> TaskList:
    """Tasks across the catalog, filtered by sector and difficulty."""
    tasks = [t for entry in farm.catalog.entries() if not sector or entry.spec.sector == sector for t in entry.tasks]
    return _task_page(tasks, principal, difficulty, limit, offset)


@router.get("/tasks/{task_id}", response_model=TaskAdmin | TaskPublic, responses=documented(404, 409))
def get_task(task_id: TaskId, farm: FarmDep, principal: PrincipalDep) -> TaskPublic | TaskAdmin:
    """One task (gold actions only for admin keys)."""
    return task_view(farm.catalog.task(task_id)[1], principal)
