"""τ³ banking_knowledge's discoverable bank account tools: a customer's accounts and an account's
transactions, opening an account (when the customer's other accounts meet its requirements) and closing
one (with the early-closure fee of its level).
"""

from __future__ import annotations

from .banking_discoverable_sql import (
    ACCOUNT,
    NL,
    OK,
    age_days,
    answer,
    check,
    empty,
    get,
    iso_date,
    joined,
    one_of,
    pyval,
)
from .banking_sql import (
    TODAY,
    balance,
    boolean,
    cat,
    exists,
    first_error,
    insert,
    json_lit,
    listing,
    lit,
    money,
    sha_id,
    where_field,
)
from .banking_tool_spec import Discoverable, Param


def _txn_sort_key(rec: str) -> str:
    """tau2's ``txn_sort_key``: ``date`` read as ``MM/DD/YYYY[ HH:MM:SS]``, else the earliest time."""
    d = get(rec, "date")
    iso_day = iso_date(f"substr({d}, 1, 10)")
    return (
        f"CASE WHEN length({d}) = 10 AND {iso_day} IS NOT NULL THEN {iso_day} || ' 00:00:00' "
        f"WHEN length({d}) = 19 AND {iso_day} IS NOT NULL AND time(substr({d}, 12)) IS substr({d}, 12) "
        f"THEN {iso_day} || ' ' || substr({d}, 12) ELSE '' END"
    )


GET_BANK_ACCOUNT_TRANSACTIONS = Discoverable(
    "get_bank_account_transactions_9173",
    "A bank account's transactions, most recent first.",
    (Param("account_id", "string", "The bank account's id"),),
    False,
    [
        check(
            first_error(
                (empty(":account_id"), "'Error: Missing required parameter: account_id'"),
                (f"NOT {exists('accounts', ':account_id')}", "'Error: Account ''' || :account_id || ''' not found.'"),
            )
        ),
        answer(
            joined(
                "'Bank account transactions retrieved successfully.'",
                "''",
                "'Executed: get_bank_account_transactions_9173'",
                "'Transactions for account ' || :account_id || ':'",
                "CASE WHEN EXISTS (SELECT 1 FROM bank_account_transaction_history WHERE "
                f"{where_field('account_id', ':account_id')}) THEN "
                + listing(
                    "bank_account_transaction_history",
                    where_field("account_id", ":account_id"),
                    f"{_txn_sort_key('record')} DESC, position",
                )
                + f" ELSE {NL} || 'No transactions found for this account.' END",
            )
        ),
    ],
)

GET_ALL_USER_ACCOUNTS = Discoverable(
    "get_all_user_accounts_by_user_id_3847",
    "All of a customer's accounts: bank accounts and credit card accounts.",
    (Param("user_id", "string", "The customer's user id"),),
    False,
    [
        check(first_error((empty(":user_id"), "'Error: Missing required parameter: user_id'"))),
        {
            "kind": "query",
            "bind": "found",
            "sql": f"SELECT {listing('accounts', where_field('user_id', ':user_id'))} AS accounts, "
            f"{listing('credit_card_accounts', where_field('user_id', ':user_id'))} AS cards",
        },
        answer(
            joined(
                "'User accounts retrieved successfully.'",
                "''",
                "'Executed: get_all_user_accounts_by_user_id_3847'",
                "'Accounts for user ' || :user_id || ':'",
                "''",
                "'Bank Accounts:'",
                "CASE WHEN :found.accounts LIKE '%No records found%' OR :found.accounts LIKE '%No results found%' "
                "THEN '  No bank accounts found.' ELSE :found.accounts END",
                f"{NL} || 'Credit Card Accounts:'",
                "CASE WHEN :found.cards LIKE '%No records found%' OR :found.cards LIKE '%No results found%' "
                "THEN '  No credit card accounts found.' ELSE :found.cards END",
            )
        ),
    ],
)

_ACCOUNT_TYPES = ["checking", "savings", "business_checking", "business_savings"]


