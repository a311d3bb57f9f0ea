"""The machinery of τ³ banking_knowledge's discoverable tools: the agent's tools that hand one to the
customer, unlock one, call it and list those called (``handover_tools``, the last four of the agent's
base tools), and what they read: the ``discoverable_tools`` rows (``catalog_rows``) and the discoverable
tools as unlisted tools that a ``call`` step runs (``discoverable_specs``).

Refusals are tau2's texts, including the ``TypeError`` Python raises for a call with arguments that do
not fit (``python_missing_arguments``, ``PY_TYPES``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .banking_sql import cat, first_error, insert, listing, sha_id
from .banking_tool_spec import OK, Discoverable, Param, answer, check, info_text, tables_written, tool

#: Python's type name of the JSON value ``coalesce(:arguments, '{}')`` read with ``parse_int=float`` (for the
#: TypeError of ``f(**value)``)
PY_TYPES = (
    """json_extract('{"array":"list","text":"str","integer":"float","real":"float","true":"bool","false":"bool",'"""
    """ || '"null":"NoneType"}', '$.' || json_type(coalesce(:arguments, '{}')))"""
)


def handover_tools() -> list[dict[str, Any]]:
    """The agent's tools that hand a discoverable tool to the customer, unlock one, call an unlocked one
    and list those called; what they know of the tools they read from ``discoverable_tools``."""
    agent_tools = "SELECT tool_name FROM discoverable_tools WHERE actor = 'agent'"
    writers = "SELECT tool_name FROM discoverable_tools WHERE actor = 'agent' AND writes"
    user_row = "FROM discoverable_tools WHERE actor = 'user' AND tool_name = :discoverable_tool_name"
    agent_row = "FROM discoverable_tools WHERE actor = 'agent' AND tool_name = :agent_tool_name"
    user_params = f"(SELECT p.value ->> '$[0]' FROM json_each((SELECT params {user_row})) AS p)"
    agent_params = f"(SELECT params {agent_row})"
    unexpected = (
        f"(SELECT a.key FROM json_each(coalesce(:arguments, '{{}}')) AS a WHERE a.key NOT IN (SELECT p.value ->> "
        "'$[0]' "
        f"FROM json_each({agent_params}) AS p) ORDER BY a.id LIMIT 1)"
    )
    missing = python_missing_arguments(agent_params, "coalesce(:arguments, '{}')")
    log_id = sha_id(cat("'agent_discoverable_tool:'", ":agent_tool_name"), 16)
    give_id = sha_id(cat("'user_discoverable_tool:'", ":discoverable_tool_name"), 16)
    given_args = "coalesce(:arguments, '{}')"
    return [
        tool(
            "give_discoverable_user_tool",
            "Hand the customer a tool the knowledge base says they use themselves, with the arguments to use; "
            "they then run it with call_discoverable_user_tool.",
            "write",
            [
                Param("discoverable_tool_name", "string", "The tool's name, as the knowledge base gives it"),
                Param("arguments", "string", "The arguments, as a JSON object in text (default '{}')", required=False),
            ],
            [
                check(
                    first_error(
                        (
                            f"NOT EXISTS (SELECT 1 {user_row})",
                            "'Error: Unknown discoverable tool ''' || :discoverable_tool_name || '''.'",
                        ),
                        (
                            f"python_json_error({given_args}) IS NOT NULL",
                            f"'Error: Invalid JSON in arguments: ' || python_json_error({given_args})",
                        ),
                        (
                            f"json_type({given_args}) = 'object' AND EXISTS (SELECT 1 FROM json_each({given_args}) AS "
                            "a "
                            f"WHERE a.key NOT IN {user_params})",
                            f"'Error: Unexpected parameter: ' || (SELECT a.key FROM json_each({given_args}) AS a "
                            f"WHERE a.key NOT IN {user_params} ORDER BY a.id LIMIT 1)",
                        ),
                    ),
                    id=give_id,
                ),
                insert(
                    "user_discoverable_tools",
                    ":chk.id",
                    "json_object('tool_name', :discoverable_tool_name, 'status', 'GIVEN')",
                    OK,
                ),
                answer(
                    "coalesce(:chk.err, 'Tool given to user: ' || :discoverable_tool_name || char(10) || "
                    f"'Description: ' || (SELECT description {user_row}) || char(10) || 'Arguments: ' || "
                    f"CASE WHEN json_type({given_args}) = 'object' AND json({given_args}) != '{{}}' "
                    f"THEN python_json({given_args}, 2) ELSE '(no arguments)' END || char(10) || char(10) || "
                    "'The user can now execute this action by calling `call_discoverable_user_tool` with "
                    "discoverable_tool_name=''' || :discoverable_tool_name || ''' and the same arguments.')"
                ),
            ],
        ),
        tool(
            "unlock_discoverable_agent_tool",
            "Unlock an internal tool the knowledge base names, so that call_discoverable_agent_tool can run it; "
            "shows what the tool does and its parameters.",
            "write",
            [Param("agent_tool_name", "string", "The tool's name, as the knowledge base gives it")],
            [
                check(
                    first_error(
                        (
                            f"NOT :agent_tool_name IN ({agent_tools})",
                            "'Error: Unknown agent tool ''' || :agent_tool_name || '''. This tool is not available.'",
                        )
                    )
                ),
                {
                    "kind": "exec",
                    "sql": "UPDATE discoverable_tools SET unlocked = 1 WHERE actor = 'agent' AND tool_name = "
                    f":agent_tool_name AND {OK}",
                },
                answer(
                    "coalesce(:chk.err, 'Tool unlocked: ' || :agent_tool_name || char(10) || 'Description: ' || "
                    f"(SELECT description {agent_row}) || char(10) || char(10) || (SELECT info {agent_row}) || "
                    "char(10) || "
                    "char(10) || 'You can now use this tool by calling `call_discoverable_agent_tool` with "
                    "agent_tool_name=''' || :agent_tool_name || ''' and the required arguments.')"
                ),
            ],
        ),
        tool(
            "call_discoverable_agent_tool",
            "Run an internal tool unlocked with unlock_discoverable_agent_tool, with its arguments as a JSON "
            "object in text.",
            "write",
            [
                Param("agent_tool_name", "string", "The unlocked tool's name"),
                Param("arguments", "string", "Its arguments, as a JSON object in text (default '{}')", required=False),
            ],
            [
                check(
                    first_error(
                        (
                            f"NOT :agent_tool_name IN ({agent_tools})",
                            "'Error: Unknown agent tool ''' || :agent_tool_name || '''. This tool is not available.'",
                        ),
                        (
                            f"NOT EXISTS (SELECT 1 {agent_row} AND unlocked)",
                            "'Error: Tool ''' || :agent_tool_name || ''' has not been unlocked. You must first use "
                            "`unlock_discoverable_agent_tool` to unlock this tool before calling it.'",
                        ),
                        (
                            f"python_json_error({given_args}) IS NOT NULL",
                            f"'Error: Invalid JSON in arguments: ' || python_json_error({given_args})",
                        ),
                        (
                            f"json_type({given_args}) != 'object'",
                            # Python names the function with its module here (tau2's tools module)
                            "'Error: Invalid arguments: tau2.domains.banking_knowledge.tools.KnowledgeTools.' || "
                            ":agent_tool_name || '() argument after ** "
                            f"must be a mapping, not ' || {PY_TYPES}",
                        ),
                        (
                            f"json_valid({given_args}) AND json_type({given_args}) = 'object' AND {unexpected} IS NOT "
                            "NULL",
                            f"'Error: Invalid arguments: KnowledgeTools.' || :agent_tool_name || '() got an unexpected "
                            f"keyword argument ''' || {unexpected} || ''''",
                        ),
                        (
                            f"json_valid({given_args}) AND json_type({given_args}) = 'object' AND {missing} IS NOT "
                            "NULL",
                            "'Error: Invalid arguments: KnowledgeTools.' || :agent_tool_name || '() ' || " + missing,
                        ),
                    ),
                    id=log_id,
                ),
                {
                    "kind": "call",
                    "bind": "result",
                    "sql": f"SELECT :agent_tool_name AS tool, coalesce(:arguments, '{{}}') AS arguments WHERE {OK}",
                },
                insert(
                    "agent_discoverable_tools",
                    ":chk.id",
                    "json_object('tool_name', :agent_tool_name, 'status', 'CALLED')",
                    f"{OK} AND (:agent_tool_name IN ({writers}) OR :agent_tool_name IN "
                    "(SELECT tool_name FROM read_log_allowlist))",
                ),
                answer("coalesce(:chk.err, :result)"),
            ],
        ),
        tool(
            "list_discoverable_agent_tools",
            "The internal tools called so far in this conversation.",
            "read",
            [],
            [
                answer(
                    f"(SELECT CASE WHEN t LIKE '%No results found%' THEN 'No agent tools have been called yet. Search "
                    "the knowledge base to discover available tools.' ELSE 'Your called agent tools:' || char(10) || t "
                    f"END FROM (SELECT {listing('agent_discoverable_tools', '1')} AS t))"
                )
            ],
        ),
    ]


def python_missing_arguments(params: str, args: str) -> str:
    """Python's ``TypeError`` text for required parameters (``params``: ``[[name, required], ...]``) that
    ``args`` lacks: ``missing 1 required positional argument: 'a'``, ``... 2 ...: 'a' and 'b'``,
    ``... 3 ...: 'a', 'b', and 'c'``; NULL when none is missing."""
    lacking = (
        f"SELECT p.id AS n, '''' || (p.value ->> '$[0]') || '''' AS name FROM json_each({params}) AS p "
        f"WHERE p.value ->> '$[1]' AND json_type({args}, '$.' || json_quote(p.value ->> '$[0]')) IS NULL"
    )
    ordered = f"(SELECT name FROM ({lacking}) ORDER BY n)"
    last = f"(SELECT name FROM ({lacking}) ORDER BY n DESC LIMIT 1)"
    return (
        f"(SELECT CASE WHEN count(*) = 0 THEN NULL ELSE 'missing ' || count(*) || ' required positional argument' || "
        "CASE WHEN count(*) = 1 THEN ': ' || max(name) "
        f"WHEN count(*) = 2 THEN 's: ' || (SELECT group_concat(name, ' and ') FROM {ordered}) "
        f"ELSE 's: ' || (SELECT group_concat(name, ', ') FROM (SELECT name FROM ({lacking}) ORDER BY n LIMIT "
        f"(SELECT count(*) - 1 FROM ({lacking})))) || ', and ' || {last} END END FROM ({lacking}))"
    )


def catalog_rows(
    discoverable: list[Discoverable],
    user_discoverable: list[Discoverable],
    texts: Mapping[str, tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """The ``discoverable_tools`` rows: each tool's description, what unlocking it shows, its parameters
    (name, required) and whether tau2 counts it as changing state (its calls are then always logged).
    ``texts`` holds tau2's own description and unlock text of the tools it names (``banking_texts``)."""
    texts = texts or {}
    return [
        {
            "tool_name": d.name,
            "actor": actor,
            "description": texts[d.name][0] if d.name in texts else d.description,
            "info": texts[d.name][1] if d.name in texts else _info(d),
            "params": [[p.name, p.required] for p in d.params],
            "writes": d.writes,
            "unlocked": False,
        }
        for actor, found in (("agent", discoverable), ("user", user_discoverable))
        for d in found
    ]


def _info(d: Discoverable) -> str:
    return info_text(d.name, d.description, [(p.name, p.type, p.required, p.description) for p in d.params])


def discoverable_specs(found: list[Discoverable], actor: str) -> list[dict[str, Any]]:
    """The discoverable tools as unlisted tools of ``actor``."""
    out = []
    for d in found:
        extra: dict[str, Any] = {"listed": False}
        if actor == "user":
            extra["actor"] = "user"
            also = sorted(set(tables_written(d)) - {"user_discoverable_tool_calls", "human_transfer_requests"})
            if also:
                extra["also_writes"] = also
        out.append(
            {
                "name": d.name,
                "description": d.description,
                "kind": "write" if d.writes or tables_written(d) else "read",
                "parameters": d.schema(),
                "steps": d.steps,
                **extra,
            }
        )
    return out
