"""τ³ banking_knowledge's discoverable credit card account tools: ordering a replacement card, correcting
a transaction's rewards, statement credits and account flags, closing an account and logging why, and
the replacement orders and closure reasons on record. ``CC_PARAM`` is shared with
``banking_discoverable_credit_payments``.
"""

from __future__ import annotations

from .banking_discoverable_sql import (
    NL,
    OK,
    answer,
    check,
    empty,
    joined,
    one_of,
    pystr,
    records_of,
    user_args_indented,
)
from .banking_sql import TODAY, boolean, cat, exists, first_error, insert, lit, money, sha_id, titled, where_field
from .banking_tool_spec import Discoverable, Param

_REPLACE_REASONS = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
_order_id = sha_id(
    cat("'credit_card_order:'", ":credit_card_account_id", "':'", ":user_id", "':'", ":reason"), 12, "ccord_"
)
_expedited = "coalesce(:expedited_shipping, 0)"

ORDER_REPLACEMENT_CREDIT_CARD = Discoverable(
    "order_replacement_credit_card_7291",
    "Order a replacement credit card; the old card is cancelled when it is ordered.",
    (
        Param("credit_card_account_id", "string", "The credit card account whose card is replaced"),
        Param("user_id", "string", "The customer's user id"),
        Param("shipping_address", "string", "Where the new card is sent"),
        Param("reason", "string", f"One of: {', '.join(_REPLACE_REASONS)}"),
        Param("expedited_shipping", "boolean", "Expedited shipping (2-3 business days)", required=False),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR {empty(':user_id')} OR {empty(':shipping_address')} "
                    f"OR {empty(':reason')}",
                    "'Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason).'",
                ),
                (
                    f"NOT {one_of(':reason', _REPLACE_REASONS)}",
                    lit(f"Error: Invalid reason. Must be one of: {_REPLACE_REASONS}"),
                ),
                (
                    "NOT EXISTS (SELECT 1 FROM credit_card_accounts WHERE "
                    f"{where_field('account_id', ':credit_card_account_id')})",
                    "'Error: Credit card account ''' || :credit_card_account_id || ''' not found.'",
                ),
                (
                    exists("credit_card_orders", _order_id),
                    "'Error: Order may have already been placed for this card replacement.'",
                ),
            ),
            id=_order_id,
        ),
        insert(
            "credit_card_orders",
            ":chk.id",
            "json_object('order_id', :chk.id, 'credit_card_account_id', :credit_card_account_id, 'user_id', :user_id, "
            f"'shipping_address', :shipping_address, 'reason', :reason, 'expedited_shipping', {boolean(_expedited)}, "
            f"'order_date', {TODAY}, 'status', 'ORDERED', 'old_card_cancelled', json('true'))",
            OK,
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE credit_card_accounts SET record = json_set(record, '$.status', 'CLOSED', '$.closed_date', "
            f"{TODAY}) WHERE record_id = :credit_card_account_id AND {OK}",
        },
        answer(
            joined(
                "'Order ID: ' || :chk.id",
                "'Card Account: ' || :credit_card_account_id",
                f"'Reason: ' || {titled(_REPLACE_REASONS, ':reason')}",
                "'Shipping Address: ' || :shipping_address",
                f"'Shipping Method: ' || CASE WHEN {_expedited} THEN 'Expedited' ELSE 'Standard' END",
                f"'Expected Delivery: ' || CASE WHEN {_expedited} THEN '2-3 business days' ELSE '7-10 business days' "
                "END",
                "''",
                lit(
                    "The old card has been cancelled for security. The new card will have the same account number but "
                    "a new card number and CVV."
                ),
            )
        ),
    ],
)

UPDATE_TRANSACTION_REWARDS = Discoverable(
    "update_transaction_rewards_3847",
    "Correct the rewards a credit card transaction earned.",
    (
        Param("transaction_id", "string", "The transaction's id"),
        Param("new_rewards_earned", "string", "The corrected rewards, e.g. '6300 points'"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':transaction_id')} OR {empty(':new_rewards_earned')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    "NOT " + exists("credit_card_transaction_history", ":transaction_id"),
                    "'Error: Transaction ''' || :transaction_id || ''' not found.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE credit_card_transaction_history SET record = json_set(record, '$.rewards_earned', "
            f":new_rewards_earned) WHERE record_id = :transaction_id AND {OK}",
        },
        answer(
            cat(
                lit(
                    "Transaction rewards updated successfully.\n\n"
                    "Executed: update_transaction_rewards_3847\nArguments: "
                ),
                user_args_indented(
                    [
                        ("transaction_id", pystr(":transaction_id")),
                        ("new_rewards_earned", pystr(":new_rewards_earned")),
                    ]
                ),
                NL,
                "'Transaction updated:'",
                NL,
                "'  - Transaction ID: ' || :transaction_id",
                NL,
                "'  - New Rewards: ' || :new_rewards_earned",
            )
        ),
    ],
)

