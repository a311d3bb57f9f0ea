"""τ³ banking_knowledge's discoverable tools on what a debit card may spend: a temporary increase of its
daily ATM or purchase limit, and a block on a merchant's recurring charges (which no gold action uses).
"""

from __future__ import annotations

from .banking_discoverable_debit_cards import CARD, CARD_ACCOUNT, CARD_FOUND, CARD_STATUS, status_text
from .banking_discoverable_sql import OK, answer, check, empty, get, iso_date, joined, pyval
from .banking_sql import TODAY, boolean, first_error, json_lit, lit
from .banking_tool_spec import Discoverable, Param

_ATM_DEFAULTS = {
    "blue account": 500,
    "green account": 600,
    "light blue account": 400,
    "green fee-free account": 500,
    "evergreen account": 750,
    "bluest account": 1500,
    "dark green account": 300,
    "gold years account": 600,
    "purple account": 1000,
}
_LIMIT_ACC = f"(SELECT record FROM accounts WHERE record_id = {CARD_ACCOUNT})"
_level = f"lower(coalesce({get(_LIMIT_ACC, 'level')}, ''))"
_new = "CAST(:new_limit AS REAL)"
_new_int = f"CAST({_new} AS INTEGER)"
_field = "CASE WHEN :limit_type = 'atm' THEN 'daily_atm_limit' ELSE 'daily_purchase_limit' END"
_limit_name = "CASE WHEN :limit_type = 'atm' THEN 'Daily ATM Withdrawal Limit' ELSE 'Daily Purchase Limit' END"
_card_limit = f"({CARD} -> ('$.' || {_field}))"
#: the current limit as JSON text: the card's own, else (ATM) the account level's default
_current = (
    f"(CASE WHEN {_card_limit} IS NOT NULL AND {_card_limit} != 'null' THEN {_card_limit} WHEN :limit_type = 'atm' "
    f"AND NOT {_level} LIKE '%light green%' THEN {json_lit(_ATM_DEFAULTS)} -> ('$.' || json_quote({_level})) "
    "END)"
)
_limit_opened = iso_date(get(_LIMIT_ACC, "date_opened"))
_limit_age = f"CAST(julianday('2025-11-14') - julianday({_limit_opened}) AS INTEGER)"
TEMPORARY_LIMIT_INCREASE = Discoverable(
    "request_temporary_debit_card_limit_increase_8374",
    "Raise a debit card's daily ATM or purchase limit for 24 hours, up to 150% of the current limit.",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("limit_type", "string", "'atm' (daily ATM withdrawals) or 'purchase' (daily purchases)"),
        Param("new_limit", "integer", "The temporary limit in dollars"),
    ),
    True,
    [
        {
            "kind": "query",
            "bind": "c",
            "sql": f"SELECT {_current} AS current, json_type({_current}) AS kind, "
            f"CAST(CAST({_current} AS REAL) * 1.5 AS INTEGER) AS most",
        },
        check(
            first_error(
                (empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                (empty(":limit_type"), "'Error: Missing required parameter: limit_type.'"),
                (
                    ":limit_type NOT IN ('atm', 'purchase')",
                    "'Error: Invalid limit_type ''' || :limit_type || '''. Must be ''atm'' or ''purchase''.'",
                ),
                (":new_limit IS NULL", "'Error: Missing required parameter: new_limit.'"),
                (
                    f"{_new} != {_new_int}",
                    f"'Error: new_limit must be an integer, got ''' || float_text({_new}) || '''.'",
                ),
                (f"{_new_int} <= 0", "'Error: new_limit must be a positive amount.'"),
                CARD_FOUND,
                (
                    f"{CARD_STATUS} IS NOT 'ACTIVE' OR json_type({CARD}, '$.status') IS NOT 'text'",
                    f"'Error: Debit card ''' || :card_id || ''' is not active. Current status: ' || {status_text('')} "
                    "|| '. Only ACTIVE cards can have limit increases.'",
                ),
                (
                    f"coalesce({CARD_ACCOUNT}, '') = '' OR {_LIMIT_ACC} IS NULL",
                    "'Error: Could not find linked account for debit card ''' || :card_id || '''.'",
                ),
                (
                    f"json_extract({_LIMIT_ACC}, '$.status') IS NOT 'OPEN' OR json_type({_LIMIT_ACC}, '$.status') "
                    "IS NOT 'text'",
                    f"'Error: The linked account ''' || {CARD_ACCOUNT} || ''' is not in good standing. Account "
                    f"status: ' || {pyval(_LIMIT_ACC, 'status', 'None')} || '.'",
                ),
                (
                    f"{_limit_opened} IS NOT NULL AND {_limit_age} < 60",
                    "'Error: Account must be at least 60 days old for a temporary limit increase. Account age: ' || "
                    f"{_limit_age} || ' days.'",
                ),
                (
                    f":limit_type = 'atm' AND ({_card_limit} IS NULL OR {_card_limit} = 'null') AND "
                    f"{_level} LIKE '%light green%'",
                    lit(
                        "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be "
                        "modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety "
                        "reasons. The customer may request the parent/guardian to withdraw cash from their own account "
                        "if needed."
                    ),
                ),
                (
                    f":limit_type = 'atm' AND ({_card_limit} IS NULL OR {_card_limit} = 'null') AND :c.current IS NULL",
                    "'Error: Could not determine the default ATM limit for account type ''' || "
                    f"{pyval(_LIMIT_ACC, 'level', 'None')} || '''. Please verify the account type.'",
                ),
                (
                    ":c.current IS NULL",
                    f"'Error: The card does not have a ' || lower({_limit_name}) || ' configured. This may be a "
                    "restricted account type where limits are set by account policy and cannot be modified.'",
                ),
                (
                    f"{_new_int} > :c.most",
                    f"'Error: Requested limit $' || {_new_int} || ' exceeds the maximum allowed temporary increase. "
                    "Maximum temporary limit is $' || :c.most || ' (150% of current $' || python_str(:c.current) || "
                    "' limit).'",
                ),
                (
                    f"{_new_int} <= CAST(:c.current AS REAL)",
                    f"'Error: Requested limit $' || {_new_int} || ' is not higher than the current limit of $' || "
                    "python_str(:c.current) || '.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.' || {_field}, {_new_int}, "
            "'$.temporary_' || :limit_type || '_limit_increase', json('true'), '$.original_' || :limit_type || "
            f"'_limit', json(:c.current), '$.temporary_' || :limit_type || '_limit_expires', {TODAY}) "
            f"WHERE record_id = :card_id AND {OK}",
        },
        answer(
            joined(
                f"'Temporary ' || {_limit_name} || ' Increase Granted Successfully'",
                "'Card ID: ' || :card_id",
                "'Previous Limit: $' || python_str(:c.current)",
                f"'New Temporary Limit: $' || {_new_int}",
                f"'Increase Amount: $' || CASE WHEN :c.kind = 'real' THEN float_text({_new_int} - "
                f"CAST(:c.current AS REAL)) ELSE {_new_int} - CAST(:c.current AS INTEGER) END",
                "''",
                "'Important Information:'",
                "'- This temporary increase expires in 24 hours'",
                "'- After expiration, the limit will revert to $' || python_str(:c.current)",
                "'- Only one temporary increase is allowed per 24-hour period'",
                "''",
                "'Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own'",
                "'per-transaction or daily limits that Rho-Bank cannot override. The customer may need to'",
                "'use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.'",
            )
        ),
    ],
)

SET_RECURRING_BLOCK = Discoverable(
    "set_debit_card_recurring_block_7382",
    "Block or allow every recurring payment on a debit card (one-time purchases are not affected).",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("block_recurring", "boolean", "True blocks recurring payments, false allows them"),
    ),
    True,
    [
        check(
            first_error(
                (empty(":card_id"), "'Error: Missing required parameter: card_id'"),
                CARD_FOUND,
                (
                    f"upper(coalesce({get(CARD, 'status')}, '')) != 'ACTIVE'",
                    f"'Error: Cannot update recurring block settings for a card with status ''' || "
                    f"upper(coalesce({get(CARD, 'status')}, '')) || '''. Card must be ACTIVE.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE debit_cards SET record = json_set(record, '$.recurring_blocked', "
            f"{boolean(':block_recurring')}) WHERE record_id = :card_id AND {OK}",
        },
        answer(
            "CASE WHEN :block_recurring THEN "
            + joined(
                "'Recurring payments BLOCKED for debit card ' || :card_id || '.'",
                "'All recurring/subscription charges will be declined.'",
                "'One-time purchases are not affected.'",
                "'This change takes effect within 24 hours.'",
            )
            + " ELSE "
            + joined(
                "'Recurring payments UNBLOCKED for debit card ' || :card_id || '.'",
                "'Recurring/subscription charges will now be allowed.'",
                "'This change takes effect within 24 hours.'",
            )
            + " END"
        ),
    ],
)
