"""τ³ banking_knowledge's customer tools (``user_tools``, ``actor: user``): applying for a credit card,
referring someone, asking for a human agent, recording a card purchase, and running and listing the
discoverable tools the agent handed over.
"""

from __future__ import annotations

from typing import Any

from .banking_sql import TODAY, cat, exists, first_error, insert, json_lit, listing, num, py_list, sha_id
from .banking_tool_spec import OK, Discoverable, Param, answer, check, tables_written, tool

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
    writes = sorted({t for d in user_discoverable for t in tables_written(d)} - {"user_discoverable_tool_calls"})
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
        tool(
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
                check(
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
                answer(
                    "coalesce(:chk.err, CASE WHEN :taken.yes THEN 'Failed to submit application: Record ID ''' || "
                    ":chk.id || ''' may already exist.' ELSE 'Credit card application submitted:' || char(10) || "
                    "'Your application has been successfully submitted. You will receive a decision within 5-7 "
                    "business days via email.' END)"
                ),
            ],
            actor="user",
            also_writes=["credit_card_applications"],
        ),
        tool(
            "submit_referral",
            "Refer someone to open an account with the bank.",
            "write",
            [
                Param("user_id", "string", "Your user id (the referrer)"),
                Param("account_type", "string", "The account you refer them to"),
            ],
            [
                check("NULL", id=referral_id),
                {"kind": "query", "bind": "taken", "sql": f"SELECT {exists('referrals', ':chk.id')} AS yes"},
                insert(
                    "referrals",
                    ":chk.id",
                    "json_object('referral_id', :chk.id, 'referrer_id', :user_id, 'referred_account_type', "
                    f":account_type, 'referral_status', 'NO_PROGRESS', 'date', {TODAY})",
                ),
                answer(
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
        tool(
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
                answer(
                    "'Transfer request #' || :n.count || ' submitted.' || char(10) || 'The agent will process your "
                    "request.'"
                ),
            ],
            actor="user",
        ),
        tool(
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
                check(
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
                answer(
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
        tool(
            "call_discoverable_user_tool",
            "Run a tool the agent handed you, with the arguments the agent gave, as a JSON object in text.",
            "write",
            [
                Param("discoverable_tool_name", "string", "The tool's name"),
                Param("arguments", "string", "Its arguments, as a JSON object in text (default '{}')", required=False),
            ],
            [
                check(
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
                answer("coalesce(:chk.err, :result)"),
            ],
            actor="user",
            also_writes=writes,
        ),
        tool(
            "list_discoverable_user_tools",
            "The tools the agent has handed you.",
            "read",
            [],
            [
                answer(
                    f"(SELECT CASE WHEN t LIKE '%No results found%' THEN 'No tools have been given to you yet by the "
                    "agent.' ELSE 'Tools given to you by the agent:' || char(10) || t END FROM (SELECT "
                    f"{listing('user_discoverable_tools', '1')} AS t))"
                )
            ],
            actor="user",
        ),
    ]
