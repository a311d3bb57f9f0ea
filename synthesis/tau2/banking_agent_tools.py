"""τ³ banking_knowledge's agent tools (``base_tools``): transferring to a human, the time, looking up a
customer and their referrals and credit cards, changing their email, logging their verification, then
the tools that work the discoverable ones (``banking_discoverable_dispatch``).
"""

from __future__ import annotations

from typing import Any

from .banking_discoverable_dispatch import handover_tools
from .banking_sql import cat, exists, first_error, insert, json_lit, listing, lit, update, where_field
from .banking_tool_spec import OK, Discoverable, Param, answer, check, tool

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


def _user_lookup(name: str, what: str, param: str, column: str) -> dict[str, Any]:
    return tool(
        name,
        f"Look up a customer by {what}: their user id, name, date of birth, email, phone number and address.",
        "read",
        [Param(param, "string", f"The customer's {what}")],
        [answer(listing("users", where_field(column, f":{param}")))],
    )


def _listing_tool(name: str, description: str, table: str, column: str) -> dict[str, Any]:
    return tool(
        name,
        description,
        "read",
        [Param("user_id", "string", "The customer's user id")],
        [answer(listing(table, where_field(column, ":user_id")))],
    )


def base_tools(discoverable: list[Discoverable], user_discoverable: list[Discoverable]) -> list[dict[str, Any]]:
    """The agent's 14 tools. ``discoverable`` are the tools it may unlock and call, ``user_discoverable``
    those it may hand to the customer."""
    reason = "coalesce(:reason, 'other')"
    return [
        tool(
            "transfer_to_human_agents",
            "Hand the conversation to a human agent, with a summary of the issue and what was tried, and the "
            "transfer reason code the knowledge base gives for the situation (default 'other').",
            "read",
            [
                Param("summary", "string", "The customer's issue and what was done before the transfer"),
                Param("reason", "string", "The transfer reason code", required=False),
            ],
            [
                answer(
                    f"CASE WHEN {reason} IN (SELECT value FROM json_each({json_lit(TRANSFER_REASONS)})) "
                    f"THEN 'Transfer successful (reason: ' || {reason} || '). A human agent will assist you shortly.' "
                    f"ELSE 'Error: Invalid transfer reason ''' || {reason} || '''. Must be one of: ' || "
                    f"{lit(', '.join(TRANSFER_REASONS))} END"
                )
            ],
        ),
        tool(
            "get_current_time",
            "The current date and time, for the verification log.",
            "read",
            [],
            [answer("'The current time is 2025-11-14 03:40:00 EST.'")],
        ),
        _user_lookup("get_user_information_by_id", "user id", "user_id", "user_id"),
        _user_lookup("get_user_information_by_name", "full name (exact, case-sensitive)", "customer_name", "name"),
        _user_lookup("get_user_information_by_email", "email address", "email", "email"),
        tool(
            "change_user_email",
            "Change a customer's email address.",
            "write",
            [
                Param("user_id", "string", "The customer's user id"),
                Param("new_email", "string", "The new email address"),
            ],
            [
                check(
                    first_error(
                        (
                            f"NOT {exists('users', ':user_id')}",
                            "'Error: User with ID ''' || :user_id || ''' not found.'",
                        )
                    )
                ),
                update("users", ":user_id", [("email", ":new_email")], OK),
                answer(
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
        tool(
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
                check(
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
                answer(
                    "CASE WHEN :taken.yes THEN 'Failed to log verification: Record may already exist.' ELSE "
                    "'Verification logged successfully.' || char(10) || '  - User: ' || :name || ' (ID: ' || :user_id "
                    "|| ')' || char(10) || '  - Verified at: ' || :time_verified END"
                ),
            ],
        ),
        *handover_tools(),
    ]