def _user_accounts(cond: str) -> str:
    return f"EXISTS (SELECT 1 FROM accounts AS a WHERE {where_field('user_id', ':user_id', 'a.record')} AND {cond})"


_KIND = get("a.record", "account_type", get("a.record", "class"))
_STATUS = get("a.record", "status")
_OPEN = f"{_STATUS} IN ('OPEN', 'ACTIVE')"
_NOT_MET = "'Error: Account eligibility requirements not met.'"
_PERSONAL = f"{_KIND} IN ('checking', 'personal_checking')"
_SAVINGS_OK = f"{_PERSONAL} AND {_OPEN} AND {age_days('a.record')} >= 14"
_CLOSED = f"{_STATUS} IS 'CLOSED'"
_PERSONAL_OPEN = f"{_PERSONAL} AND {_OPEN}"
_NEGATIVE = f"{balance('a.record')} < 0"
_BUSINESS_OK = f"{_KIND} IS 'business_checking' AND {_OPEN} AND {age_days('a.record')} >= 30"
_account_id = sha_id(cat("'account:'", ":user_id", "':'", ":account_type", "':'", ":account_class"), 16)

OPEN_BANK_ACCOUNT = Discoverable(
    "open_bank_account_4821",
    "Open a new bank account for a customer, when they meet its requirements.",
    (
        Param("user_id", "string", "The customer's user id"),
        Param("account_type", "string", "'checking', 'savings', 'business_checking' or 'business_savings'"),
        Param("account_class", "string", "The account's full official class name"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':user_id')} OR {empty(':account_type')} OR {empty(':account_class')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {one_of(':account_type', _ACCOUNT_TYPES)}",
                    lit(f"Error: Invalid account_type. Must be one of: {_ACCOUNT_TYPES}"),
                ),
                (f":account_type = 'savings' AND NOT {_user_accounts(_SAVINGS_OK)}", _NOT_MET),
                (f":account_type = 'business_checking' AND {_user_accounts(_CLOSED)}", _NOT_MET),
                (f":account_type = 'business_checking' AND NOT {_user_accounts(_PERSONAL_OPEN)}", _NOT_MET),
                (f":account_type = 'business_savings' AND {_user_accounts(_NEGATIVE)}", _NOT_MET),
                (f":account_type = 'business_savings' AND NOT {_user_accounts(_BUSINESS_OK)}", _NOT_MET),
            ),
            id=_account_id,
        ),
        {"kind": "query", "bind": "taken", "sql": f"SELECT {exists('accounts', ':chk.id')} AS yes"},
        insert(
            "accounts",
            ":chk.id",
            "json_object('account_id', :chk.id, 'user_id', :user_id, 'account_type', :account_type, 'account_class', "
            f":account_class, 'current_holdings', '0.00', 'status', 'OPEN', 'date_opened', {TODAY})",
            OK,
        ),
        answer(
            "CASE WHEN :taken.yes THEN 'Failed to open account: Account ID ''' || :chk.id || ''' may already exist.' "
            "ELSE 'Bank account opened successfully!' || char(10) || '  - Account ID: ' || :chk.id || char(10) || "
            "'  - User ID: ' || :user_id || char(10) || '  - Account Type: ' || :account_type || char(10) || "
            "'  - Account Class: ' || :account_class || char(10) || '  - Status: OPEN' || char(10) || "
            "'  - Initial Balance: $0.00' || char(10) || '  - Date Opened: 11/14/2025' END"
        ),
    ],
)

_CHECKING_FEES = {
    "Light Blue Account": (15, 30),
    "Light Green Account": (15, 30),
    "Green Fee-Free Account": (15, 30),
    "Blue Account": (25, 60),
    "Green Account": (25, 60),
    "Evergreen Account": (50, 90),
    "Bluest Account": (100, 180),
}
_SAVINGS_FEES = {
    "Bronze Account": (20, 60),
    "Silver Account": (35, 90),
    "Silver Plus Account": (35, 90),
    "Gold Account": (75, 180),
    "Gold Plus Account": (75, 180),
    "Gold Years Account": (75, 180),
    "Platinum Account": (150, 270),
    "Platinum Plus Account": (150, 270),
    "Diamond Elite Account": (150, 270),
}


