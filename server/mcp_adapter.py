"""An MCP server (the SDK's low-level ``Server``) over one episode at a time.

Tools are the environment's tools, listed from its spec with their JSON Schemas; a call is
forwarded to the episode, and tool errors come back as ``isError`` results carrying the engine's
message so the agent can recover. The environment's policy is a resource and the task's
instruction a prompt. Control operations (reset, score) are deliberately not tools.

In a dual-control environment the user acts too, at an endpoint of their own: a handle's ``actor``
decides whose tools are listed and called, and whose text is the resource (the agent's policy, or
the user guide: what the user sees and can do).

Which episode a request belongs to is decided by ``resolve(ctx)``: from the URL path over HTTP,
or a fixed episode over stdio. The MCP session is never used for that (2026-07-28 clients have none).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    PromptMessage,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)

from envs.errors import EnvFarmError, UnknownDialect
from envs.formats.knowledge_modes import knowledge_policy, withheld_tools
from envs.schemas.dialects import DEFAULT_DIALECT, DIALECT_FIELD, Dialect, parse_dialect

from .outcomes import CallOutcome, result_text

if TYPE_CHECKING:
    from envs import Environment, Task

SERVER_NAME = "envfarm"
INSTRUCTION_PROMPT = "instruction"


def policy_uri(env_id: str) -> str:
    return f"envfarm://envs/{env_id}/policy"


def user_guide_uri(env_id: str) -> str:
    return f"envfarm://envs/{env_id}/user-guide"


class EpisodeHandle(Protocol):
    """What the MCP server needs of an episode."""

    @property
    def env(self) -> Environment: ...

    @property
    def task(self) -> Task | None: ...

    @property
    def actor(self) -> str:
        """Whose endpoint this is: "agent", or "user" (dual control)."""
        ...

    @property
    def knowledge(self) -> str:
        """Where the agent finds the documents (``envs.formats.knowledge_modes``)."""
        ...

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome: ...


Resolver = Callable[[ServerRequestContext[Any]], Awaitable[EpisodeHandle]]


class McpError(EnvFarmError, MCPError):
    """A request the MCP server cannot answer (unknown resource or prompt, an episode it cannot serve).

    Being an SDK ``MCPError``, it reaches the client as a JSON-RPC error (invalid params unless
    ``code`` says otherwise) carrying this message; any other exception becomes a bare "Internal
    server error".
    """

    def __init__(self, message: str, data: dict[str, Any] | None = None, *, code: int = INVALID_PARAMS) -> None:
        MCPError.__init__(self, code, message, data)


_tool_cache: dict[tuple[int, Dialect, str, frozenset[str]], list[Tool]] = {}


def mcp_tools(
    env: Environment, dialect: Dialect = DEFAULT_DIALECT, actor: str = "agent", withheld: frozenset[str] = frozenset()
) -> list[Tool]:
    """``actor``'s tools (the agent's, or in a dual-control environment the user's) as MCP ``Tool``
    objects, built once per environment, dialect and actor.

    ``inputSchema`` is the advertised schema, which every major model API accepts as it is (the
    engine still validates against the spec's full one), written in ``dialect``
    (``envs.schemas.dialects``); ``outputSchema`` is declared only for tools whose every result is an
    object (``envs.schemas.tool_schemas``). ``withheld`` tools are left out (the document tools of an
    episode given its documents in the prompt).
    """
    tools = _tool_cache.get((id(env), dialect, actor, withheld))
    if tools is None:
        tools = [
            Tool(
                name=t.name,
                description=t.description,
                input_schema=env.schema_in(t.name, dialect),
                output_schema=env.output_schema(t.name),
                annotations=ToolAnnotations(
                    read_only_hint=t.kind == "read",
                    destructive_hint=t.kind == "write",
                    idempotent_hint=t.kind == "read",
                    open_world_hint=False,
                ),
            )
            for t in env.spec.tools_of("user" if actor == "user" else "agent")
            if t.name not in withheld
        ]
        _tool_cache[(id(env), dialect, actor, withheld)] = tools
    return tools


def tool_result(outcome: CallOutcome) -> CallToolResult:
    """A call outcome as an MCP result: its JSON text (and, for an object, that object as structured
    content), or an isError message. A list, value or nothing is the text alone: structured content
    is an object, and a wrapper such as ``{"result": [...]}`` would be data no tool returned (clients
    such as fastmcp hand it on as the result). A string is its own text, unquoted, as MCP servers
    written in Python return one (and as tau2-bench shows a user id); the call log keeps its JSON."""
    if outcome.is_error:
        return CallToolResult(content=[TextContent(type="text", text=outcome.message or "error")], is_error=True)
    content = outcome.content
    if isinstance(content, str):
        text = content
    else:
        text = outcome.text if outcome.text is not None else result_text(content)
    structured = content if isinstance(content, dict) else None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def _resource(handle: EpisodeHandle) -> tuple[str, str, str, str]:
    """The one resource of ``handle``'s endpoint: (URI, name, description, text)."""
    spec = handle.env.spec
    if handle.actor == "user":
        what = "What the user sees and can do with their own tools in this environment"
        return user_guide_uri(spec.id), "user_guide", what, spec.user_guide
    policy = knowledge_policy(spec, handle.knowledge, handle.task)
    return policy_uri(spec.id), "policy", "The rules the agent must follow in this environment", policy


def build_server(resolve: Resolver, *, version: str = "0.1.0", dialect: Dialect = DEFAULT_DIALECT) -> Server[Any]:
    """A low-level MCP server whose every handler works on the episode ``resolve`` returns. Tools are
    listed in ``dialect``, or over HTTP in the one the URL's ``?dialect=`` names."""

    def asked_dialect(ctx: ServerRequestContext[Any]) -> Dialect:
        asked = ctx.request.query_params.get(DIALECT_FIELD) if ctx.request is not None else None
        try:
            return dialect if asked is None else parse_dialect(asked)
        except UnknownDialect as exc:  # the HTTP endpoint refuses such a URL first
            raise McpError(str(exc), data={"field": exc.field}) from None

    async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
        handle = await resolve(ctx)
        withheld = withheld_tools(handle.env.spec, handle.knowledge) if handle.actor == "agent" else frozenset()
        return ListToolsResult(tools=mcp_tools(handle.env, asked_dialect(ctx), handle.actor, withheld))

    async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        try:
            handle = await resolve(ctx)
            outcome = await handle.call(params.name, dict(params.arguments or {}))
        except EnvFarmError as exc:  # episode ended, limits: the agent sees why, as a tool error
            return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
        return tool_result(outcome)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        handle = await resolve(ctx)
        uri, name, description, _ = _resource(handle)
        env = handle.env
        return ListResourcesResult(
            resources=[
                Resource(
                    uri=uri,
                    name=name,
                    title=f"{env.spec.name}: {name.replace('_', ' ')}",
                    description=description,
                    mime_type="text/markdown",
                )
            ]
        )

    async def read_resource(ctx: ServerRequestContext[Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        uri, _, _, text = _resource(await resolve(ctx))
        if str(params.uri) != uri:
            raise McpError(
                f"Unknown resource '{params.uri}'; this episode has '{uri}'",
                data={"uri": str(params.uri)},  # SEP-2164: resource-not-found names the URI in error.data
            )
        return ReadResourceResult(contents=[TextResourceContents(uri=uri, mime_type="text/markdown", text=text)])

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        # No templates, but a server with the resources capability answers the method (not -32601).
        await resolve(ctx)
        return ListResourceTemplatesResult(resource_templates=[])

    async def list_prompts(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListPromptsResult:
        handle = await resolve(ctx)
        if handle.task is None:
            return ListPromptsResult(prompts=[])
        return ListPromptsResult(
            prompts=[Prompt(name=INSTRUCTION_PROMPT, description="What the user wants in this episode's task")]
        )

    async def get_prompt(ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> GetPromptResult:
        handle = await resolve(ctx)
        if params.name != INSTRUCTION_PROMPT or handle.task is None:
            raise McpError(f"Unknown prompt '{params.name}'")
        return GetPromptResult(
            description=f"Task {handle.task.id}",
            messages=[PromptMessage(role="user", content=TextContent(type="text", text=handle.task.instruction))],
        )

    return Server(
        SERVER_NAME,
        version=version,
        instructions="Tools act on this episode's state. The resource states the rules to follow (the agent's "
        "policy) or, at a user's endpoint of a dual-control environment, what the user sees and can do.",
        # Arguments are validated by the engine against each episode's own schemas; this hook only
        # receives a tool name, which cannot tell episodes apart.
        get_tool_input_schema=lambda name: None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
