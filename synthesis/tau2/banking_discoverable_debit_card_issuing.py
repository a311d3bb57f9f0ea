"""τ³ banking_knowledge's discoverable tools that issue debit cards: ordering one (with its delivery,
design and excess-replacement fees charged to the account), activating a new, replacement or
reissued card (one tool per kind, as tau2 has them), and clearing a card's fraud alert.
"""

from __future__ import annotations

from .banking_discoverable_debit_cards import CARD, CARD_ACCOUNT, CARD_FOUND, CARD_STATUS, pin_problem, status_text
from .banking_discoverable_sql import ACCOUNT, OK, answer, check, empty, get, joined, one_of, pyval, when
from .banking_sql import TODAY, cat, exists, first_error, insert, json_lit, lit, money, sha_id, titled
from .banking_tool_spec import Discoverable, Param

# -- ordering a card (order_debit_card_5739) -----------------------------------------------------------------
_DELIVERY = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days", "RUSH": "1-2 business days"}
_DESIGNS = ["CLASSIC", "PREMIUM", "CUSTOM"]
_delivery_fee, _design_fee = "CAST(:delivery_fee AS REAL)", "CAST(:design_fee AS REAL)"
_excess = "CAST(coalesce(nullif(:excess_replacement_fee, 0), 0) AS REAL)"
_total = f"({_delivery_fee} + {_design_fee} + {_excess})"
_option, _design = "upper(:delivery_option)", "upper(:card_design)"
_holdings_text = f"replace(coalesce(python_str({ACCOUNT} -> '$.current_holdings'), '0'), ',', '')"
_holdings = (
    f"(SELECT CASE WHEN trim(v) GLOB '*[0-9]*' AND NOT trim(v) GLOB '*[^0-9.eE+-]*' THEN CAST(trim(v) AS REAL) "
    f"ELSE 0.0 END FROM (SELECT CASE WHEN json_type({ACCOUNT}, '$.current_holdings') IS NULL THEN '0' "
    f"ELSE {_holdings_text} END AS v))"
)
_dc_order_id = sha_id(cat("'debit_card_order:'", ":account_id", "':'", ":user_id", "':'", _option), 12, "dcord_")
_dc_card_id = sha_id(cat("'debit_card:'", ":account_id", "':'", ":user_id", "':11/14/2025'"), 12, "dbc_")


def _digits(seed: str, hex_chars: int, keep: int) -> str:
    """tau2's card details: the digits among the first ``hex_chars`` hex digits of the seed's digest,
    the first ``keep`` of them, zero-filled on the left."""
    text = f"substr(sha256_hex({seed}), 1, {hex_chars})"
    for letter in "abcdef":
        text = f"replace({text}, '{letter}', '')"
    zeros = "0" * keep
    return f"substr('{zeros}' || substr({text}, 1, {keep}), -{keep}, {keep})"


_CARDS_OF = (
    "SELECT record, position FROM debit_cards WHERE json_extract(record, '$.account_id') IS :account_id "
    "AND json_type(record, '$.account_id') = 'text'"
)
_closed_reason = (
    f"(SELECT {get('c.record', 'closure_reason', chr(39) + 'first_card' + chr(39))} FROM ({_CARDS_OF}) AS c "
    "WHERE json_extract(c.record, '$.status') IS 'CLOSED' ORDER BY c.position LIMIT 1)"
)
_issue_reason = (
    f"CASE WHEN EXISTS (SELECT 1 FROM ({_CARDS_OF}) AS c WHERE json_extract(c.record, '$.status') IS 'CLOSED') "
    f"THEN CASE WHEN {_closed_reason} IN ('lost', 'stolen', 'fraud') THEN {_closed_reason} "
    f"WHEN {_closed_reason} = 'fraud_suspected' THEN 'fraud' ELSE 'first_card' END "
    f"WHEN EXISTS ({_CARDS_OF}) THEN 'first_card' ELSE 'new_account' END"
)