CC_PARAM = Param("credit_card_account_id", "string", "The credit card account's id")
GET_PENDING_REPLACEMENT_ORDERS = records_of(
    "get_pending_replacement_orders_5765",
    "Whether a credit card account has replacement card orders pending.",
    CC_PARAM,
    "credit_card_orders",
    "credit_card_account_id",
    "Pending replacement orders check completed.",
    "Replacement orders for credit card account ",
    "No pending replacement orders found for this credit card account.",
)
GET_CLOSURE_REASON_HISTORY = records_of(
    "get_closure_reason_history_8293",
    "The closure reasons logged for a credit card account (earlier attempts to close it).",
    CC_PARAM,
    "credit_card_closure_reasons",
    "credit_card_account_id",
    "Closure reason history retrieved successfully.",
    "Closure reason history for credit card account ",
    "No closure reason records found for this credit card account.",
)

_CLOSURE_REASONS = [
    "annual_fee",
    "not_using_card",
    "found_better_card",
    "unhappy_with_rewards",
    "simplifying_finances",
    "negative_experience",
    "other",
]
_closure_id = sha_id(cat("'closure_reason:'", ":credit_card_account_id", "':'", ":user_id"), 12, "clsr_")
_closure_pairs = [
    ("credit_card_account_id", pystr(":credit_card_account_id")),
    ("user_id", pystr(":user_id")),
    ("closure_reason", pystr(":closure_reason")),
]
LOG_CLOSURE_REASON = Discoverable(
    "log_credit_card_closure_reason_4521",
    "Record why a customer wants to close a credit card account.",
    (
        CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("closure_reason", "string", f"One of: {', '.join(_CLOSURE_REASONS)}"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR {empty(':user_id')} OR {empty(':closure_reason')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {one_of(':closure_reason', _CLOSURE_REASONS)}",
                    lit(f"Error: Invalid closure_reason. Must be one of: {_CLOSURE_REASONS}"),
                ),
            ),
            id=_closure_id,
        ),
        insert(
            "credit_card_closure_reasons",
            ":chk.id",
            "json_object('record_id', :chk.id, 'credit_card_account_id', :credit_card_account_id, 'user_id', "
            f":user_id, 'closure_reason', :closure_reason, 'logged_at', {TODAY}, 'status', 'LOGGED')",
            OK,
        ),
        answer(
            cat(
                lit(
                    "Closure reason logged successfully.\n\nExecuted: log_credit_card_closure_reason_4521\nArguments: "
                ),
                user_args_indented(_closure_pairs),
                NL,
                "'Closure reason ''' || :closure_reason || ''' logged for account ' || :credit_card_account_id || '.'",
            )
        ),
    ],
)

_CC_EXISTS = (
    f"NOT EXISTS (SELECT 1 FROM credit_card_accounts WHERE {where_field('account_id', ':credit_card_account_id')})",
    "'Error: Credit card account ''' || :credit_card_account_id || ''' not found.'",
)
_STATEMENT_REASONS = [
    "goodwill_adjustment",
    "promotional_credit",
    "annual_fee_reversal",
    "late_fee_reversal",
    "interest_charge_reversal",
    "dispute_resolution",
    "price_match",
    "retention_offer",
    "error_correction",
    "other",
]
_credit = "CAST(:amount AS REAL)"
_statement_txn = sha_id(
    cat("'transaction:'", ":user_id", "':STATEMENT_CREDIT:'", ":reason", "':'", money(_credit), "':Statement Credit'"),
    12,
    "txn_",
)
APPLY_STATEMENT_CREDIT = Discoverable(
    "apply_statement_credit_8472",
    "Credit a customer's credit card statement.",
    (
        Param("user_id", "string", "The customer's user id"),
        CC_PARAM,
        Param("amount", "number", "The credit in dollars"),
        Param("reason", "string", f"One of: {', '.join(_STATEMENT_REASONS)}"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':user_id')} OR {empty(':credit_card_account_id')} OR :amount IS NULL OR "
                    f"{empty(':reason')}",
                    "'Error: Missing required parameters (user_id, credit_card_account_id, amount, reason).'",
                ),
                (f"{_credit} <= 0", "'Error: Credit amount must be positive.'"),
                (
                    f"NOT {one_of(':reason', _STATEMENT_REASONS)}",
                    lit(f"Error: Invalid reason. Must be one of: {_STATEMENT_REASONS}"),
                ),
                _CC_EXISTS,
                (
                    exists("credit_card_transaction_history", _statement_txn),
                    f"'Error: Failed to apply statement credit. Transaction ID ''' || {_statement_txn} || ''' may "
                    "already exist.'",
                ),
            ),
            id=_statement_txn,
        ),
        insert(
            "credit_card_transaction_history",
            ":chk.id",
            "json_object('transaction_id', :chk.id, 'user_id', :user_id, 'credit_card_account_id', "
            ":credit_card_account_id, 'credit_card_type', 'N/A', 'merchant_name', 'Rho-Bank Statement Credit', "
            f"'transaction_amount', '-$' || {money(_credit)}, 'transaction_date', {TODAY}, 'category', "
            "'Statement Credit', 'status', 'COMPLETED', 'rewards_earned', '0 points', 'credit_reason', :reason)",
            OK,
        ),
        answer(
            "'Statement credit applied successfully.' || char(10) || char(10) || 'Executed: "
            "apply_statement_credit_8472'"
            " || char(10) || '  - Transaction ID: ' || :chk.id || char(10) || '  - User ID: ' || :user_id || "
            "char(10) || '  - Account: ' || :credit_card_account_id || char(10) || '  - Credit Amount: $' || "
            f"{money(_credit)} || char(10) || '  - Reason: ' || {titled(_STATEMENT_REASONS, ':reason')} || char(10) || "
            "'  - Date: 11/14/2025'"
        ),
    ],
)

