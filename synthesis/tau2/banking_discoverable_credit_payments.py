"""τ³ banking_knowledge's discoverable tools on credit card payments and credit limits: paying a card from
a checking account, its payment history, and credit limit increases (requesting one, its history,
approving or denying it); kept together as an increase is judged on the payments and the account's
standing.
"""

from __future__ import annotations

from .banking_discoverable_credit_cards import CC_PARAM
from .banking_discoverable_sql import OK, answer, check, empty, get, one_of, pyval, records_of
from .banking_sql import TODAY, balance, cat, exists, first_error, insert, lit, money, sha_id
from .banking_tool_spec import Discoverable, Param

_CHK = "(SELECT record FROM accounts WHERE record_id = :checking_account_id)"
_CCA = "(SELECT record FROM credit_card_accounts WHERE record_id = :credit_card_account_id)"
_pay = "CAST(:amount AS REAL)"
_cc_balance_text = (
    f"CASE WHEN json_type({_CCA}, '$.current_balance') IS NULL THEN '$0.00' "
    f"ELSE python_str({_CCA} -> '$.current_balance') END"
)
_cc_balance = (
    f"(SELECT CASE WHEN trim(v) GLOB '*[0-9]*' AND NOT trim(v) GLOB '*[^0-9.eE+-]*' THEN CAST(trim(v) AS REAL) "
    f"ELSE 0.0 END FROM (SELECT replace(replace({_cc_balance_text}, '$', ''), ',', '') AS v))"
)
PAY_CREDIT_CARD = Discoverable(
    "pay_credit_card_from_checking_9182",
    "Pay a credit card's balance from the customer's checking account.",
    (
        Param("user_id", "string", "The customer's user id"),
        Param("checking_account_id", "string", "The checking account the money comes from"),
        CC_PARAM,
        Param("amount", "number", "The payment in dollars, above 0"),
    ),
    True,
    [
        {"kind": "query", "bind": "b", "sql": f"SELECT {balance(_CHK)} AS chk, {_cc_balance} AS cc"},
        check(
            first_error(
                (
                    f"{empty(':user_id')} OR {empty(':checking_account_id')} OR {empty(':credit_card_account_id')} "
                    "OR :amount IS NULL",
                    "'Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, "
                    "amount).'",
                ),
                (f"{_pay} <= 0", "'Error: Payment amount must be a positive number.'"),
                (
                    "NOT " + exists("accounts", ":checking_account_id"),
                    "'Error: Checking account ''' || :checking_account_id || ''' not found.'",
                ),
                (
                    f"json_extract({_CHK}, '$.user_id') IS NOT :user_id OR json_type({_CHK}, '$.user_id') IS NOT "
                    "'text'",
                    "'Error: Checking account ''' || :checking_account_id || ''' does not belong to user ''' || "
                    ":user_id || '''.'",
                ),
                (
                    f"json_extract({_CHK}, '$.class') IS NOT 'checking' OR json_type({_CHK}, '$.class') IS NOT 'text'",
                    "'Error: Account ''' || :checking_account_id || ''' is not a checking account.'",
                ),
                (
                    f"{_pay} > :b.chk",
                    f"'Error: Insufficient funds in checking account. Available balance: $' || {money(':b.chk')} || "
                    f"', requested payment: $' || {money(_pay)} || '.'",
                ),
                (
                    "NOT " + exists("credit_card_accounts", ":credit_card_account_id"),
                    "'Error: Credit card account ''' || :credit_card_account_id || ''' not found.'",
                ),
                (
                    f"json_extract({_CCA}, '$.user_id') IS NOT :user_id OR json_type({_CCA}, '$.user_id') IS NOT "
                    "'text'",
                    "'Error: Credit card account ''' || :credit_card_account_id || ''' does not belong to user ''' || "
                    ":user_id || '''.'",
                ),
                (
                    f"{_pay} > :b.cc",
                    f"'Error: Payment amount ($' || {money(_pay)} || ') exceeds credit card balance ($' || "
                    f"{money(':b.cc')} || '). Please specify an amount up to the outstanding balance.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE accounts SET record = json_set(record, '$.current_holdings', "
            f"{money(f':b.chk - {_pay}')}) WHERE record_id = :checking_account_id AND {OK}",
        },
        {
            "kind": "exec",
            "sql": "UPDATE credit_card_accounts SET record = json_set(record, '$.current_balance', '$' || "
            f"{money(f':b.cc - {_pay}')}) WHERE record_id = :credit_card_account_id AND {OK}",
        },
        answer(
            f"'Payment processed successfully!' || char(10) || '  - Payment Amount: $' || {money(_pay)} || char(10) || "
            "'  - From Checking Account: ' || :checking_account_id || char(10) || '  - To Credit Card Account: ' || "
            f":credit_card_account_id || char(10) || '  - New Checking Balance: $' || {money(f':b.chk - {_pay}')} || "
            f"char(10) || '  - New Credit Card Balance: $' || {money(f':b.cc - {_pay}')} || char(10) || "
            "'The payment has been applied immediately.'"
        ),
    ],
)

_CC_OF_USER = (
    f"json_extract({_CCA}, '$.user_id') IS NOT :user_id OR json_type({_CCA}, '$.user_id') IS NOT 'text'",
    "'Error: Credit card account ''' || :credit_card_account_id || ''' does not belong to user ''' || :user_id || "
    "'''.'",
)
_CC_BY_KEY = (
    "NOT " + exists("credit_card_accounts", ":credit_card_account_id"),
    "'Error: Credit card account ''' || :credit_card_account_id || ''' not found.'",
)
_increase = "CAST(:requested_increase_amount AS REAL)"
_cli_id = sha_id(
    cat(
        "'cli_request:'",
        ":credit_card_account_id",
        "':'",
        ":user_id",
        "':'",
        f"python_format(CAST({_increase} AS INTEGER), '.2f')",
    ),
    12,
    "cli_",
)
SUBMIT_CLI_REQUEST = Discoverable(
    "submit_credit_limit_increase_request_7392",
    "Submit a request to raise a credit card's limit.",
    (
        CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("requested_increase_amount", "integer", "The increase asked for, in whole dollars"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR {empty(':user_id')} OR :requested_increase_amount IS NULL",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"{_increase} != CAST({_increase} AS INTEGER)",
                    "'Error: Invalid requested_increase_amount. Must be a whole number of dollars.'",
                ),
                (f"{_increase} <= 0", "'Error: Requested increase amount must be positive.'"),
                _CC_BY_KEY,
                _CC_OF_USER,
                (exists("credit_limit_increase_requests", _cli_id), "'Error: A similar request may already exist.'"),
            ),
            id=_cli_id,
        ),
        insert(
            "credit_limit_increase_requests",
            ":chk.id",
            "json_object('request_id', :chk.id, 'credit_card_account_id', :credit_card_account_id, 'user_id', "
            f":user_id, 'requested_increase_amount', CAST({_increase} AS INTEGER), 'submitted_at', {TODAY}, "
            "'status', 'PENDING')",
            OK,
        ),
        answer(
            "'Credit limit increase request submitted successfully.' || char(10) || char(10) || "
            "'Executed: submit_credit_limit_increase_request_7392' || char(10) || '  - Request ID: ' || :chk.id || "
            "char(10) || '  - Account: ' || :credit_card_account_id || char(10) || '  - Requested Increase: $' || "
            f"python_format(CAST({_increase} AS INTEGER), ',') || char(10) || '  - Status: PENDING'"
        ),
    ],
)