def _fee_parts(sep: str, delivery: str, design: str, excess: str) -> str:
    """tau2's fee description: the non-zero fees, each as Python writes it, joined by ``sep``."""
    parts = [
        (f"{_delivery_fee} > 0", f"'{delivery}' || float_text({_delivery_fee})"),
        (f"{_design_fee} > 0", f"'{design}' || float_text({_design_fee})"),
        (f"{_excess} > 0", f"'{excess}' || python_format({_excess}, '.0f')"),
    ]
    items = " UNION ALL ".join(f"SELECT {i} AS n, {text} AS part WHERE {cond}" for i, (cond, text) in enumerate(parts))
    return f"(SELECT group_concat(part, '{sep}') FROM (SELECT part FROM ({items}) ORDER BY n))"


ORDER_DEBIT_CARD = Discoverable(
    "order_debit_card_5739",
    "Order a new debit card for a customer's open checking account, charging its delivery and design fees.",
    (
        Param("account_id", "string", "The checking account the card is for"),
        Param("user_id", "string", "The customer's user id"),
        Param("delivery_option", "string", "STANDARD, EXPEDITED or RUSH"),
        Param("delivery_fee", "number", "The delivery fee in dollars"),
        Param("card_design", "string", "CLASSIC, PREMIUM or CUSTOM"),
        Param("design_fee", "number", "The design fee in dollars"),
        Param("shipping_address", "string", "Where the card is sent"),
        Param("excess_replacement_fee", "number", "The fee for too many replacements, if any", required=False),
    ),
    True,
    [
        {"kind": "query", "bind": "h", "sql": f"SELECT {_holdings} AS old"},
        check(
            first_error(
                (
                    f"{empty(':account_id')} OR {empty(':user_id')} OR {empty(':delivery_option')} OR "
                    f":delivery_fee IS NULL OR {empty(':card_design')} OR :design_fee IS NULL OR "
                    f"{empty(':shipping_address')}",
                    "'Error: Missing required parameters. Required: account_id, user_id, delivery_option, "
                    "delivery_fee, "
                    "card_design, design_fee, shipping_address.'",
                ),
                (
                    f"NOT {one_of(_option, list(_DELIVERY))}",
                    lit(f"Error: Invalid delivery_option. Must be one of: {list(_DELIVERY)}"),
                ),
                (f"NOT {one_of(_design, _DESIGNS)}", lit(f"Error: Invalid card_design. Must be one of: {_DESIGNS}")),
                ("NOT " + exists("accounts", ":account_id"), "'Error: Account ''' || :account_id || ''' not found.'"),
                (
                    f"json_extract({ACCOUNT}, '$.class') IS NOT 'checking' OR "
                    f"json_type({ACCOUNT}, '$.class') IS NOT 'text'",
                    "'Error: Debit cards can only be ordered for checking accounts. Account ''' || :account_id || "
                    f"''' is a ' || {pyval(ACCOUNT, 'class', 'None')} || ' account.'",
                ),
                (
                    f"json_extract({ACCOUNT}, '$.status') IS NOT 'OPEN' OR "
                    f"json_type({ACCOUNT}, '$.status') IS NOT 'text'",
                    "'Error: Account must be OPEN. Account ''' || :account_id || ''' has status: ' || "
                    f"{pyval(ACCOUNT, 'status', 'None')}",
                ),
                (
                    f"json_extract({ACCOUNT}, '$.user_id') IS NOT :user_id OR json_type({ACCOUNT}, '$.user_id') IS NOT "
                    "'text'",
                    "'Error: Account ''' || :account_id || ''' does not belong to user ''' || :user_id || '''.'",
                ),
                (
                    ":h.old < 25.0",
                    f"'Error: Account must have a minimum balance of $25. Current balance: $' || {money(':h.old')}",
                ),
                (
                    "EXISTS (SELECT 1 FROM debit_card_orders WHERE json_extract(record, '$.account_id') IS :account_id "
                    "AND json_type(record, '$.account_id') = 'text' AND json_extract(record, '$.status') IS 'PENDING')",
                    "'Error: There is already a pending debit card order for account ''' || :account_id || '''.'",
                ),
                (
                    f"EXISTS (SELECT 1 FROM ({_CARDS_OF}) AS c WHERE json_extract(c.record, '$.status') IS 'ACTIVE')",
                    "'Error: Account ''' || :account_id || ''' already has an active debit card. Maximum 1 active card "
                    "per checking account.'",
                ),
                (
                    f"{_total} > 0 AND :h.old < {_total}",
                    f"'Error: Insufficient funds for fees. Total fees: $' || {money(_total)} || '. Current balance: $' "
                    f"|| {money(':h.old')}",
                ),
                (
                    exists("debit_card_orders", _dc_order_id),
                    "'Error: Failed to create debit card order. Order may already exist.'",
                ),
            ),
            ord=_dc_order_id,
            card=_dc_card_id,
            reason=_issue_reason,
        ),
        insert(
            "debit_card_orders",
            ":chk.ord",
            f"json_object('order_id', :chk.ord, 'account_id', :account_id, 'user_id', :user_id, 'delivery_option', "
            f"{_option}, 'card_design', {_design}, 'shipping_address', :shipping_address, 'delivery_fee', "
            f"json(float_text({_delivery_fee})), 'design_fee', json(float_text({_design_fee})), "
            f"'excess_replacement_fee', json(float_text({_excess})), 'total_fee', json(float_text({_total})), "
            f"'order_date', {TODAY}, 'expected_delivery', json_extract({json_lit(_DELIVERY)}, '$.' || {_option}), "
            "'status', 'PENDING')",
            OK,
        ),
        {
            "kind": "exec",
            "sql": "UPDATE accounts SET record = json_set(record, '$.current_holdings', "
            f"{money(f':h.old - {_total}')}) WHERE record_id = :account_id AND {OK} AND {_total} > 0",
        },
        insert(
            "bank_account_transaction_history",
            "'btxn_dcfee_' || substr(:chk.ord, -8)",
            "json_object('transaction_id', 'btxn_dcfee_' || substr(:chk.ord, -8), 'account_id', :account_id, "
            f"'date', {TODAY}, 'description', 'DEBIT CARD ORDER FEE - ' || "
            f"{_fee_parts(', ', 'Delivery $', 'Design $', 'Excess Replacement $')}, 'amount', "
            f"json(float_text(-{_total})), 'type', 'debit_card_fee', 'status', 'posted')",
            f"{OK} AND {_total} > 0",
        ),
        insert(
            "debit_cards",
            ":chk.card",
            "json_object('card_id', :chk.card, 'account_id', :account_id, 'user_id', :user_id, 'cardholder_name', "
            "CASE WHEN EXISTS (SELECT 1 FROM users WHERE record_id = :user_id) THEN upper(coalesce((SELECT "
            f"{get('record', 'name', chr(39) + 'CARDHOLDER' + chr(39))} FROM users WHERE record_id = :user_id), "
            "'None')) ELSE 'CARDHOLDER' END, 'last_4_digits', "
            f"{_digits(cat(lit('card_details:'), ':chk.card', lit(':last4')), 8, 4)}, 'cvv', "
            f"{_digits(cat(lit('card_details:'), ':chk.card', lit(':cvv')), 6, 3)}, 'status', 'PENDING', "
            f"'issue_date', {TODAY}, 'expiration_date', '11/30/2029', 'card_design', {_design}, 'issue_reason', "
            ":chk.reason)",
            OK,
        ),
        answer(
            joined(
                "'Debit Card Order Confirmed'",
                "'Order ID: ' || :chk.ord",
                "'Card ID: ' || :chk.card",
                "'Linked Account: ' || :account_id",
                f"'Delivery Option: ' || {_option}",
                f"'Card Design: ' || {_design}",
                "'Shipping Address: ' || :shipping_address",
                f"'Expected Delivery: ' || json_extract({json_lit(_DELIVERY)}, '$.' || {_option})",
                "''",
                "'Note: Card will arrive with status PENDING. Customer must call to activate after receiving the "
                "card.'",
                f"CASE WHEN {_total} > 0 THEN 'Total Fees: $' || {money(_total)} || ' (' || "
                f"{_fee_parts(', ', 'Delivery: $', 'Design: $', 'Excess Replacement: $')} || ') - CHARGED to account ' "
                f"|| :account_id || char(10) || 'New Account Balance: $' || {money(f':h.old - {_total}')} "
                "ELSE 'Total Fees: $0 (No additional charges)' END",
            )
        ),
    ],
)

