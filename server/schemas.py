"""REST request and response models (kept apart from the ``envs`` formats)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envs.formats.knowledge_modes import KnowledgeMode
from envs.formats.task import UserProfile
from envs.schemas.dialects import DEFAULT_DIALECT, Dialect


class ApiModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(ApiModel):
    code: str
    message: str
    field: str | None = None


class ErrorResponse(ApiModel):
    error: ErrorBody


class Page(ApiModel):
    total: int
    limit: int
    offset: int


class EnvSummary(ApiModel):
    id: str
    name: str
    sector: str
    description: str
    tools: int
    write_tools: int
    tasks: int
    dual_control: bool = Field(False, description="Whether the user acts too, with tools and state of their own")


class SkippedEnv(ApiModel):
    """An environment of the catalog that does not validate: not served, and not counted in ``total``."""

    id: str
    reason: str = Field(description="The validation error, naming the file (relative to the catalog) and the field")


class EnvList(Page):
    items: list[EnvSummary]
    skipped: list[SkippedEnv] = Field(
        default_factory=list, description="Environments of the catalog left out because they do not validate"
    )


class ToolInfo(ApiModel):
    """A tool as agents see it: the schemas are the ones MCP ``tools/list`` shows (docs/serving.md)."""

    name: str
    description: str
    kind: Literal["read", "write"]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None


class EnvDetail(EnvSummary):
    policy: str
    tables: list[dict[str, Any]]
    tool_list: list[ToolInfo] = Field(description="The agent's tools")
    user_tool_list: list[ToolInfo] | None = Field(
        None, description="The user's own tools (dual control: the user acts too); null where only the agent acts"
    )
    user_guide: str | None = Field(None, description="For the user simulator: what the user sees and can do")


class TaskPublic(ApiModel):
    """A task as non-admin keys see it: no gold actions, answer checks or checklist."""

    id: str
    env: str
    instruction: str
    user: UserProfile
    difficulty: str
    tags: list[str]
    gold_calls: int


class TaskAdmin(TaskPublic):
    gold_actions: list[dict[str, Any]]
    outputs: list[str]
    distractors: list[str] = []
    refusals: list[dict[str, Any]] = []
    answer: str | None = None
    assertions: list[dict[str, Any]]
    reward_basis: list[str]
    required_documents: list[str] = Field([], description="The documents whose facts decide the task")


class TaskList(Page):
    items: list[TaskPublic | TaskAdmin]


class EpisodeCreate(ApiModel):
    model_config = ConfigDict(
        extra="forbid",
        # One of the three must be given, as a string (the others may be absent or null).
        json_schema_extra={
            "anyOf": [
                {"required": ["task_id"], "properties": {"task_id": {"type": "string"}}},
                {"required": ["env_id"], "properties": {"env_id": {"type": "string"}}},
                {"required": ["fork_of"], "properties": {"fork_of": {"type": "string"}}},
            ]
        },
    )

    task_id: str | None = Field(None, description="Start an episode of this task", examples=["clinic-001"])
    env_id: str | None = Field(None, description="Free play in this environment (when no task_id)", examples=["clinic"])
    fork_of: str | None = Field(
        None,
        description="Start from another of your episodes' current state, with its task (a task_id or env_id "
        "given too must be its own); its committed writes become the fork's log, and the two then go their own ways",
        examples=["ep_3sBZlY5kD1vUq7eGkPz0rJXa"],
    )
    dialect: Dialect = Field(
        DEFAULT_DIALECT,
        description="The schema dialect of the tools' input schemas, in the response's tools and over its "
        "mcp_url (which then carries ?dialect=): 'default' is converted whole by every client tested, google-genai "
        "included; 'strict' for code that hands the schemas to OpenAI or Anthropic with strict: true and converts "
        "nothing; 'gemini' is the default's shape (docs/serving.md)",
        examples=["strict"],
    )
    knowledge: KnowledgeMode | None = Field(
        None,
        description="Where the agent finds an environment's documents: 'search' (tools; the default), 'full' "
        "(every document in the policy, no document tools), 'required' (the task's required documents in the "
        "policy), 'none' (neither); a fork keeps its source's (docs/serving.md)",
        examples=["full"],
    )


class EpisodeCreated(ApiModel):
    episode_id: str
    env_id: str
    task_id: str | None
    mcp_url: str
    instruction: str | None
    policy: str
    knowledge: KnowledgeMode = Field("search", description="Where the agent finds the documents (see the request)")
    tools: list[ToolInfo]
    expires_at: float
    user_mcp_url: str | None = Field(
        None,
        description="Dual control: the user simulator's MCP endpoint (the user's own tools); null where only "
        "the agent acts",
    )
    user_tools: list[ToolInfo] | None = Field(None, description="Dual control: the user's own tools")
    user_guide: str | None = Field(None, description="Dual control: what the user sees and can do")


class CallRecord(ApiModel):
    seq: int
    tool: str
    arguments: dict[str, Any]
    kind: str
    is_error: bool
    result: Any
    error_type: str | None
    started_at: float
    duration_ms: float
    transport: str
    actor: Literal["agent", "user"] = Field("agent", description="Who called: the agent, or the user (dual control)")


class EpisodeStatus(ApiModel):
    episode_id: str
    env_id: str
    task_id: str | None
    status: str
    created_at: float
    last_active_at: float
    expires_at: float
    calls: int
    log_bytes: int = Field(0, description="Bytes its call log holds (arguments and results), as the quotas count")
    knowledge: KnowledgeMode = Field("search", description="Where the agent finds the documents")
    log: list[CallRecord] | None = Field(
        None,
        description="The call log (with log=true): all of it, or, for a log over one page, the first page and log_next",
    )
    log_next: str | None = Field(None, description="Where the rest of the log is (GET), when log holds only its start")


class CallLogPage(ApiModel):
    """A page of an episode's call log (``GET /episodes/{id}/log``)."""

    episode_id: str
    total: int = Field(description="Calls in the whole log")
    after: int = Field(description="The page holds calls with seq above this")
    limit: int
    items: list[CallRecord]
    next: str | None = Field(description="The next page's path, or null at the end of the log")


class EpisodeList(Page):
    items: list[EpisodeStatus]


class CallRequest(ApiModel):
    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    actor: Literal["agent", "user"] = Field(
        "agent", description="Who calls: the agent, or in a dual-control environment the user (their own tools)"
    )


class CallResponse(ApiModel):
    seq: int
    is_error: bool
    content: Any = None
    error_type: str | None = None
    message: str | None = None
    duration_ms: float


class ScoreRequest(ApiModel):
    answer: str = Field("", description="The agent's final answer text, matched against required outputs")