GET_CLI_HISTORY = records_of(
    "get_credit_limit_increase_history_4829",
    "The credit limit increase requests of a credit card account: dates, amounts, statuses.",
    CC_PARAM,
    "credit_limit_increase_requests",
    "credit_card_account_id",
    "Credit limit increase history retrieved.",
    "Credit limit increase history for account ",
    "No credit limit increase requests found for this account.",
)

_months = "CAST(CAST(:months AS REAL) AS INTEGER)"
_PAYMENTS = (
    "SELECT record, row_number() OVER (ORDER BY coalesce(nullif(json_extract(record, '$.payment_date'), ''), '') DESC, "
    "position) AS n FROM payment_history WHERE json_extract(record, '$.credit_card_account_id') IS "
    ":credit_card_account_id AND json_type(record, '$.credit_card_account_id') = 'text'"
)
_SHOWN = f"SELECT record, n FROM ({_PAYMENTS}) WHERE n <= {_months}"
GET_PAYMENT_HISTORY = Discoverable(
    "get_payment_history_6183",
    "A credit card account's payments over the last months, most recent first, with its run of on-time payments.",
    (CC_PARAM, Param("months", "integer", "How many months back")),
    False,
    [
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR :months IS NULL",
                    "'Error: Missing required parameters (credit_card_account_id, months).'",
                ),
                (f"{_months} <= 0", "'Error: months must be a positive integer.'"),
                (
                    f"NOT EXISTS ({_PAYMENTS})",
                    "'No payment history found for account ''' || :credit_card_account_id || '''.'",
                ),
            )
        ),
        answer(
            f"'Payment history for account ''' || :credit_card_account_id || ''' (last ' || {_months} || ' months):' "
            "|| char(10) || 'Consecutive on-time payments: ' || coalesce((SELECT min(n) - 1 FROM "
            f"({_SHOWN}) WHERE json_extract(record, '$.status') IS NOT 'ON_TIME' OR json_type(record, '$.status') "
            f"IS NOT 'text'), (SELECT count(*) FROM ({_SHOWN}))) || coalesce((SELECT group_concat(line, '') FROM "
            f"(SELECT char(10) || char(10) || '  - Payment Date: ' || {pyval('record', 'payment_date', 'None')} || "
            f"char(10) || '    Amount: ' || {pyval('record', 'amount', 'None')} || char(10) || '    Status: ' || "
            f"{pyval('record', 'status', 'None')} AS line FROM ({_SHOWN}) ORDER BY n)), '')"
        ),
    ],
)