# -- activating a card, clearing its fraud alert ------------------------------------------------------------

_ACTIVATION_TOOLS = {
    "new_account": "activate_debit_card_8291",
    "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292",
    "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292",
    "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293",
    "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293",
}

_OTHER_ACTIVE = (
    "SELECT record_id, position FROM debit_cards WHERE record_id != :card_id AND json_extract(record, '$.account_id') "
    f"IS {CARD_ACCOUNT} AND json_extract(record, '$.status') IS 'ACTIVE' AND json_type(record, '$.status') = 'text'"
)


def _activation(
    name: str, description: str, allowed: list[str], default: str, other_sets: str, lines: str
) -> Discoverable:
    """``activate_debit_card_829x``: tau2's common checks (``_validate_activation_common``), the card made
    active, and the account's other active cards changed as ``other_sets`` says."""
    reason = get(CARD, "issue_reason", lit(default))
    shown_reason = pyval(CARD, "issue_reason", "new_account")
    return Discoverable(
        name,
        description,
        (
            Param("card_id", "string", "The debit card's id"),
            Param("last_4_digits", "string", "The card number's last 4 digits, to verify the card"),
            Param("expiration_date", "string", "The card's expiration date, MM/YY"),
            Param("cvv", "string", "The 3-digit CVV on the back of the card"),
            Param("pin", "string", "The 4-digit PIN the customer chose"),
        ),
        True,
        [
            check(
                first_error(
                    (
                        " OR ".join(
                            empty(f":{p}") for p in ("card_id", "last_4_digits", "expiration_date", "cvv", "pin")
                        ),
                        "'Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, "
                        "pin.'",
                    ),
                    (f"({pin_problem(':pin')}) IS NOT NULL", f"'Error: ' || ({pin_problem(':pin')})"),
                    (":cvv GLOB '*[^0-9]*' OR length(:cvv) != 3", "'Error: CVV must be exactly 3 digits.'"),
                    (
                        ":last_4_digits GLOB '*[^0-9]*' OR length(:last_4_digits) != 4",
                        "'Error: Last 4 digits must be exactly 4 digits.'",
                    ),
                    CARD_FOUND,
                    (
                        f"{reason} IS NULL OR NOT {one_of(reason, allowed)}",
                        f"'Error: Wrong activation tool. This card has issue_reason=''' || {shown_reason} || '''. "
                        "Please "
                        f"use ' || coalesce(json_extract({json_lit(_ACTIVATION_TOOLS)}, '$.' || json_quote({reason})), "
                        f"'unknown') || ' instead of {name}.'",
                    ),
                    (f"{CARD_STATUS} IS 'ACTIVE'", "'Error: Debit card ''' || :card_id || ''' is already active.'"),
                    (
                        f"{CARD_STATUS} IS NOT 'PENDING'",
                        f"'Error: Debit card ''' || :card_id || ''' cannot be activated. Current status: ' || "
                        f"{status_text('')} || '. Only PENDING cards can be activated.'",
                    ),
                    (
                        f"json_extract({CARD}, '$.last_4_digits') IS NOT :last_4_digits OR "
                        f"json_type({CARD}, '$.last_4_digits') IS NOT 'text'",
                        "'Error: Card verification failed. The last 4 digits do not match our records.'",
                    ),
                    (
                        f"coalesce({CARD_ACCOUNT}, '') != '' AND EXISTS (SELECT 1 FROM accounts WHERE record_id = "
                        f"{CARD_ACCOUNT} AND json_extract(record, '$.status') IS NOT 'OPEN')",
                        f"'Error: The linked checking account ''' || {CARD_ACCOUNT} || ''' is no longer open. Card "
                        "cannot be activated.'",
                    ),
                ),
                reason=reason,
                others=f"(SELECT group_concat(record_id, ', ') FROM (SELECT record_id FROM ({_OTHER_ACTIVE}) "
                "ORDER BY position))",
            ),
            {
                "kind": "exec",
                "sql": f"UPDATE debit_cards SET record = json_set(record, {other_sets}) WHERE record_id IN "
                f"(SELECT record_id FROM ({_OTHER_ACTIVE})) AND {OK}",
            },
            {
                "kind": "exec",
                "sql": "UPDATE debit_cards SET record = json_set(record, '$.status', 'ACTIVE', '$.activated_date', "
                f"{TODAY}) WHERE record_id = :card_id AND {OK}",
            },
            answer(lines),
        ],
    )


