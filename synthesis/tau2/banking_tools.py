"""τ³ banking_knowledge's tools as SQL steps: the agent's base tools, the customer's tools, and the
discoverable tools the agent unlocks from what the knowledge base names (``listed: false``, run only by
``call_discoverable_agent_tool``'s ``call`` step) or hands to the customer.

Every tool answers as tau2's does, text for text; the descriptions are ours. A discoverable tool's
``info`` (what unlocking it or handing it over shows) is written in tau2's layout from our descriptions,
or from tau2's own when the importer finds them (``banking.tool_texts``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .banking_data import RECORD_TABLES
from .banking_sql import (
    TODAY,
    cat,
    exists,
    first_error,
    insert,
    json_lit,
    listing,
    lit,
    num,
    py_list,
    record,
    sha_id,
    update,
    where_field,
)

#: JSON Schema types of tau2's type words; an "integer" takes any number, as tau2 converts it itself
_TYPES = {"string": "string", "number": "number", "boolean": "boolean", "integer": "number"}


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # tau2's type word: string, number, boolean
    description: str
    required: bool = True


@dataclass(frozen=True)
class Discoverable:
    """A tool the agent unlocks (or hands to the customer): its tau2 name, what it does, its parameters,
    whether tau2 counts it as changing state, and its steps."""

    name: str
    description: str
    params: tuple[Param, ...]
    writes: bool
    steps: list[dict[str, Any]] = field(default_factory=list)

    def schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: {"type": _TYPES[p.type], "description": p.description} for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }


def info_text(name: str, description: str, params: list[tuple[str, str, bool, str]]) -> str:
    """tau2's ``format_discoverable_tool_for_agent``: the tool's name, description and parameters."""
    lines = [f"  - {p}: {t}{' (required)' if req else ' (optional)'} - {d}" for p, t, req, d in params]
    return f"Tool: {name}\nDescription: {description}\nParameters:\n" + ("\n".join(lines) or "  (no parameters)")


def _tool(
    name: str, description: str, kind: str, params: list[Param], steps: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "kind": kind,
        "parameters": {
            "type": "object",
            "properties": {p.name: {"type": _TYPES[p.type], "description": p.description} for p in params},
            "required": [p.name for p in params if p.required],
            "additionalProperties": False,
        },
        "steps": steps,
        **extra,
    }


def _answer(text: str) -> dict[str, Any]:
    return {"kind": "return", "shape": "value", "sql": f"SELECT {text}"}


def _check(err: str, **values: str) -> dict[str, Any]:
    cols = "".join(f", {v} AS {k}" for k, v in values.items())
    return {"kind": "query", "bind": "chk", "sql": f"SELECT {err} AS err{cols}"}


OK = ":chk.err IS NULL"
#: Python's type name of the JSON value ``coalesce(:arguments, '{}')`` read with ``parse_int=float`` (for the
#: TypeError of ``f(**value)``)
PY_TYPES = (
    """json_extract('{"array":"list","text":"str","integer":"float","real":"float","true":"bool","false":"bool",'"""
    """ || '"null":"NoneType"}', '$.' || json_type(coalesce(:arguments, '{}')))"""
)

TRANSFER_REASONS = [
    "fraud_or_security_concern",
    "account_closure_request",
    "deceased_account_holder",
    "legal_or_regulatory_matter",
    "account_ownership_dispute",
    "complex_billing_dispute",
    "abusive_customer_behavior",
    "third_party_inquiry",
    "technical_system_error",
    "unconfirmed_external_communication",
    "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer",
    "specialized_department_required",
    "accessibility_or_special_needs",
    "customer_frustrated_demands_human",
    "supervisor_request_service_complaint",
    "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup",
    "other",
]

# -- the agent's base tools -------------------------------------------------------------------------------


def _user_lookup(name: str, what: str, param: str, column: str) -> dict[str, Any]:
    return _tool(
        name,
        f"Look up a customer by {what}: their user id, name, date of birth, email, phone number and address.",
        "read",
        [Param(param, "string", f"The customer's {what}")],
        [_answer(listing("users", where_field(column, f":{param}")))],
    )


def _listing_tool(name: str, description: str, table: str, column: str) -> dict[str, Any]:
    return _tool(
        name,
        description,
        "read",
        [Param("user_id", "string", "The customer's user id")],
        [_answer(listing(table, where_field(column, ":user_id")))],
    )


def base_tools(discoverable: list[Discoverable], user_discoverable: list[Discoverable]) -> list[dict[str, Any]]:
    """The agent's 14 tools. ``discoverable`` are the tools it may unlock and call, ``user_discoverable``
    those it may hand to the customer."""
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
    reason = "coalesce(:reason, 'other')"
    return [
        _tool(
            "transfer_to_human_agents",
            "Hand the conversation to a human agent, with a summary of the issue and what was tried, and the "
            "transfer reason code the knowledge base gives for the situation (default 'other').",
            "read",
            [
                Param("summary", "string", "The customer's issue and what was done before the transfer"),
                Param("reason", "string", "The transfer reason code", required=False),
            ],
            [
                _answer(
                    f"CASE WHEN {reason} IN (SELECT value FROM json_each({json_lit(TRANSFER_REASONS)})) "
                    f"THEN 'Transfer successful (reason: ' || {reason} || '). A human agent will assist you shortly.' "
                    f"ELSE 'Error: Invalid transfer reason ''' || {reason} || '''. Must be one of: ' || "
                    f"{lit(', '.join(TRANSFER_REASONS))} END"
                )
            ],
        ),
        _tool(
            "get_current_time",
            "The current date and time, for the verification log.",
            "read",
            [],
            [_answer("'The current time is 2025-11-14 03:40:00 EST.'")],
        ),
        _user_lookup("get_user_information_by_id", "user id", "user_id", "user_id"),
        _user_lookup("get_user_information_by_name", "full name (exact, case-sensitive)", "customer_name", "name"),
        _user_lookup("get_user_information_by_email", "email address", "email", "email"),
        _tool(
            "change_user_email",
            "Change a customer's email address.",
            "write",
            [
                Param("user_id", "string", "The customer's user id"),
                Param("new_email", "string", "The new email address"),
            ],
            [
                _check(
                    first_error(
                        (
                            f"NOT {exists('users', ':user_id')}",
                            "'Error: User with ID ''' || :user_id || ''' not found.'",
                        )
                    )
                ),
                update("users", ":user_id", [("email", ":new_email")], OK),
                _answer(
                    "coalesce(:chk.err, 'Email updated successfully.' || char(10) || '  - User ID: ' || :user_id || "
                    "char(10) || '  - New Email: ' || :new_email)"
                ),
            ],
        ),
        _listing_tool("get_referrals_by_user", "The referrals a customer has made.", "referrals", "referrer_id"),
        _listing_tool(
            "get_credit_card_transactions_by_user",
            "A customer's credit card transactions.",
            "credit_card_transaction_history",
            "user_id",
        ),
        _listing_tool(
            "get_credit_card_accounts_by_user",
            "A customer's credit card accounts: card type, date opened, balance, reward points.",
            "credit_card_accounts",
            "user_id",
        ),
        _tool(
            "log_verification",
            "Record that a customer's identity was verified (two of date of birth, email, phone number and "
            "address confirmed), with the time from get_current_time.",
            "write",
            [
                Param("name", "string", "The customer's full name"),
                Param("user_id", "string", "The customer's user id"),
                Param("address", "string", "The customer's address"),
                Param("email", "string", "The customer's email"),
                Param("phone_number", "string", "The customer's phone number"),
                Param("date_of_birth", "string", "The customer's date of birth, MM/DD/YYYY"),
                Param("time_verified", "string", "When the identity was verified, e.g. '2025-11-14 03:40:00 EST'"),
            ],
            [
                _check(
                    "NULL",
                    id=cat(":user_id", "'_'", "replace(replace(replace(:time_verified, ' ', '_'), ':', ''), '-', '')"),
                ),
                {
                    "kind": "query",
                    "bind": "taken",
                    "sql": f"SELECT {exists('verification_history', ':chk.id')} AS yes",
                },
                insert(
                    "verification_history",
                    ":chk.id",
                    "json_object('name', :name, 'user_id', :user_id, 'address', :address, 'email', :email, "
                    "'phone_number', :phone_number, 'date_of_birth', :date_of_birth, 'time_verified', :time_verified)",
                ),
                _answer(
                    "CASE WHEN :taken.yes THEN 'Failed to log verification: Record may already exist.' ELSE "
                    "'Verification logged successfully.' || char(10) || '  - User: ' || :name || ' (ID: ' || :user_id "
                    "|| ')' || char(10) || '  - Verified at: ' || :time_verified END"
                ),
            ],
        ),
        _tool(
            "give_discoverable_user_tool",
            "Hand the customer a tool the knowledge base says they use themselves, with the arguments to use; "
            "they then run it with call_discoverable_user_tool.",
            "write",
            [
                Param("discoverable_tool_name", "string", "The tool's name, as the knowledge base gives it"),
                Param("arguments", "string", "The arguments, as a JSON object in text (default '{}')", required=False),
            ],
            [
                _check(
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
                _answer(
                    "coalesce(:chk.err, 'Tool given to user: ' || :discoverable_tool_name || char(10) || "
                    f"'Description: ' || (SELECT description {user_row}) || char(10) || 'Arguments: ' || "
                    f"CASE WHEN json_type({given_args}) = 'object' AND json({given_args}) != '{{}}' "
                    f"THEN python_json({given_args}, 2) ELSE '(no arguments)' END || char(10) || char(10) || "
                    "'The user can now execute this action by calling `call_discoverable_user_tool` with "
                    "discoverable_tool_name=''' || :discoverable_tool_name || ''' and the same arguments.')"
                ),
            ],
        ),
        _tool(
            "unlock_discoverable_agent_tool",
            "Unlock an internal tool the knowledge base names, so that call_discoverable_agent_tool can run it; "
            "shows what the tool does and its parameters.",
            "write",
            [Param("agent_tool_name", "string", "The tool's name, as the knowledge base gives it")],
            [
                _check(
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
                _answer(
                    "coalesce(:chk.err, 'Tool unlocked: ' || :agent_tool_name || char(10) || 'Description: ' || "
                    f"(SELECT description {agent_row}) || char(10) || char(10) || (SELECT info {agent_row}) || "
                    "char(10) || "
                    "char(10) || 'You can now use this tool by calling `call_discoverable_agent_tool` with "
                    "agent_tool_name=''' || :agent_tool_name || ''' and the required arguments.')"
                ),
            ],
        ),
        _tool(
            "call_discoverable_agent_tool",
            "Run an internal tool unlocked with unlock_discoverable_agent_tool, with its arguments as a JSON "
            "object in text.",
            "write",
            [
                Param("agent_tool_name", "string", "The unlocked tool's name"),
                Param("arguments", "string", "Its arguments, as a JSON object in text (default '{}')", required=False),
            ],
            [
                _check(
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
                _answer("coalesce(:chk.err, :result)"),
            ],
        ),
        _tool(
            "list_discoverable_agent_tools",
            "The internal tools called so far in this conversation.",
            "read",
            [],
            [
                _answer(
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


# -- the customer's tools ----------------------------------------------------------------------------------

CREDIT_CARD_TYPES = [
    "Bronze Rewards Card",
    "Business Bronze Rewards Card",
    "Business Gold Rewards Card",
    "Business Platinum Rewards Card",
    "Business Silver Rewards Card",
    "Crypto-Cash Back",
    "Diamond Elite Card",
    "EcoCard",
    "Gold Rewards Card",
    "Green Rewards Card",
    "Platinum Rewards Card",
    "Silver Rewards Card",
    "Silver Zoom Card",
]
#: Reward rates (percent) per card and category; "default" for every other category.
CARD_REWARDS: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0, "default": 1.5},
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}


def user_tools(user_discoverable: list[Discoverable]) -> list[dict[str, Any]]:
    """The customer's 6 tools; ``user_discoverable`` are the tools the agent may hand over."""
    writes = sorted({t for d in user_discoverable for t in _user_writes(d)} - {"user_discoverable_tool_calls"})
    names = "SELECT tool_name FROM discoverable_tools WHERE actor = 'user'"
    params = "(SELECT params FROM discoverable_tools WHERE actor = 'user' AND tool_name = :discoverable_tool_name)"
    args = "coalesce(:arguments, '{}')"
    app_id = sha_id(
        cat(
            "'credit_card:'",
            ":card_type",
            "':'",
            ":customer_name",
            "':'",
            "float_text(:annual_income)",
            "':'",
            "CASE WHEN coalesce(:rho_bank_subscription, 0) THEN 'True' ELSE 'False' END",
        ),
        16,
    )
    referral_id = sha_id(cat("'referral:'", ":user_id", "':'", ":account_type"), 16)
    rate = (
        f"coalesce(json_extract({json_lit(CARD_REWARDS)}, '$.' || json_quote(:credit_card_type) || '.' || "
        f"json_quote(:category)), json_extract({json_lit(CARD_REWARDS)}, '$.' || json_quote(:credit_card_type) || "
        "'.default'))"
    )
    txn_id = sha_id(
        cat(
            "'transaction:'",
            ":user_id",
            "':'",
            ":credit_card_type",
            "':'",
            ":merchant_name",
            "':'",
            "python_format(CAST(:amount AS REAL), '.2f')",
            "':'",
            ":category",
        ),
        12,
        "txn_",
    )
    points = f"CAST(CAST(:amount AS REAL) * {rate} AS INTEGER)"
    return [
        _tool(
            "apply_for_credit_card",
            "Apply for one of the bank's credit cards.",
            "write",
            [
                Param("card_type", "string", "The card, e.g. 'Gold Rewards Card'"),
                Param("customer_name", "string", "Your full legal name"),
                Param("annual_income", "number", "Your annual income in USD"),
                Param("rho_bank_subscription", "boolean", "Whether you have a Rho-Bank+ subscription", required=False),
            ],
            [
                _check(
                    first_error(
                        (
                            f":card_type NOT IN (SELECT value FROM json_each({json_lit(CREDIT_CARD_TYPES)}))",
                            "'Error: Invalid card_type ''' || :card_type || '''. Must be one of: ' || "
                            f"{py_list(CREDIT_CARD_TYPES)}",
                        )
                    ),
                    id=app_id,
                ),
                {
                    "kind": "query",
                    "bind": "taken",
                    "sql": f"SELECT {exists('credit_card_applications', ':chk.id')} AS yes",
                },
                insert(
                    "credit_card_applications",
                    ":chk.id",
                    "json_object('application_id', :chk.id, 'card_type', :card_type, 'customer_name', :customer_name, "
                    f"'annual_income', {num(':annual_income')}, 'rho_bank_subscription', "
                    "json(CASE WHEN coalesce(:rho_bank_subscription, 0) THEN 'true' ELSE 'false' END), "
                    f"'status', 'PENDING', 'date', {TODAY})",
                    OK,
                ),
                _answer(
                    "coalesce(:chk.err, CASE WHEN :taken.yes THEN 'Failed to submit application: Record ID ''' || "
                    ":chk.id || ''' may already exist.' ELSE 'Credit card application submitted:' || char(10) || "
                    "'Your application has been successfully submitted. You will receive a decision within 5-7 "
                    "business days via email.' END)"
                ),
            ],
            actor="user",
            also_writes=["credit_card_applications"],
        ),
        _tool(
            "submit_referral",
            "Refer someone to open an account with the bank.",
            "write",
            [
                Param("user_id", "string", "Your user id (the referrer)"),
                Param("account_type", "string", "The account you refer them to"),
            ],
            [
                _check("NULL", id=referral_id),
                {"kind": "query", "bind": "taken", "sql": f"SELECT {exists('referrals', ':chk.id')} AS yes"},
                insert(
                    "referrals",
                    ":chk.id",
                    "json_object('referral_id', :chk.id, 'referrer_id', :user_id, 'referred_account_type', "
                    f":account_type, 'referral_status', 'NO_PROGRESS', 'date', {TODAY})",
                ),
                _answer(
                    "CASE WHEN :taken.yes THEN 'Failed to submit referral: Record ID ''' || :chk.id || ''' may "
                    "already exist.' ELSE 'Referral request submitted successfully!' || char(10) || '  - Referral ID: "
                    "' "
                    "|| :chk.id || char(10) || '  - Referrer ID: ' || :user_id || char(10) || '  - Account Type: ' || "
                    ":account_type || char(10) || '  - Status: NO_PROGRESS' || char(10) || '  - Date: 11/14/2025' || "
                    "char(10) || char(10) || 'Share your referral ID with the person you''re referring. They will need "
                    "to use this when applying for their account.' END"
                ),
            ],
            actor="user",
            also_writes=["referrals"],
        ),
        _tool(
            "request_human_agent_transfer",
            "Ask to be transferred to a human agent.",
            "write",
            [],
            [
                {
                    "kind": "query",
                    "bind": "n",
                    "sql": "SELECT coalesce((SELECT sum((length(record) - length(replace(record, '\"request_id\"', "
                    "'')))"
                    " / length('\"request_id\"')) FROM human_transfer_requests), 0) + 1 AS count",
                },
                insert(
                    "human_transfer_requests",
                    "'transfer_request_' || :n.count",
                    "json_object('request_id', 'transfer_request_' || :n.count, 'request_number', :n.count, "
                    f"'requested_at', {TODAY}, 'status', 'PENDING')",
                ),
                _answer(
                    "'Transfer request #' || :n.count || ' submitted.' || char(10) || 'The agent will process your "
                    "request.'"
                ),
            ],
            actor="user",
        ),
        _tool(
            "submit_transaction",
            "Record a purchase made with your credit card.",
            "write",
            [
                Param("user_id", "string", "Your user id"),
                Param("credit_card_type", "string", "The card used, e.g. 'Gold Rewards Card'"),
                Param("merchant_name", "string", "The merchant"),
                Param("amount", "number", "The amount in USD"),
                Param("category", "string", "The purchase's category, e.g. 'Travel', 'Dining'"),
            ],
            [
                _check(
                    first_error(
                        (
                            f"json_extract({json_lit(CARD_REWARDS)}, '$.' || json_quote(:credit_card_type)) IS NULL",
                            "'Error: Unknown credit card type ''' || :credit_card_type || '''. Available types: ' || "
                            f"{py_list(list(CARD_REWARDS))}",
                        )
                    ),
                    id=txn_id,
                ),
                {
                    "kind": "query",
                    "bind": "taken",
                    "sql": f"SELECT {exists('credit_card_transaction_history', ':chk.id')} AS yes",
                },
                insert(
                    "credit_card_transaction_history",
                    ":chk.id",
                    "json_object('transaction_id', :chk.id, 'user_id', :user_id, 'credit_card_type', "
                    ":credit_card_type, "
                    "'merchant_name', :merchant_name, 'transaction_amount', '$' || python_format(CAST(:amount AS "
                    "REAL), "
                    f"'.2f'), 'transaction_date', {TODAY}, 'category', :category, 'status', 'COMPLETED', "
                    f"'rewards_earned', {points} || ' points')",
                    OK,
                ),
                _answer(
                    "coalesce(:chk.err, CASE WHEN :taken.yes THEN 'Failed to submit transaction: Record ID ''' || "
                    ":chk.id || ''' may already exist.' ELSE 'Transaction submitted successfully!' || char(10) || "
                    "'  - Transaction ID: ' || :chk.id || char(10) || '  - User ID: ' || :user_id || char(10) || "
                    "'  - Card Type: ' || :credit_card_type || char(10) || '  - Merchant: ' || :merchant_name || "
                    "char(10) || '  - Amount: $' || python_format(CAST(:amount AS REAL), '.2f') || char(10) || "
                    "'  - Category: ' || :category || char(10) || '  - Date: 11/14/2025' || char(10) || "
                    f"'  - Rewards Earned: ' || {points} || ' points (' || float_text({rate}) || '% cashback rate)' "
                    "|| char(10) END)"
                ),
            ],
            actor="user",
            also_writes=["credit_card_transaction_history"],
        ),
        _tool(
            "call_discoverable_user_tool",
            "Run a tool the agent handed you, with the arguments the agent gave, as a JSON object in text.",
            "write",
            [
                Param("discoverable_tool_name", "string", "The tool's name"),
                Param("arguments", "string", "Its arguments, as a JSON object in text (default '{}')", required=False),
            ],
            [
                _check(
                    first_error(
                        (
                            f"NOT :discoverable_tool_name IN ({names})",
                            "'Error: Unknown discoverable tool ''' || :discoverable_tool_name || '''.'",
                        ),
                        (
                            f"python_json_error({args}) IS NOT NULL",
                            f"'Error: Invalid JSON in arguments: ' || python_json_error({args})",
                        ),
                        (
                            f"json_valid({args}) AND json_type({args}) = 'object' AND EXISTS (SELECT 1 FROM json_each("
                            f"{params}) AS p WHERE p.value ->> '$[1]' "
                            f"AND json_type({args}, '$.' || json_quote(p.value ->> '$[0]')) IS NULL)",
                            "'Error: Missing required parameter: ' || (SELECT p.value ->> '$[0]' FROM "
                            f"json_each({params}) AS p WHERE p.value ->> '$[1]' AND "
                            f"json_type({args}, '$.' || json_quote(p.value ->> '$[0]')) IS NULL ORDER BY p.id LIMIT 1)",
                        ),
                        (
                            f"json_valid({args}) AND json_type({args}) = 'object' AND EXISTS (SELECT 1 FROM "
                            f"json_each({args}) "
                            f"AS a WHERE a.key NOT IN (SELECT p.value ->> '$[0]' FROM json_each({params}) AS p))",
                            f"'Error: Unexpected parameter: ' || (SELECT a.key FROM json_each({args}) AS a WHERE a.key "
                            f"NOT IN (SELECT p.value ->> '$[0]' FROM json_each({params}) AS p) ORDER BY a.id LIMIT 1)",
                        ),
                    )
                ),
                {
                    "kind": "call",
                    "bind": "result",
                    "sql": f"SELECT :discoverable_tool_name AS tool, {args} AS arguments WHERE {OK}",
                },
                _answer("coalesce(:chk.err, :result)"),
            ],
            actor="user",
            also_writes=writes,
        ),
        _tool(
            "list_discoverable_user_tools",
            "The tools the agent has handed you.",
            "read",
            [],
            [
                _answer(
                    f"(SELECT CASE WHEN t LIKE '%No results found%' THEN 'No tools have been given to you yet by the "
                    "agent.' ELSE 'Tools given to you by the agent:' || char(10) || t END FROM (SELECT "
                    f"{listing('user_discoverable_tools', '1')} AS t))"
                )
            ],
            actor="user",
        ),
    ]


def _user_writes(d: Discoverable) -> list[str]:
    found = []
    for step in d.steps:
        if step["kind"] == "exec":
            sql = step["sql"]
            found += [t for t in RECORD_TABLES if f"INTO {t} " in sql or f"UPDATE {t} " in sql]
    return found


def discoverable_specs(found: list[Discoverable], actor: str) -> list[dict[str, Any]]:
    """The discoverable tools as unlisted tools of ``actor``."""
    out = []
    for d in found:
        extra: dict[str, Any] = {"listed": False}
        if actor == "user":
            extra["actor"] = "user"
            also = sorted(set(_user_writes(d)) - {"user_discoverable_tool_calls", "human_transfer_requests"})
            if also:
                extra["also_writes"] = also
        out.append(
            {
                "name": d.name,
                "description": d.description,
                "kind": "write" if d.writes or _user_writes(d) else "read",
                "parameters": d.schema(),
                "steps": d.steps,
                **extra,
            }
        )
    return out


__all__ = [
    "Discoverable",
    "Param",
    "base_tools",
    "discoverable_specs",
    "info_text",
    "record",
    "user_tools",
]