_CLI_DISPUTE = (
    "EXISTS (SELECT 1 FROM transaction_disputes WHERE json_extract(record, '$.user_id') IS :user_id AND "
    "json_type(record, '$.user_id') = 'text' AND json_extract(record, '$.status') IN ('SUBMITTED', 'UNDER_REVIEW', "
    "'PENDING') AND json_type(record, '$.status') = 'text')"
)
_CLI_ORDER = (
    "EXISTS (SELECT 1 FROM credit_card_orders WHERE json_extract(record, '$.credit_card_account_id') IS "
    ":credit_card_account_id AND json_type(record, '$.credit_card_account_id') = 'text' AND "
    "json_extract(record, '$.status') IN ('PENDING', 'PROCESSING', 'SHIPPED') AND json_type(record, '$.status') = "
    "'text')"
)
_CLI_STANDING = (
    f"upper(coalesce({get(_CCA, 'account_status')}, '')) IN ('PAST_DUE', 'DELINQUENT', 'COLLECTIONS', 'CLOSED')"
)
_limit_text = (
    f"CASE WHEN json_type({_CCA}, '$.credit_limit') IS NULL THEN '$0.00' ELSE python_str({_CCA} -> '$.credit_limit') "
    "END"
)
_old_limit = (
    f"(SELECT CASE WHEN trim(v) GLOB '*[0-9]*' AND NOT trim(v) GLOB '*[^0-9.eE+-]*' THEN CAST(trim(v) AS REAL) "
    f"ELSE 0.0 END FROM (SELECT replace(replace({_limit_text}, '$', ''), ',', '') AS v))"
)
_new_limit = "CAST(:new_credit_limit AS REAL)"
APPROVE_CLI = Discoverable(
    "approve_credit_limit_increase_5847",
    "Approve a credit limit increase and set the card's new limit, when the account is eligible.",
    (
        CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("new_credit_limit", "integer", "The new total limit in dollars"),
    ),
    True,
    [
        {"kind": "query", "bind": "l", "sql": f"SELECT {_old_limit} AS old"},
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR {empty(':user_id')} OR :new_credit_limit IS NULL",
                    "'Error: Missing required parameters.'",
                ),
                _CC_BY_KEY,
                _CC_OF_USER,
                (
                    f"{_CLI_DISPUTE} OR {_CLI_ORDER} OR {_CLI_STANDING}",
                    "'Error: Credit limit increase request cannot be approved at this time.'",
                ),
            ),
            id=sha_id(
                cat(
                    "'cli_request:'",
                    ":credit_card_account_id",
                    "':'",
                    ":user_id",
                    "':'",
                    money(f"{_new_limit} - :l.old"),
                ),
                12,
                "cli_",
            ),
        ),
        {
            "kind": "exec",
            "sql": "UPDATE credit_card_accounts SET record = json_set(record, '$.credit_limit', '$' || "
            f"{money(_new_limit)}) WHERE record_id = :credit_card_account_id AND {OK}",
        },
        insert(
            "credit_limit_increase_requests",
            ":chk.id",
            "json_object('request_id', :chk.id, 'credit_card_account_id', :credit_card_account_id, 'user_id', "
            f":user_id, 'previous_limit', '$' || {money(':l.old')}, 'new_limit', '$' || {money(_new_limit)}, "
            f"'increase_amount', '$' || {money(f'{_new_limit} - :l.old')}, 'decision_date', {TODAY}, "
            "'status', 'APPROVED')",
            OK,
        ),
        answer(
            "'Credit limit increase approved!' || char(10) || '  - Account: ' || :credit_card_account_id || char(10) "
            f"|| '  - Previous Limit: $' || {money(':l.old')} || char(10) || '  - New Limit: $' || {money(_new_limit)} "
            f"|| char(10) || '  - Increase: $' || {money(f'{_new_limit} - :l.old')} || char(10) || "
            "'  - Effective Date: 11/14/2025' || char(10) || 'The customer will receive a confirmation email.'"
        ),
    ],
)