_ACTIVATE_LINES = ["'Card ID: ' || :card_id"]
ACTIVATE_NEW = _activation(
    "activate_debit_card_8291",
    "Activate a customer's first debit card on a checking account (issue reason new_account or first_card).",
    ["new_account", "first_card"],
    "new_account",
    f"'$.status', 'DEACTIVATED', '$.deactivated_date', {TODAY}, '$.deactivation_reason', 'New card activated'",
    joined(
        "'New Debit Card Activation Successful'",
        "'Card ID: ' || :card_id",
        "'Status: ACTIVE'",
        "'Activation Date: 11/14/2025'",
        "''",
        "'Your card is now ready to use at any ATM or point of sale terminal.'",
        "'For security, please sign the back of your card.'",
    )
    + " || "
    + when(":chk.others IS NOT NULL", "char(10) || 'Note: Previous card(s) have been deactivated: ' || :chk.others"),
)
_REPLACEMENT = ["lost", "stolen", "fraud"]
ACTIVATE_REPLACEMENT = _activation(
    "activate_debit_card_8292",
    "Activate a replacement debit card (issue reason lost, stolen or fraud); the account's other cards stop at once.",
    _REPLACEMENT,
    "lost",
    f"'$.status', 'DEACTIVATED', '$.deactivated_date', {TODAY}, '$.deactivation_reason', "
    "'Replacement card activated (' || :chk.reason || ')'",
    joined(
        "'Replacement Debit Card Activation Successful'",
        "'Card ID: ' || :card_id",
        f"'Replacement Reason: ' || {titled(_REPLACEMENT, ':chk.reason')}",
        "'Status: ACTIVE'",
        "'Activation Date: 11/14/2025'",
        "''",
        "'Your replacement card is now ready to use.'",
        "''",
        "'IMPORTANT SECURITY REMINDERS:'",
        "'- Please review your recent transactions for any unauthorized charges'",
        "'- Report any suspicious activity immediately'",
    )
    + " || "
    + when(
        ":chk.reason = 'fraud'",
        "'- Since fraud was suspected, we recommend changing your online banking password'",
    )
    + " || "
    + when(
        ":chk.others IS NOT NULL",
        "char(10) || 'Previous card(s) have been deactivated for security: ' || :chk.others",
    ),
)
_REISSUE = ["expired", "damaged", "upgrade", "bank_reissue"]
ACTIVATE_REISSUED = _activation(
    "activate_debit_card_8293",
    "Activate a reissued debit card (issue reason expired, damaged, upgrade or bank_reissue); the old card keeps "
    "working for a 24-hour grace period.",
    _REISSUE,
    "expired",
    f"'$.status', 'GRACE_PERIOD', '$.grace_period_ends', {TODAY}, '$.deactivation_reason', "
    "'Reissued card activated (' || :chk.reason || ')'",
    joined(
        "'Reissued Debit Card Activation Successful'",
        "'Card ID: ' || :card_id",
        f"'Reissue Reason: ' || {titled(_REISSUE, ':chk.reason')}",
        "'Status: ACTIVE'",
        "'Activation Date: 11/14/2025'",
        "''",
        "'Your reissued card is now ready to use.'",
    )
    + " || "
    + when(
        ":chk.others IS NOT NULL",
        "char(10) || 'Note: Your previous card(s) (' || :chk.others || ') will remain active for 24 hours as a "
        "grace period.' || char(10) || 'After 24 hours, the old card(s) will be automatically deactivated.'",
    )
    + " || "
    + when(
        ":chk.reason IN ('expired', 'bank_reissue')",
        "char(10) || 'Reminder: If your card number changed, please update any recurring payments with your new "
        "card details.'",
    ),
)