def _fee_rule(part: int) -> str:
    """The early-closure fee (part 0) or window in days (part 1) of the account's level, NULL when none."""
    level, klass = get("a.rec", "level"), get("a.rec", "class")
    checking = json_lit({k: list(v) for k, v in _CHECKING_FEES.items()})
    savings = json_lit({k: list(v) for k, v in _SAVINGS_FEES.items()})
    return (
        f"CASE WHEN {klass} IS 'checking' THEN json_extract({checking}, '$.' || json_quote({level}) || '[{part}]') "
        f"WHEN {klass} IS 'savings' THEN json_extract({savings}, '$.' || json_quote({level}) || '[{part}]') END"
    )


_opened = iso_date(get("a.rec", "date_opened"))
_age = f"CAST(julianday('2025-11-14 03:40:00') - julianday({_opened}) AS INTEGER)"
_waive = "coalesce(:waive_early_closure_fee, 0)"
_closure_reason = "coalesce(:reason, 'Customer requested closure')"

CLOSE_BANK_ACCOUNT = Discoverable(
    "close_bank_account_7392",
    "Close a checking or savings account whose balance, after any early-closure fee, is zero.",
    (
        Param("account_id", "string", "The account's id"),
        Param("reason", "string", "Why it is closed", required=False),
        Param("waive_early_closure_fee", "boolean", "Whether the early-closure fee is waived", required=False),
    ),
    True,
    [
        {
            "kind": "query",
            "bind": "a",
            "sql": f"SELECT rec, {balance('rec')} AS balance, CASE WHEN NOT {_waive} AND {_fee_rule(0)} IS NOT NULL "
            f"AND {get('rec', 'date_opened')} != '' AND {_opened} IS NOT NULL AND {_age} < {_fee_rule(1)} "
            f"THEN {_fee_rule(0)} END AS fee FROM (SELECT {ACCOUNT} AS rec) AS a",
        },
        check(
            first_error(
                (empty(":account_id"), "'Error: Missing required parameter (account_id).'"),
                ("NOT " + exists("accounts", ":account_id"), "'Error: Account ''' || :account_id || ''' not found.'"),
                (
                    "json_extract(:a.rec, '$.status') IS 'CLOSED'",
                    "'Error: Account ''' || :account_id || ''' is already closed.'",
                ),
                (":a.fee IS NOT NULL AND :a.balance < :a.fee", "'Error: Account unable to be closed.'"),
                (
                    ":a.balance - coalesce(:a.fee, 0.0) != 0",
                    "'Error: Account balance must be $0.00 before closing. Current balance: $' || "
                    f"{money(':a.balance')}",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE accounts SET record = json_set(record, '$.status', 'CLOSED', '$.date_closed', "
            f"{TODAY}, '$.closure_reason', {_closure_reason}, '$.early_closure_fee_waived', "
            f"{boolean(_waive)}) WHERE record_id = :account_id AND {OK}",
        },
        {"kind": "query", "bind": "after", "sql": f"SELECT {ACCOUNT} AS rec"},
        answer(
            "'Bank account closed successfully!' || char(10) || '  - Account ID: ' || :account_id || char(10) || "
            f"'  - Account Type: ' || {pyval(':after.rec', 'account_type', 'N/A')} || char(10) || "
            f"'  - Account Class: ' || {pyval(':after.rec', 'account_class', 'N/A')} || char(10) || "
            "'  - Status: CLOSED' || char(10) || '  - Date Closed: 11/14/2025' || char(10) || '  - Reason: ' || "
            f"{_closure_reason} || char(10) || '  - Early Closure Fee Waived: ' || "
            f"CASE WHEN {_waive} THEN 'Yes' ELSE 'No' END"
        ),
    ],
)