_FLAG_TYPES = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
_FLAG_REASONS = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
_flag_id = sha_id(
    cat("'account_flag:'", ":credit_card_account_id", "':'", ":flag_type", "':'", ":expiration_date"), 12, "ccflag_"
)
APPLY_ACCOUNT_FLAG = Discoverable(
    "apply_credit_card_account_flag_6147",
    "Put a flag on a credit card account (an annual fee waiver, a promotional APR, a rewards bonus), from today "
    "until its expiration date.",
    (
        CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("flag_type", "string", f"One of: {', '.join(_FLAG_TYPES)}"),
        Param("expiration_date", "string", "When the flag ends, MM/DD/YYYY"),
        Param("reason", "string", f"One of: {', '.join(_FLAG_REASONS)}"),
    ),
    True,
    [
        check(
            first_error(
                (
                    " OR ".join(
                        empty(f":{p}")
                        for p in ("credit_card_account_id", "user_id", "flag_type", "expiration_date", "reason")
                    ),
                    "'Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, "
                    "reason).'",
                ),
                (
                    f"NOT {one_of(':flag_type', _FLAG_TYPES)}",
                    lit(f"Error: Invalid flag_type. Must be one of: {_FLAG_TYPES}"),
                ),
                (
                    f"NOT {one_of(':reason', _FLAG_REASONS)}",
                    lit(f"Error: Invalid reason. Must be one of: {_FLAG_REASONS}"),
                ),
                _CC_EXISTS,
                (
                    exists("credit_card_account_flags", _flag_id),
                    f"'Error: Failed to apply account flag. Flag ID ''' || {_flag_id} || ''' may already exist.'",
                ),
            ),
            id=_flag_id,
        ),
        insert(
            "credit_card_account_flags",
            ":chk.id",
            "json_object('flag_id', :chk.id, 'credit_card_account_id', :credit_card_account_id, 'user_id', :user_id, "
            f"'flag_type', :flag_type, 'effective_date', {TODAY}, 'expiration_date', :expiration_date, 'reason', "
            f":reason, 'applied_at', {TODAY}, 'status', 'ACTIVE')",
            OK,
        ),
        answer(
            "'Account flag applied successfully!' || char(10) || '  - Flag ID: ' || :chk.id || char(10) || "
            "'  - Account: ' || :credit_card_account_id || char(10) || '  - User ID: ' || :user_id || char(10) || "
            f"'  - Flag Type: ' || {titled(_FLAG_TYPES, ':flag_type')} || char(10) || '  - Effective Date: 11/14/2025' "
            "|| char(10) || '  - Expiration Date: ' || :expiration_date || char(10) || '  - Reason: ' || "
            f"{titled(_FLAG_REASONS, ':reason')}"
        ),
    ],
)

_close_pairs = [("credit_card_account_id", pystr(":credit_card_account_id")), ("user_id", pystr(":user_id"))]
CLOSE_CREDIT_CARD_ACCOUNT = Discoverable(
    "close_credit_card_account_7834",
    "Close a customer's credit card account for good.",
    (CC_PARAM, Param("user_id", "string", "The customer's user id")),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR {empty(':user_id')}",
                    "'Error: Missing required parameters (credit_card_account_id, user_id).'",
                ),
                _CC_EXISTS,
                (
                    "NOT " + exists("credit_card_accounts", ":credit_card_account_id"),
                    "'Error: Failed to close credit card account ''' || :credit_card_account_id || '''.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE credit_card_accounts SET record = json_set(record, '$.status', 'CLOSED', '$.closed_date', "
            f"{TODAY}, '$.closed_by', :user_id) WHERE record_id = :credit_card_account_id AND {OK}",
        },
        answer(
            cat(
                lit(
                    "Credit card account closed successfully.\n\nExecuted: close_credit_card_account_7834\nArguments: "
                ),
                user_args_indented(_close_pairs),
                NL,
                "'Account ' || :credit_card_account_id || ' has been closed.'",
            )
        ),
    ],
)