_DENIAL_REASONS = [
    "insufficient_account_age",
    "cooldown_period_active",
    "pending_disputes",
    "pending_replacement_card",
    "past_due_balance",
    "high_utilization",
    "insufficient_payment_history",
    "requested_amount_exceeds_limit",
    "other",
]
DENY_CLI = Discoverable(
    "deny_credit_limit_increase_5848",
    "Deny a credit limit increase, with the reason.",
    (
        CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("denial_reason", "string", f"One of: {', '.join(_DENIAL_REASONS)}"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':credit_card_account_id')} OR {empty(':user_id')} OR {empty(':denial_reason')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {one_of(':denial_reason', _DENIAL_REASONS)}",
                    lit(f"Error: Invalid denial_reason. Must be one of: {', '.join(_DENIAL_REASONS)}"),
                ),
                _CC_BY_KEY,
            ),
            id=sha_id(cat("'cli_request:'", ":credit_card_account_id", "':'", ":user_id", "':0.00'"), 12, "cli_"),
        ),
        insert(
            "credit_limit_increase_requests",
            ":chk.id",
            "json_object('request_id', :chk.id, 'credit_card_account_id', :credit_card_account_id, 'user_id', "
            f":user_id, 'denial_reason', :denial_reason, 'decision_date', {TODAY}, 'status', 'DENIED')",
            OK,
        ),
        answer(
            "'Credit limit increase request denied.' || char(10) || '  - Account: ' || :credit_card_account_id || "
            "char(10) || '  - Denial Reason: ' || :denial_reason || char(10) || '  - Date: 11/14/2025' || char(10) || "
            "'The customer will receive a notification explaining the denial.'"
        ),
    ],
)