def _truthy(rec: str, key: str) -> str:
    """Python's truth of ``rec.get(key, False)``."""
    kind = f"json_type({rec}, '$.{key}')"
    value = f"json_extract({rec}, '$.{key}')"
    return (
        f"(CASE WHEN {kind} = 'true' THEN 1 WHEN {kind} IN ('integer', 'real') THEN {value} != 0 "
        f"WHEN {kind} = 'text' THEN {value} != '' WHEN {kind} = 'array' THEN json_array_length({rec}, '$.{key}') > 0 "
        f"WHEN {kind} = 'object' THEN {rec} -> '$.{key}' != '{{}}' ELSE 0 END)"
    )


CLEAR_FRAUD_ALERT = Discoverable(
    "clear_debit_card_fraud_alert_4892",
    "Clear a fraud alert (after verifying the customer) or a velocity block on a debit card.",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("reason", "string", "'customer_verified' (a fraud alert) or 'velocity_clear' (a velocity block)"),
    ),
    True,
    [
        check(
            first_error(
                (empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                (empty(":reason"), "'Error: Missing required parameter: reason.'"),
                (
                    ":reason NOT IN ('customer_verified', 'velocity_clear')",
                    "'Error: Invalid reason ''' || :reason || '''. Must be one of: customer_verified, velocity_clear'",
                ),
                CARD_FOUND,
                (
                    f":reason = 'velocity_clear' AND NOT {_truthy(CARD, 'velocity_blocked')}",
                    "'Error: Debit card ''' || :card_id || ''' does not have an active velocity block.'",
                ),
                (
                    f":reason = 'customer_verified' AND NOT {_truthy(CARD, 'fraud_alert_active')}",
                    "'Error: Debit card ''' || :card_id || ''' does not have an active fraud alert.'",
                ),
                (
                    f":reason = 'customer_verified' AND json_extract({CARD}, '$.alert_source') IS 'bank_initiated' "
                    f"AND json_type({CARD}, '$.alert_source') = 'text'",
                    lit(
                        "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection "
                        "system and cannot be cleared by customer service agents. Please transfer the customer to the "
                        "security team using transfer_to_human_agents."
                    ),
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE debit_cards SET record = CASE WHEN :reason = 'velocity_clear' THEN json_set(record, "
            f"'$.velocity_blocked', json('false'), '$.velocity_cleared_date', {TODAY}) ELSE json_set(record, "
            f"'$.fraud_alert_active', json('false'), '$.alert_source', json('null'), '$.fraud_alert_cleared_date', "
            f"{TODAY}) END WHERE record_id = :card_id AND {OK}",
        },
        answer(
            "CASE WHEN :reason = 'velocity_clear' THEN "
            + joined(
                "'Velocity Block Cleared Successfully'",
                "'Card ID: ' || :card_id",
                "'Cleared Date: 11/14/2025'",
                "''",
                "'The card is now unblocked and ready for normal use.'",
                "'The velocity monitoring will continue - if the same unusual patterns recur,'",
                "'the card may be blocked again automatically.'",
            )
            + " ELSE "
            + joined(
                "'Fraud Alert Cleared Successfully'",
                "'Card ID: ' || :card_id",
                "'Cleared Date: 11/14/2025'",
                "''",
                "'The fraud alert has been removed from the card.'",
                "'All transactions will process normally.'",
                "''",
                "'Remind the customer to review recent transactions and report any unauthorized charges.'",
            )
            + " END"
        ),
    ],
)
