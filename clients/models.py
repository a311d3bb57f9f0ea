"""The client's view of the task service's REST payloads.

These mirror the server's response models but are defined here (``clients`` never imports
``server``) and ignore unknown fields, so an older client keeps working against a newer server.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .wire import ToolCall, UserProfile


class View(BaseModel):
    """Base of REST views: unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")


class EnvInfo(View):
    """One environment as ``GET /envs`` lists it (``policy`` and ``tools`` only from ``GET /envs/{id}``)."""

    id: str
    name: str
    sector: str
    description: str = ""
    tools: int = 0
    write_tools: int = 0
    tasks: int = 0
    dual_control: bool = False  # the user acts too (their own tools and state)
    policy: str | None = None
    tool_list: list[ToolInfo] = []


class ToolInfo(View):
    """A tool of an environment: name, description, kind and JSON Schema of its arguments."""

    name: str
    description: str = ""
    kind: str = "read"
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: dict[str, Any] | None = None


class TaskView(View):
    """A task as the service shows it. ``gold_actions``/``outputs``/``assertions`` are None unless the
    key is an admin key."""

    id: str
    env: str
    instruction: str
    user: UserProfile = UserProfile()
    difficulty: str = "medium"
    tags: list[str] = []
    gold_calls: int = 0
    gold_actions: list[ToolCall] | None = None
    outputs: list[str] | None = None
    distractors: list[str] | None = None
    refusals: list[dict[str, Any]] | None = None
    answer: str | None = None
    assertions: list[dict[str, Any]] | None = None
    reward_basis: list[str] | None = None
    required_documents: list[str] | None = None  # the documents whose facts decide the task (admin view)

    @property
    def reference_answer(self) -> str:
        """The task's reference answer (admin view), or its required outputs, one per line, or "Done."."""
        return self.answer or "\n".join(self.outputs or []) or "Done."

    @property
    def is_admin_view(self) -> bool:
        """Whether the gold actions are visible (the key is an admin key)."""
        return self.gold_actions is not None


class EpisodeInfo(View):
    """What ``POST /episodes`` returns: the episode id, its MCP URL, instruction, policy and tools."""

    episode_id: str
    env_id: str
    task_id: str | None = None
    mcp_url: str
    instruction: str | None = None
    policy: str = ""
    #: Where the agent finds the environment's documents: search (tools), full, required or none (in the policy).
    knowledge: str = "search"
    tools: list[ToolInfo] = []
    expires_at: float = 0.0
    #: Dual control (the user acts too): the user's MCP endpoint, tools and guide; None elsewhere.
    user_mcp_url: str | None = None
    user_tools: list[ToolInfo] | None = None
    user_guide: str | None = None


class CallResult(View):
    """A tool call made over REST (``POST /episodes/{id}/calls``)."""

    seq: int
    is_error: bool
    content: Any = None
    error_type: str | None = None
    message: str | None = None
    duration_ms: float = 0.0


class EpisodeStatus(View):
    """``GET /episodes/{id}``: status, call count and (optionally) the call log."""

    episode_id: str
    env_id: str
    task_id: str | None = None
    status: str
    calls: int = 0
    expires_at: float = 0.0
    log_bytes: int = 0
    knowledge: str = "search"
    log: list[dict[str, Any]] | None = None
    log_next: str | None = None


EnvInfo.model_rebuild()
