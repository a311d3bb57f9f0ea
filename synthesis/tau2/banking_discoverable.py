"""τ³ banking_knowledge's discoverable tools, as SQL: the internal tools the agent unlocks and calls
(``AGENT_DISCOVERABLE``) and those it hands to the customer (``USER_DISCOVERABLE``). Each answers as
tau2's method of the same name does (tau2's ``tools.py``, MIT), text for text; the descriptions are ours.

Arguments reach them as ``call_discoverable_*_tool`` passes them: tau2 reads the JSON with
``parse_int=float``, so every number is a float (``num``), and a record keeps it so.
"""

from __future__ import annotations

from typing import Any

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
    next_position,
    num,
    py_list,
    sha_id,
    titled,
    where_field,
)
from .banking_tools import Discoverable, Param

NL = "char(10)"
OK = ":chk.err IS NULL"


def _lines(*parts: str) -> str:
    """Python's ``"\\n".join(parts)`` of SQL text expressions."""
    return f" || {NL} || ".join(parts)


def _check(err: str, **values: str) -> dict[str, Any]:
    cols = "".join(f", {v} AS {k}" for k, v in values.items())
    return {"kind": "query", "bind": "chk", "sql": f"SELECT {err} AS err{cols}"}


def _answer(text: str) -> dict[str, Any]:
    return {"kind": "return", "shape": "value", "sql": f"SELECT coalesce(:chk.err, {text})"}


def _empty(param: str) -> str:
    """Python's ``not value`` for a text argument."""
    return f"coalesce({param}, '') = ''"


def get(rec: str, key: str, default: str = "''") -> str:
    """Python's ``rec.get(key, default)`` of a record's text value (NULL for a JSON null)."""
    return f"CASE WHEN json_type({rec}, '$.{key}') IS NOT NULL THEN {rec} ->> '$.{key}' ELSE {default} END"


def iso_date(text: str) -> str:
    """``MM/DD/YYYY`` as ``YYYY-MM-DD`` (NULL when it is no such date)."""
    iso = f"(substr({text}, 7, 4) || '-' || substr({text}, 1, 2) || '-' || substr({text}, 4, 2))"
    return f"CASE WHEN {text} GLOB '[0-9][0-9]/[0-9][0-9]/[0-9][0-9][0-9][0-9]' AND date({iso}) IS {iso} THEN {iso} END"


def age_days(rec: str) -> str:
    """tau2's ``get_account_age_days``: whole days from ``date_opened`` to now; 0 for no date."""
    opened = iso_date(get(rec, "date_opened"))
    return f"coalesce(CAST(julianday('2025-11-14 03:40:00') - julianday({opened}) AS INTEGER), 0)"


def _user_args_json(pairs: list[tuple[str, str]]) -> str:
    """``json.dumps(args, sort_keys=True)`` of the named values, each already Python JSON text."""
    body = " || ', ' || ".join(lit('"' + k + '": ') + " || " + v for k, v in sorted(pairs))
    return "'{' || " + body + " || '}'"


def _user_args_indented(pairs: list[tuple[str, str]]) -> str:
    """``json.dumps(args, indent=2)`` of the named values in their order."""
    body = " || ',' || char(10) || ".join(lit('  "' + k + '": ') + " || " + v for k, v in pairs)
    return "'{' || char(10) || " + body + " || char(10) || '}'"


def _given(name: str) -> dict[str, Any]:
    """``_check_tool_given``: the agent must have handed the tool over."""
    return _check(
        first_error(
            (
                f"NOT EXISTS (SELECT 1 FROM user_discoverable_tools WHERE {where_field('tool_name', lit(name))})",
                lit(
                    f"Error: Tool '{name}' has not been given to you by the agent. The agent must first use "
                    "`give_discoverable_user_tool` to give this tool to you."
                ),
            )
        )
    )


def _log_user_call(name: str, pairs: list[tuple[str, str]], record_values: list[tuple[str, str]]) -> dict[str, Any]:
    """``_log_user_tool_call``: the call, with its arguments, in ``user_discoverable_tool_calls``."""
    key = sha_id(cat(lit(f"user_discoverable_tool_call:{name}:"), _user_args_json(pairs)), 16)
    args = "json_object(" + ", ".join(f"'{k}', {v}" for k, v in record_values) + ")"
    return insert(
        "user_discoverable_tool_calls",
        key,
        f"json_object('tool_name', {lit(name)}, 'arguments', {args}, 'called_at', {TODAY}, 'status', 'CALLED')",
        OK,
    )


def _pystr(param: str) -> str:
    """A text argument as Python's ``json.dumps`` writes it."""
    return f"python_json(json_quote({param}))"


# -- the customer's ---------------------------------------------------------------------------------------

_dispute_id = sha_id(cat("'dispute:'", ":user_id", "':'", ":transaction_id"), 12, "dsp_")
_auto_resolve = (
    "coalesce((SELECT json_extract(record, '$.auto_resolve_disputes') FROM task_config "
    "WHERE record_id = 'dispute_settings' AND json_type(record, '$.auto_resolve_disputes') IN ('true', 'integer', "
    "'real')), 0)"
)
_cash_back_pairs = [("user_id", _pystr(":user_id")), ("transaction_id", _pystr(":transaction_id"))]

SUBMIT_CASH_BACK_DISPUTE = Discoverable(
    "submit_cash_back_dispute_0589",
    "File a dispute about the cash back a transaction earned.",
    (
        Param("user_id", "string", "Your user id"),
        Param("transaction_id", "string", "The transaction whose cash back is wrong"),
    ),
    True,
    [
        _given("submit_cash_back_dispute_0589"),
        _log_user_call(
            "submit_cash_back_dispute_0589",
            _cash_back_pairs,
            [("user_id", ":user_id"), ("transaction_id", ":transaction_id")],
        ),
        {
            "kind": "query",
            "bind": "d",
            "sql": f"SELECT {_dispute_id} AS id, {exists('cash_back_disputes', _dispute_id)} AS taken, "
            f"{_auto_resolve} AS auto",
        },
        insert(
            "cash_back_disputes",
            ":d.id",
            "CASE WHEN :d.auto THEN json_object('dispute_id', :d.id, 'user_id', :user_id, 'transaction_id', "
            f":transaction_id, 'submitted_at', {TODAY}, 'status', 'RESOLVED', 'resolution', 'APPROVED') ELSE "
            f"json_object('dispute_id', :d.id, 'user_id', :user_id, 'transaction_id', :transaction_id, 'submitted_at', "
            f"{TODAY}, 'status', 'SUBMITTED') END",
            OK,
        ),
        _answer(
            cat(
                lit(
                    "Cash back dispute submitted successfully. Your case has been queued for review.\n\n"
                    "Executed: submit_cash_back_dispute_0589\nArguments: "
                ),
                _user_args_indented(_cash_back_pairs),
                NL,
                "CASE WHEN :d.taken THEN 'Note: Dispute may have already been submitted for this transaction.' ELSE "
                "'Dispute ID: ' || :d.id || char(10) || CASE WHEN :d.auto THEN 'Status: RESOLVED - The dispute has "
                "been "
                "reviewed and approved. The transaction rewards need to be updated.' ELSE 'Status: SUBMITTED - Your "
                "dispute has been queued for review.' END END",
            )
        ),
    ],
)

_last4_digits = "sha256_hex('card_last4:' || :credit_card_account_id)"
for _hex in "abcdef":  # the digest's digits, in order
    _last4_digits = f"replace({_last4_digits}, '{_hex}', '')"
GET_CARD_LAST_4 = Discoverable(
    "get_card_last_4_digits",
    "Look up the last 4 digits of your credit card's number.",
    (Param("credit_card_account_id", "string", "The credit card account id, e.g. 'cc_76ad9cc60e_gold'"),),
    False,
    [
        _given("get_card_last_4_digits"),
        _log_user_call(
            "get_card_last_4_digits",
            [("credit_card_account_id", _pystr(":credit_card_account_id"))],
            [("credit_card_account_id", ":credit_card_account_id")],
        ),
        {
            "kind": "query",
            "bind": "c",
            "sql": "SELECT EXISTS (SELECT 1 FROM credit_card_accounts WHERE "
            f"{where_field('account_id', ':credit_card_account_id')}) AS found, substr({_last4_digits} || '0000', 1, "
            "4) AS last4",
        },
        _answer(
            "CASE WHEN NOT :c.found THEN 'Error: Credit card account ''' || :credit_card_account_id || ''' not found.' "
            "ELSE "
            + cat(
                lit("Card information retrieved successfully.\n\nExecuted: get_card_last_4_digits\nArguments: "),
                _user_args_indented([("credit_card_account_id", _pystr(":credit_card_account_id"))]),
                NL,
                "'Last 4 digits of card: ' || :c.last4",
            )
            + " END"
        ),
    ],
)

USER_DISCOVERABLE: list[Discoverable] = [SUBMIT_CASH_BACK_DISPUTE, GET_CARD_LAST_4]

# -- the agent's ------------------------------------------------------------------------------------------


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
        _check(
            first_error(
                (_empty(":account_id"), "'Error: Missing required parameter: account_id'"),
                (f"NOT {exists('accounts', ':account_id')}", "'Error: Account ''' || :account_id || ''' not found.'"),
            )
        ),
        _answer(
            _lines(
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
        _check(first_error((_empty(":user_id"), "'Error: Missing required parameter: user_id'"))),
        {
            "kind": "query",
            "bind": "found",
            "sql": f"SELECT {listing('accounts', where_field('user_id', ':user_id'))} AS accounts, "
            f"{listing('credit_card_accounts', where_field('user_id', ':user_id'))} AS cards",
        },
        _answer(
            _lines(
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


def _card_info() -> tuple[str, str]:
    """tau2's ``card_info``: ``{"card_id": id}`` updated with the card, ``last_4_digits`` renamed
    ``card_number_last_4`` and ``issue_date`` (else ``created_date``) renamed ``date_issued``."""
    rest = "json_remove(c.record, '$.card_id')"
    base = (
        f"json(CASE WHEN {rest} = '{{}}' THEN '{{\"card_id\":' || json_quote(c.record_id) || '}}' "
        f"ELSE '{{\"card_id\":' || json_quote(c.record_id) || ',' || substr({rest}, 2) END)"
    )
    base = (
        f"CASE WHEN json_type(c.record, '$.card_id') IS NOT NULL "
        f"THEN json_set({base}, '$.card_id', c.record -> '$.card_id') ELSE {base} END"
    )

    def rename(x: str, old: str, new: str) -> str:
        return (
            f"CASE WHEN json_type({x}, '$.{old}') IS NOT NULL AND json_type({x}, '$.{new}') IS NULL "
            f"THEN json_set(json_remove({x}, '$.{old}'), '$.{new}', {x} -> '$.{old}') ELSE {x} END"
        )

    step1 = rename(base, "last_4_digits", "card_number_last_4")
    issued = (
        "CASE WHEN json_type(s1.info, '$.issue_date') IS NOT NULL AND json_type(s1.info, '$.date_issued') IS NULL "
        f"THEN {rename('s1.info', 'issue_date', 'date_issued')} "
        f"ELSE {rename('s1.info', 'created_date', 'date_issued')} END"
    )
    return step1, issued


_STEP1, _ISSUED = _card_info()
GET_DEBIT_CARDS = Discoverable(
    "get_debit_cards_by_account_id_7823",
    "The debit cards of a checking account: status, issue reason, expiration date.",
    (Param("account_id", "string", "The checking account's id"),),
    False,
    [
        _check(
            first_error(
                (_empty(":account_id"), "'Error: Missing required parameter ''account_id''.'"),
                (f"NOT {exists('accounts', ':account_id')}", "'Error: Account ''' || :account_id || ''' not found.'"),
                (
                    f"lower(coalesce((SELECT {get('record', 'class')} FROM accounts WHERE record_id = :account_id), "
                    "'')) "
                    "NOT IN ('checking', 'business_checking')",
                    "'Error: Account ''' || :account_id || ''' is not a checking account. Debit cards are only "
                    "available for checking accounts.'",
                ),
            )
        ),
        _answer(
            "(WITH s1 AS (SELECT c.position AS position, "
            + _STEP1
            + " AS info FROM debit_cards AS c WHERE json_extract(c.record, '$.account_id') = :account_id AND "
            "json_type(c.record, '$.account_id') = 'text'), s2 AS (SELECT position, "
            + _ISSUED
            + " AS info FROM s1) SELECT CASE WHEN count(*) = 0 THEN 'No debit cards found for account ''' || "
            ":account_id || '''.' ELSE python_json(json_group_array(json(info)), 2) END FROM (SELECT info FROM s2 "
            "ORDER BY coalesce(nullif(info ->> '$.date_issued', ''), '') DESC, position))"
        ),
    ],
)

_CARD_ACTIONS = ["keep_active", "cancel_and_reissue"]
_CC_REASONS = [
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
]
_RESOLUTIONS = ["full_refund", "partial_refund"]


def _one_of(param: str, values: list[str]) -> str:
    return f"{param} IN (SELECT value FROM json_each({json_lit(values)}))"


FILE_CREDIT_CARD_DISPUTE = Discoverable(
    "file_credit_card_transaction_dispute_4829",
    "File a formal dispute of a credit card transaction.",
    (
        Param("transaction_id", "string", "The disputed transaction's id"),
        Param("card_action", "string", "'keep_active' or 'cancel_and_reissue' (a record only; orders no card)"),
        Param("card_last_4_digits", "string", "The card number's last 4 digits"),
        Param("full_name", "string", "The cardholder's full legal name"),
        Param("user_id", "string", "The customer's user id"),
        Param("phone", "string", "Contact phone number"),
        Param("email", "string", "Contact email"),
        Param("address", "string", "Contact mailing address"),
        Param("contacted_merchant", "boolean", "Whether the customer tried the merchant first"),
        Param("purchase_date", "string", "When the purchase was made, MM/DD/YYYY"),
        Param("issue_noticed_date", "string", "When the customer noticed the issue, MM/DD/YYYY"),
        Param("dispute_reason", "string", f"One of: {', '.join(_CC_REASONS)}"),
        Param("resolution_requested", "string", "'full_refund' or 'partial_refund'"),
        Param("eligible_for_provisional_credit", "boolean", "Whether provisional credit applies"),
        Param("partial_refund_amount", "number", "The partial refund asked for (partial refunds only)", required=False),
    ),
    True,
    [
        _check(
            first_error(
                (f"{_empty(':transaction_id')} OR {_empty(':user_id')}", "'Error: Missing required parameters.'"),
                (
                    f"NOT {_one_of(':card_action', _CARD_ACTIONS)}",
                    lit(f"Error: Invalid card_action. Must be one of: {_CARD_ACTIONS}"),
                ),
                (
                    f"NOT {_one_of(':dispute_reason', _CC_REASONS)}",
                    lit(f"Error: Invalid dispute_reason. Must be one of: {_CC_REASONS}"),
                ),
                (
                    f"NOT {_one_of(':resolution_requested', _RESOLUTIONS)}",
                    lit(f"Error: Invalid resolution_requested. Must be one of: {_RESOLUTIONS}"),
                ),
                (
                    ":resolution_requested = 'partial_refund' AND :partial_refund_amount IS NULL",
                    lit("Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."),
                ),
                (
                    f"{exists('transaction_disputes', _dispute_id)}",
                    "'Error: Dispute may have already been filed for this transaction.'",
                ),
            ),
            id=_dispute_id,
        ),
        insert(
            "transaction_disputes",
            ":chk.id",
            "json_object('dispute_id', :chk.id, 'transaction_id', :transaction_id, 'user_id', :user_id, 'card_action', "
            ":card_action, 'card_last_4_digits', :card_last_4_digits, 'full_name', :full_name, 'phone', :phone, "
            f"'email', :email, 'address', :address, 'contacted_merchant', {boolean(':contacted_merchant')}, "
            "'purchase_date', :purchase_date, 'issue_noticed_date', :issue_noticed_date, 'dispute_reason', "
            ":dispute_reason, 'resolution_requested', :resolution_requested, 'partial_refund_amount', "
            f"{num(':partial_refund_amount')}, 'eligible_for_provisional_credit', "
            f"{boolean(':eligible_for_provisional_credit')}, 'provisional_credit_given', "
            f"{boolean(':eligible_for_provisional_credit')}, 'submitted_at', {TODAY}, 'status', 'SUBMITTED')",
            OK,
        ),
        _answer(
            _lines(
                lit(
                    "Credit card transaction dispute filed successfully. A case has been opened and will be reviewed "
                    "within 10 business days."
                ),
                "''",
                "'Executed: file_credit_card_transaction_dispute_4829'",
                "'Dispute ID: ' || :chk.id",
                "'Transaction: ' || :transaction_id",
                f"'Reason: ' || {titled(_CC_REASONS, ':dispute_reason')}",
                f"'Resolution Requested: ' || {titled(_RESOLUTIONS, ':resolution_requested')}",
            )
            + f" || CASE WHEN coalesce(:partial_refund_amount, 0) != 0 THEN {NL} || 'Partial Refund Amount: $' || "
            f"{money(':partial_refund_amount')} ELSE '' END || {NL} || CASE WHEN :eligible_for_provisional_credit "
            "THEN 'Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days.' ELSE "
            "'Provisional Credit: Not eligible at this time.' END"
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
        _check(
            first_error(
                (
                    f"{_empty(':user_id')} OR {_empty(':account_type')} OR {_empty(':account_class')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {_one_of(':account_type', _ACCOUNT_TYPES)}",
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
        _answer(
            "CASE WHEN :taken.yes THEN 'Failed to open account: Account ID ''' || :chk.id || ''' may already exist.' "
            "ELSE 'Bank account opened successfully!' || char(10) || '  - Account ID: ' || :chk.id || char(10) || "
            "'  - User ID: ' || :user_id || char(10) || '  - Account Type: ' || :account_type || char(10) || "
            "'  - Account Class: ' || :account_class || char(10) || '  - Status: OPEN' || char(10) || "
            "'  - Initial Balance: $0.00' || char(10) || '  - Date Opened: 11/14/2025' END"
        ),
    ],
)


AGENT_DISCOVERABLE: list[Discoverable] = [
    GET_BANK_ACCOUNT_TRANSACTIONS,
    GET_ALL_USER_ACCOUNTS,
    GET_DEBIT_CARDS,
    FILE_CREDIT_CARD_DISPUTE,
    OPEN_BANK_ACCOUNT,
]

__all__ = ["AGENT_DISCOVERABLE", "USER_DISCOVERABLE", "num", "py_list"]


# -- second batch ---------------------------------------------------------------------------------------


def _when(cond: str, text: str) -> str:
    """A line added only when ``cond`` holds (``result_parts.append`` under an ``if``)."""
    return f"CASE WHEN {cond} THEN {NL} || {text} ELSE '' END"


def _pyval(rec: str, key: str, default: str) -> str:
    """Python's ``str(rec.get(key, default))`` of a record's field."""
    return f"coalesce(python_str({rec} -> '$.{key}'), {lit(default)})"


def _history(name: str, description: str, table: str, what: str, none: str) -> Discoverable:
    found = listing(table, where_field("user_id", ":user_id"))
    return Discoverable(
        name,
        description,
        (Param("user_id", "string", "The customer's user id"),),
        False,
        [
            _check(first_error((_empty(":user_id"), "'Error: Missing required parameter: user_id'"))),
            {"kind": "query", "bind": "found", "sql": f"SELECT {found} AS text"},
            _answer(
                _lines(
                    lit(f"{what} retrieved successfully."),
                    "''",
                    lit(f"Executed: {name}"),
                    lit(f"{what.split(' history')[0].replace('User ', '').capitalize()} history for user ")
                    + " || :user_id || ':'",
                    "CASE WHEN :found.text LIKE '%No records found%' OR :found.text LIKE '%No results found%' "
                    f"THEN {NL} || {lit(none)} ELSE :found.text END",
                )
            ),
        ],
    )


GET_USER_DISPUTE_HISTORY = _history(
    "get_user_dispute_history_7291",
    "A customer's credit card transaction disputes: ids, transactions, reasons, statuses, dates.",
    "transaction_disputes",
    "User transaction dispute history",
    "No transaction disputes found for this user.",
)
GET_DEBIT_DISPUTE_STATUS = _history(
    "get_debit_dispute_status_7483",
    "A customer's debit card disputes: ids, categories, amounts, statuses, provisional credit.",
    "debit_card_disputes",
    "Debit card dispute history",
    "No debit card disputes found for this user.",
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
_ACC = "(SELECT record FROM accounts WHERE record_id = :account_id)"


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
            f"THEN {_fee_rule(0)} END AS fee FROM (SELECT {_ACC} AS rec) AS a",
        },
        _check(
            first_error(
                (_empty(":account_id"), "'Error: Missing required parameter (account_id).'"),
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
        {"kind": "query", "bind": "after", "sql": f"SELECT {_ACC} AS rec"},
        _answer(
            "'Bank account closed successfully!' || char(10) || '  - Account ID: ' || :account_id || char(10) || "
            f"'  - Account Type: ' || {_pyval(':after.rec', 'account_type', 'N/A')} || char(10) || "
            f"'  - Account Class: ' || {_pyval(':after.rec', 'account_class', 'N/A')} || char(10) || "
            "'  - Status: CLOSED' || char(10) || '  - Date Closed: 11/14/2025' || char(10) || '  - Reason: ' || "
            f"{_closure_reason} || char(10) || '  - Early Closure Fee Waived: ' || "
            f"CASE WHEN {_waive} THEN 'Yes' ELSE 'No' END"
        ),
    ],
)

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
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR {_empty(':user_id')} OR {_empty(':shipping_address')} "
                    f"OR {_empty(':reason')}",
                    "'Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason).'",
                ),
                (
                    f"NOT {_one_of(':reason', _REPLACE_REASONS)}",
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
        _answer(
            _lines(
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
        _check(
            first_error(
                (
                    f"{_empty(':transaction_id')} OR {_empty(':new_rewards_earned')}",
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
        _answer(
            cat(
                lit(
                    "Transaction rewards updated successfully.\n\n"
                    "Executed: update_transaction_rewards_3847\nArguments: "
                ),
                _user_args_indented(
                    [
                        ("transaction_id", _pystr(":transaction_id")),
                        ("new_rewards_earned", _pystr(":new_rewards_earned")),
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


def _constant(name: str, description: str, text: str) -> Discoverable:
    return Discoverable(
        name,
        description,
        (),
        False,
        [_check("NULL"), _answer(lit(f"{text}\n\nExecuted: {name}\nArguments: (no arguments)"))],
    )


INITIAL_TRANSFER_0218 = _constant(
    "initial_transfer_to_human_agent_0218",
    "Start a transfer to a human agent, as a special transfer procedure asks.",
    "Initial Transfer Initiated, Inform the user that the lines are busy.",
)
INITIAL_TRANSFER_1822 = _constant(
    "initial_transfer_to_human_agent_1822",
    "Start a transfer to a human agent, as a special transfer procedure asks.",
    "Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a "
    "real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.",
)
EMERGENCY_TRANSFER_1114 = _constant(
    "emergency_credit_bureau_incident_transfer_1114",
    "Log a case of the 11/14 credit bureau reporting incident for priority handling.",
    "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction "
    "team. Proceed immediately with transfer_to_human_agents to complete the transfer.",
)

_SRC = "(SELECT record FROM accounts WHERE record_id = :source_account_id)"
_DST = "(SELECT record FROM accounts WHERE record_id = :destination_account_id)"
_amount = "CAST(:amount AS REAL)"

TRANSFER_FUNDS = Discoverable(
    "transfer_funds_between_bank_accounts_7291",
    "Move money from one of a customer's bank accounts to another.",
    (
        Param("source_account_id", "string", "The account the money leaves"),
        Param("destination_account_id", "string", "The account it goes to"),
        Param("amount", "number", "The amount in USD"),
    ),
    True,
    [
        {"kind": "query", "bind": "b", "sql": f"SELECT {balance(_SRC)} AS src, {balance(_DST)} AS dst"},
        _check(
            first_error(
                (
                    f"{_empty(':source_account_id')} OR {_empty(':destination_account_id')} OR :amount IS NULL",
                    "'Error: Missing required parameters (source_account_id, destination_account_id, amount).'",
                ),
                (f"{_amount} <= 0", "'Error: Transfer amount must be positive.'"),
                (
                    ":source_account_id = :destination_account_id",
                    "'Error: Source and destination accounts cannot be the same.'",
                ),
                (
                    "NOT " + exists("accounts", ":source_account_id"),
                    "'Error: Source account ''' || :source_account_id || ''' not found.'",
                ),
                (
                    "NOT " + exists("accounts", ":destination_account_id"),
                    "'Error: Destination account ''' || :destination_account_id || ''' not found.'",
                ),
                (
                    f"{get(_SRC, 'status', 'NULL')} IS NULL OR {get(_SRC, 'status', 'NULL')} NOT IN ('ACTIVE', 'OPEN')",
                    "'Error: Source account ''' || :source_account_id || ''' is not active.'",
                ),
                (
                    f"{get(_DST, 'status', 'NULL')} IS NULL OR {get(_DST, 'status', 'NULL')} NOT IN ('ACTIVE', 'OPEN')",
                    "'Error: Destination account ''' || :destination_account_id || ''' is not active.'",
                ),
                (
                    f":b.src < {_amount}",
                    f"'Error: Insufficient funds. Source account balance is $' || {money(':b.src')} || ', but transfer "
                    f"amount is $' || {money(_amount)} || '.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE accounts SET record = json_set(record, '$.current_holdings', '$' || CASE WHEN record_id = "
            f":source_account_id THEN {money(f':b.src - {_amount}')} ELSE {money(f':b.dst + {_amount}')} END) "
            f"WHERE record_id IN (:source_account_id, :destination_account_id) AND {OK}",
        },
        _answer(
            f"'Transfer completed successfully!' || char(10) || '  - Amount: $' || {money(_amount)} || char(10) || "
            f"'  - From: ' || :source_account_id || ' (new balance: $' || {money(f':b.src - {_amount}')} || ')' || "
            f"char(10) || '  - To: ' || :destination_account_id || ' (new balance: $' || "
            f"{money(f':b.dst + {_amount}')} || ')'"
        ),
    ],
)


def _account_credit(
    name: str,
    description: str,
    klass: str,
    types: dict[str, str],
    prefix: str,
    *,
    classes: tuple[str, ...],
    dollar: str,
) -> Discoverable:
    """``apply_checking_account_credit_5829`` / ``apply_savings_account_credit_6831``."""
    acc = _ACC
    txn = cat(
        lit("txn_"),
        sha_id(
            cat(
                lit(f"{prefix}:"),
                ":account_id",
                "':'",
                ":credit_type",
                "':'",
                f"float_text({_amount})",
                "':11/14/2025'",
            ),
            16,
        ),
    )
    kinds = list(types)
    describe = "CASE " + " ".join(f"WHEN :credit_type = {lit(k)} THEN {lit(v)}" for k, v in types.items()) + " END"
    return Discoverable(
        name,
        description,
        (
            Param("account_id", "string", f"The {klass} account's id"),
            Param("amount", "number", "The amount to credit, above 0"),
            Param("credit_type", "string", f"One of: {', '.join(kinds)}"),
        ),
        True,
        [
            {"kind": "query", "bind": "b", "sql": f"SELECT {balance(acc)} AS old, {txn} AS txn"},
            _check(
                first_error(
                    (
                        f"{_empty(':account_id')} OR :amount IS NULL OR {_empty(':credit_type')}",
                        "'Error: Missing required parameters.'",
                    ),
                    (f"{_amount} <= 0", "'Error: Credit amount must be positive.'"),
                    (
                        f"NOT {_one_of(':credit_type', kinds)}",
                        lit(f"Error: Invalid credit_type. Must be one of: {kinds}"),
                    ),
                    (
                        "NOT " + exists("accounts", ":account_id"),
                        "'Error: Account ''' || :account_id || ''' not found.'",
                    ),
                    (
                        f"lower(coalesce({get(acc, 'class')}, '')) NOT IN ({', '.join(map(lit, classes))})",
                        f"'Error: Account ''' || :account_id || ''' is not a {klass} account. "
                        + (
                            "Credits can only be applied to checking accounts.'"
                            if klass == "checking"
                            else "This tool only applies to savings accounts.'"
                        ),
                    ),
                    (
                        f"{get(acc, 'status', 'NULL')} IS NULL OR {get(acc, 'status', 'NULL')} NOT IN ('ACTIVE', "
                        "'OPEN')",
                        "'Error: Account ''' || :account_id || ''' is not active.'",
                    ),
                )
            ),
            {
                "kind": "exec",
                "sql": f"UPDATE accounts SET record = json_set(record, '$.current_holdings', {lit(dollar)} || "
                f"{money(f':b.old + {_amount}')}) WHERE record_id = :account_id AND {OK}",
            },
            {
                "kind": "exec",
                "sql": "INSERT INTO bank_account_transaction_history (record_id, record, position) SELECT :b.txn, "
                f"json_object('transaction_id', :b.txn, 'account_id', :account_id, 'date', {TODAY}, 'description', "
                f"{describe}, 'amount', json(float_text({_amount})), 'type', :credit_type, 'status', 'posted'), "
                f"{next_position('bank_account_transaction_history')} WHERE {OK} "
                "ON CONFLICT (record_id) DO UPDATE SET record = excluded.record",
            },
            _answer(
                "char(10) || 'Credit applied successfully!' || char(10) || '  - Transaction ID: ' || :b.txn || "
                "char(10) || '  - Account: ' || :account_id || char(10) || '  - Credit Type: ' || :credit_type || "
                f"char(10) || '  - Amount: $' || {money(_amount)} || char(10) || '  - Previous Balance: $' || "
                f"{money(':b.old')} || char(10) || '  - New Balance: $' || {money(f':b.old + {_amount}')}"
            ),
        ],
    )


APPLY_CHECKING_CREDIT = _account_credit(
    "apply_checking_account_credit_5829",
    "Credit a customer's checking account: a missing rebate or a fee charged in error.",
    "checking",
    {"rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE", "fee_refund": "FEE REFUND - CUSTOMER SERVICE"},
    "checking_credit",
    classes=("checking",),
    dollar="$",
)
APPLY_SAVINGS_CREDIT = _account_credit(
    "apply_savings_account_credit_6831",
    "Credit a customer's savings account: an interest correction, a fee charged in error, or goodwill.",
    "savings",
    {
        "interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
        "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
        "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE",
    },
    "savings_credit",
    classes=("saving", "savings"),
    dollar="",
)

# -- debit cards ----------------------------------------------------------------------------------------

_CARD = "(SELECT record FROM debit_cards WHERE record_id = :card_id)"
_CARD_STATUS = f"json_extract({_CARD}, '$.status')"
_CARD_FOUND = ("NOT " + exists("debit_cards", ":card_id"), "'Error: Debit card ''' || :card_id || ''' not found.'")
_CLOSE_REASONS = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]
_reason = "lower(:reason)"


def _status_text(expr: str) -> str:
    """``str()`` of a card's status as tau2 prints it (``None`` when it has none)."""
    return f"coalesce(python_str({_CARD} -> '$.status'), 'None')"


CLOSE_DEBIT_CARD = Discoverable(
    "close_debit_card_4721",
    "Close a debit card for good (it cannot be reactivated).",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("reason", "string", f"One of: {', '.join(_CLOSE_REASONS)}"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':card_id')} OR {_empty(':reason')}",
                    "'Error: Missing required parameters. Required: card_id, reason.'",
                ),
                (
                    f"NOT {_one_of(_reason, _CLOSE_REASONS)}",
                    lit(f"Error: Invalid reason. Must be one of: {_CLOSE_REASONS}"),
                ),
                _CARD_FOUND,
                (
                    f"{_CARD_STATUS} IS NULL OR {_CARD_STATUS} NOT IN ('ACTIVE', 'PENDING')",
                    "'Error: Debit card ''' || :card_id || ''' cannot be closed. Current status: ' || "
                    f"{_status_text('')} || "
                    "'. Only ACTIVE or PENDING cards can be closed.'",
                ),
            ),
            previous=_CARD_STATUS,
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.status', 'CLOSED', '$.closed_date', {TODAY}, "
            f"'$.closure_reason', {_reason}) WHERE record_id = :card_id AND {OK}",
        },
        _answer(
            _lines(
                "'Debit Card Closed Successfully'",
                "'Card ID: ' || :card_id",
                "'Previous Status: ' || :chk.previous",
                "'New Status: CLOSED'",
                f"'Closure Reason: ' || {titled(_CLOSE_REASONS, _reason)}",
                "'Closure Date: 11/14/2025'",
                "''",
            )
            + " || "
            + _when(
                f"{_reason} IN ('lost', 'stolen', 'fraud_suspected')",
                "'IMPORTANT: This card has been immediately deactivated for security.' || char(10) || "
                "'Any pending transactions may still be processed.'",
            )
            + " || "
            + _when(
                f"{_reason} = 'fraud_suspected'",
                "'Please advise the customer to review recent transactions and file disputes for any unauthorized "
                "charges.' || char(10) || 'Also recommend changing their online banking password.'",
            )
            + f" || {NL} || '' || {NL} || "
            + lit(
                "Note: This card cannot be reactivated. If the customer needs a new card, they can order one through "
                "the standard ordering process."
            )
            + f" || {NL} || "
            + lit("Any recurring payments linked to this card will need to be updated with new payment information.")
        ),
    ],
)

FREEZE_DEBIT_CARD = Discoverable(
    "freeze_debit_card_3892",
    "Freeze a debit card for now; it can be unfrozen later.",
    (Param("card_id", "string", "The debit card's id"),),
    True,
    [
        _check(
            first_error(
                (_empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                _CARD_FOUND,
                (f"{_CARD_STATUS} IS 'FROZEN'", "'Error: Debit card ''' || :card_id || ''' is already frozen.'"),
                (
                    f"{_CARD_STATUS} IS NOT 'ACTIVE'",
                    "'Error: Debit card ''' || :card_id || ''' cannot be frozen. Current status: ' || "
                    f"{_status_text('')} || "
                    "'. Only ACTIVE cards can be frozen.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.status', 'FROZEN', '$.frozen_date', {TODAY}) "
            f"WHERE record_id = :card_id AND {OK}",
        },
        _answer(
            _lines(
                "'Debit Card Frozen Successfully'",
                "'Card ID: ' || :card_id",
                "'Status: FROZEN'",
                "'Frozen Date: 11/14/2025'",
                "''",
                "'While frozen:'",
                "'- All new purchase transactions will be declined'",
                "'- Recurring payments and subscriptions will be declined'",
                "'- Pending transactions already authorized may still process'",
                "''",
                "'To unfreeze, the customer can call customer service or use the mobile app.'",
                "'If the card is confirmed lost or stolen, recommend closing the card permanently instead.'",
            )
        ),
    ],
)

_LINKED = "json_extract(" + _CARD + ", '$.account_id')"
UNFREEZE_DEBIT_CARD = Discoverable(
    "unfreeze_debit_card_3893",
    "Unfreeze a frozen debit card.",
    (Param("card_id", "string", "The debit card's id"),),
    True,
    [
        _check(
            first_error(
                (_empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                _CARD_FOUND,
                (f"{_CARD_STATUS} IS 'ACTIVE'", "'Error: Debit card ''' || :card_id || ''' is already active.'"),
                (
                    f"{_CARD_STATUS} IS NOT 'FROZEN'",
                    "'Error: Debit card ''' || :card_id || ''' cannot be unfrozen. Current status: ' || "
                    f"{_status_text('')} || "
                    "'. Only FROZEN cards can be unfrozen.'",
                ),
                (
                    f"coalesce({_LINKED}, '') != '' AND EXISTS (SELECT 1 FROM accounts WHERE record_id = {_LINKED} AND "
                    "json_extract(record, '$.status') IS NOT 'OPEN')",
                    f"'Error: The linked checking account ''' || {_LINKED} || ''' is no longer open. Card cannot be "
                    "unfrozen.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.status', 'ACTIVE', '$.unfrozen_date', "
            f"{TODAY}) "
            f"WHERE record_id = :card_id AND {OK}",
        },
        _answer(
            _lines(
                "'Debit Card Unfrozen Successfully'",
                "'Card ID: ' || :card_id",
                "'Status: ACTIVE'",
                "'Unfrozen Date: 11/14/2025'",
                "''",
                "'The card is now active and ready to use immediately.'",
                "'All transactions will process normally.'",
            )
        ),
    ],
)

_SEQUENTIAL = [
    "0123",
    "1234",
    "2345",
    "3456",
    "4567",
    "5678",
    "6789",
    "9876",
    "8765",
    "7654",
    "6543",
    "5432",
    "4321",
    "3210",
]


def _pin_problem(pin: str) -> str:
    """tau2's ``_validate_pin``: NULL for a good PIN, else its message."""
    return first_error(
        (
            f"{_empty(pin)} OR {pin} GLOB '*[^0-9]*' OR length({pin}) != 4",
            "'PIN must be exactly 4 digits.'",
        ),
        (f"{_one_of(pin, _SEQUENTIAL)}", "'PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN.'"),
        (
            f"replace({pin}, substr({pin}, 1, 1), '') = ''",
            "'PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN.'",
        ),
    )


RESET_DEBIT_CARD_PIN = Discoverable(
    "reset_debit_card_pin_6284",
    "Set a new PIN for a debit card whose PIN the customer forgot, and unlock the card.",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("last_4_digits", "string", "The card number's last 4 digits, to verify the card"),
        Param("new_pin", "string", "The new 4-digit PIN"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':card_id')} OR {_empty(':last_4_digits')} OR {_empty(':new_pin')}",
                    "'Error: Missing required parameters. Required: card_id, last_4_digits, new_pin.'",
                ),
                (
                    ":last_4_digits GLOB '*[^0-9]*' OR length(:last_4_digits) != 4",
                    "'Error: Last 4 digits must be exactly 4 digits.'",
                ),
                (f"({_pin_problem(':new_pin')}) IS NOT NULL", f"'Error: ' || ({_pin_problem(':new_pin')})"),
                _CARD_FOUND,
                (
                    f"json_extract({_CARD}, '$.last_4_digits') IS NOT :last_4_digits OR "
                    f"json_type({_CARD}, '$.last_4_digits') IS NOT 'text'",
                    "'Error: Card verification failed. The last 4 digits do not match our records.'",
                ),
                (
                    f"{_CARD_STATUS} IS NOT 'ACTIVE'",
                    f"'Error: Cannot reset PIN. Card status is ' || {_status_text('')} || '. Only ACTIVE cards can "
                    "have "
                    "their PIN reset.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.pin_last_changed', {TODAY}, '$.pin_locked', "
            f"json('false'), '$.pin_attempts_remaining', 3) WHERE record_id = :card_id AND {OK}",
        },
        _answer(
            _lines(
                "'Debit Card PIN Reset Successfully'",
                "'Card ID: ' || :card_id",
                "'PIN Changed: 11/14/2025'",
                "''",
                "'The new PIN is effective immediately.'",
                "'Your card has been unlocked and is ready to use.'",
                "'Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.'",
                "''",
                "'Security reminder: Never share your PIN with anyone.'",
            )
        ),
    ],
)

_DEBIT_CATEGORIES = [
    "unauthorized_transaction",
    "atm_cash_discrepancy",
    "atm_deposit_not_credited",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "recurring_charge_after_cancellation",
    "card_present_fraud",
    "card_not_present_fraud",
]
_DEBIT_TXN_TYPES = [
    "pin_purchase",
    "signature_purchase",
    "online_purchase",
    "atm_withdrawal",
    "atm_deposit",
    "recurring_payment",
    "person_to_person",
]
_PIN_STATUSES = ["yes_shared", "yes_observed", "no", "unknown"]
_DEBIT_CARD_ACTIONS = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
_FRAUD = "(:dispute_category IN ('unauthorized_transaction', 'card_present_fraud', 'card_not_present_fraud'))"
_disputed = "CAST(:disputed_amount AS REAL)"

FILE_DEBIT_CARD_DISPUTE = Discoverable(
    "file_debit_card_transaction_dispute_6281",
    "File a formal dispute of a debit card transaction (Regulation E), with the liability and provisional credit "
    "the rules give.",
    (
        Param("transaction_id", "string", "The disputed transaction's id"),
        Param("account_id", "string", "The checking account of the card"),
        Param("card_id", "string", "The debit card's id"),
        Param("user_id", "string", "The customer's user id"),
        Param("dispute_category", "string", f"One of: {', '.join(_DEBIT_CATEGORIES)}"),
        Param("transaction_date", "string", "When the transaction happened, MM/DD/YYYY"),
        Param("discovery_date", "string", "When the customer noticed, MM/DD/YYYY"),
        Param("disputed_amount", "number", "The amount disputed"),
        Param("transaction_type", "string", f"One of: {', '.join(_DEBIT_TXN_TYPES)}"),
        Param("card_in_possession", "boolean", "Whether the customer still has the card"),
        Param("pin_compromised", "string", f"One of: {', '.join(_PIN_STATUSES)}"),
        Param("contacted_merchant", "boolean", "Whether the customer tried the merchant first"),
        Param("police_report_filed", "boolean", "Whether a police report was filed"),
        Param("written_statement_provided", "boolean", "Whether the customer gave a written statement"),
        Param("provisional_credit_eligible", "boolean", "Whether provisional credit applies"),
        Param("customer_max_liability_amount", "number", "The most the customer may be liable for; -1 for no limit"),
        Param("card_action", "string", f"One of: {', '.join(_DEBIT_CARD_ACTIONS)}"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    " OR ".join(
                        _empty(f":{p}")
                        for p in (
                            "transaction_id",
                            "account_id",
                            "card_id",
                            "user_id",
                            "dispute_category",
                            "transaction_date",
                            "discovery_date",
                            "transaction_type",
                            "pin_compromised",
                            "card_action",
                        )
                    )
                    + " OR coalesce(:disputed_amount, 0) = 0",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {_one_of(':dispute_category', _DEBIT_CATEGORIES)}",
                    lit(f"Error: Invalid dispute_category. Must be one of: {_DEBIT_CATEGORIES}"),
                ),
                (
                    f"NOT {_one_of(':transaction_type', _DEBIT_TXN_TYPES)}",
                    lit(f"Error: Invalid transaction_type. Must be one of: {_DEBIT_TXN_TYPES}"),
                ),
                (
                    f"NOT {_one_of(':pin_compromised', _PIN_STATUSES)}",
                    lit(f"Error: Invalid pin_compromised. Must be one of: {_PIN_STATUSES}"),
                ),
                (
                    f"NOT {_one_of(':card_action', _DEBIT_CARD_ACTIONS)}",
                    lit(f"Error: Invalid card_action. Must be one of: {_DEBIT_CARD_ACTIONS}"),
                ),
                (f"{_disputed} <= 0", "'Error: disputed_amount must be a positive number.'"),
                (
                    exists("debit_card_disputes", _dispute_id),
                    "'Error: Dispute may have already been filed for this transaction.'",
                ),
            ),
            id=_dispute_id,
        ),
        insert(
            "debit_card_disputes",
            ":chk.id",
            "json_object('dispute_id', :chk.id, 'transaction_id', :transaction_id, 'account_id', :account_id, "
            "'card_id', :card_id, 'user_id', :user_id, 'dispute_category', :dispute_category, 'transaction_date', "
            f":transaction_date, 'discovery_date', :discovery_date, 'disputed_amount', {num(':disputed_amount')}, "
            f"'transaction_type', :transaction_type, 'card_in_possession', {boolean(':card_in_possession')}, "
            f"'pin_compromised', :pin_compromised, 'contacted_merchant', {boolean(':contacted_merchant')}, "
            f"'police_report_filed', {boolean(':police_report_filed')}, 'written_statement_provided', "
            f"{boolean(':written_statement_provided')}, 'provisional_credit_eligible', "
            f"{boolean(':provisional_credit_eligible')}, 'provisional_credit_issued', "
            f"{boolean(':provisional_credit_eligible')}, 'provisional_credit_amount', CASE WHEN "
            f":provisional_credit_eligible THEN {num(':disputed_amount')} END, 'customer_max_liability_amount', "
            f"{num(':customer_max_liability_amount')}, 'card_action', :card_action, 'is_fraud_category', "
            f"json(CASE WHEN {_FRAUD} THEN 'true' ELSE 'false' END), 'pin_shared_voluntarily', "
            f"json(CASE WHEN :pin_compromised = 'yes_shared' THEN 'true' ELSE 'false' END), 'submitted_at', {TODAY}, "
            "'status', 'OPEN')",
            OK,
        ),
        _answer(
            _lines(
                "'Dispute ID: ' || :chk.id",
                "'Transaction: ' || :transaction_id",
                "'Account: ' || :account_id",
                f"'Category: ' || {titled(_DEBIT_CATEGORIES, ':dispute_category')}",
                f"'Disputed Amount: $' || {money(_disputed)}",
                f"'Card Action: ' || {titled(_DEBIT_CARD_ACTIONS, ':card_action')}",
                f"CASE WHEN :provisional_credit_eligible THEN 'Provisional Credit: ISSUED - $' || {money(_disputed)} "
                "|| "
                "' credited within 10 business days per Regulation E.' ELSE 'Provisional Credit: Not eligible - see "
                "Debit Card Provisional Credit Guidelines for details.' END",
            )
            + " || "
            + _when(
                ":pin_compromised = 'yes_shared'",
                "'WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination.'",
            )
            + " || "
            + _when(
                f"{_FRAUD} AND NOT :police_report_filed AND {_disputed} > 500",
                "'RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.'",
            )
        ),
    ],
)

# -- the customer's, second batch -----------------------------------------------------------------------

_check_amount = "CAST(:check_amount AS REAL)"
_DEPOSIT_ACC = _ACC
_deposit_pairs = [("account_id", _pystr(":account_id")), ("check_amount", f"python_json(float_text({_check_amount}))")]
DEPOSIT_CHECK = Discoverable(
    "deposit_check_3847",
    "Deposit a check into your checking or savings account from the mobile app.",
    (
        Param("account_id", "string", "The account to deposit into"),
        Param("check_amount", "number", "The check's amount in USD"),
    ),
    True,
    [
        _given("deposit_check_3847"),
        _log_user_call(
            "deposit_check_3847",
            _deposit_pairs,
            [("account_id", ":account_id"), ("check_amount", num(":check_amount"))],
        ),
        {
            "kind": "query",
            "bind": "d",
            "sql": f"SELECT {balance(_DEPOSIT_ACC)} AS old, "
            + first_error(
                (f"{_check_amount} <= 0", "'Error: Check amount must be positive.'"),
                ("NOT " + exists("accounts", ":account_id"), "'Error: Account ''' || :account_id || ''' not found.'"),
                (
                    f"{get(_DEPOSIT_ACC, 'status', 'NULL')} IS NULL OR {get(_DEPOSIT_ACC, 'status', 'NULL')} "
                    "NOT IN ('ACTIVE', 'OPEN')",
                    "'Error: Account ''' || :account_id || ''' is not active.'",
                ),
            )
            + " AS err",
        },
        {
            "kind": "exec",
            "sql": "UPDATE accounts SET record = json_set(record, '$.current_holdings', '$' || "
            f"{money(f':d.old + {_check_amount}')}) WHERE record_id = :account_id AND {OK} AND :d.err IS NULL",
        },
        _answer(
            ":d.err, "
            + cat(
                lit(
                    "Check deposited successfully. Funds will be available according to your account's deposit "
                    "policy.\n\nExecuted: deposit_check_3847\nArguments: "
                ),
                _user_args_indented(_deposit_pairs),
                NL,
                "'Check deposit processed!'",
                NL,
                "'  - Account: ' || :account_id",
                NL,
                f"'  - Check Amount: $' || {money(_check_amount)}",
                NL,
                f"'  - Previous Balance: $' || {money(':d.old')}",
                NL,
                f"'  - New Balance: $' || {money(f':d.old + {_check_amount}')}",
            )
        ),
    ],
)

_link_id = sha_id(cat("'referral_link:'", ":user_id", "':'", ":card_name"), 16)
_link_pairs = [("user_id", _pystr(":user_id")), ("card_name", _pystr(":card_name"))]
GET_REFERRAL_LINK = Discoverable(
    "get_referral_link",
    "Make a referral link for one of the bank's credit cards, to share with someone you refer.",
    (
        Param("user_id", "string", "Your user id (the referrer)"),
        Param("card_name", "string", "The credit card, e.g. 'Gold Rewards Card'"),
    ),
    True,
    [
        _given("get_referral_link"),
        _log_user_call("get_referral_link", _link_pairs, [("user_id", ":user_id"), ("card_name", ":card_name")]),
        {"kind": "query", "bind": "r", "sql": f"SELECT {_link_id} AS id, {exists('referrals', _link_id)} AS taken"},
        insert(
            "referrals",
            ":r.id",
            "json_object('referral_id', :r.id, 'referrer_id', :user_id, 'referred_account_type', :card_name, "
            f"'referral_status', 'NO_PROGRESS', 'date', {TODAY})",
            OK,
        ),
        _answer(
            cat(
                lit(
                    "Referral link generated successfully. Share this link with the person you want to refer.\n\n"
                    "Executed: get_referral_link\nArguments: "
                ),
                _user_args_indented(_link_pairs),
                NL,
                "CASE WHEN :r.taken THEN 'Note: A referral link for this card may have already been generated.' ELSE "
                "'Referral ID: ' || :r.id || char(10) || 'Referral link: https://rhobank.com/refer/' || :r.id END",
            )
        ),
    ],
)

AGENT_DISCOVERABLE += [
    GET_USER_DISPUTE_HISTORY,
    GET_DEBIT_DISPUTE_STATUS,
    CLOSE_BANK_ACCOUNT,
    ORDER_REPLACEMENT_CREDIT_CARD,
    UPDATE_TRANSACTION_REWARDS,
    INITIAL_TRANSFER_0218,
    INITIAL_TRANSFER_1822,
    EMERGENCY_TRANSFER_1114,
    TRANSFER_FUNDS,
    APPLY_CHECKING_CREDIT,
    APPLY_SAVINGS_CREDIT,
    CLOSE_DEBIT_CARD,
    FREEZE_DEBIT_CARD,
    UNFREEZE_DEBIT_CARD,
    RESET_DEBIT_CARD_PIN,
    FILE_DEBIT_CARD_DISPUTE,
]
USER_DISCOVERABLE += [DEPOSIT_CHECK, GET_REFERRAL_LINK]

# -- third batch ----------------------------------------------------------------------------------------


def _records_of(
    name: str, description: str, param: Param, table: str, column: str, done: str, header: str, none: str
) -> Discoverable:
    """A read tool that lists ``table``'s records whose ``column`` is the argument (tau2's pattern: a line
    saying it is done, the tool's name, a header, then the listing or ``none``)."""
    arg = f":{param.name}"
    found = listing(table, where_field(column, arg))
    return Discoverable(
        name,
        description,
        (param,),
        False,
        [
            _check(first_error((_empty(arg), lit(f"Error: Missing required parameter: {param.name}")))),
            {"kind": "query", "bind": "found", "sql": f"SELECT {found} AS text"},
            _answer(
                _lines(
                    lit(done),
                    "''",
                    lit(f"Executed: {name}"),
                    f"{lit(header)} || {arg} || ':'",
                    "CASE WHEN :found.text LIKE '%No records found%' OR :found.text LIKE '%No results found%' "
                    f"THEN {NL} || {lit(none)} ELSE :found.text END",
                )
            ),
        ],
    )


_CC_PARAM = Param("credit_card_account_id", "string", "The credit card account's id")
GET_PENDING_REPLACEMENT_ORDERS = _records_of(
    "get_pending_replacement_orders_5765",
    "Whether a credit card account has replacement card orders pending.",
    _CC_PARAM,
    "credit_card_orders",
    "credit_card_account_id",
    "Pending replacement orders check completed.",
    "Replacement orders for credit card account ",
    "No pending replacement orders found for this credit card account.",
)
GET_CLOSURE_REASON_HISTORY = _records_of(
    "get_closure_reason_history_8293",
    "The closure reasons logged for a credit card account (earlier attempts to close it).",
    _CC_PARAM,
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
    ("credit_card_account_id", _pystr(":credit_card_account_id")),
    ("user_id", _pystr(":user_id")),
    ("closure_reason", _pystr(":closure_reason")),
]
LOG_CLOSURE_REASON = Discoverable(
    "log_credit_card_closure_reason_4521",
    "Record why a customer wants to close a credit card account.",
    (
        _CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("closure_reason", "string", f"One of: {', '.join(_CLOSURE_REASONS)}"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR {_empty(':user_id')} OR {_empty(':closure_reason')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {_one_of(':closure_reason', _CLOSURE_REASONS)}",
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
        _answer(
            cat(
                lit(
                    "Closure reason logged successfully.\n\nExecuted: log_credit_card_closure_reason_4521\nArguments: "
                ),
                _user_args_indented(_closure_pairs),
                NL,
                "'Closure reason ''' || :closure_reason || ''' logged for account ' || :credit_card_account_id || '.'",
            )
        ),
    ],
)

AGENT_DISCOVERABLE += [GET_PENDING_REPLACEMENT_ORDERS, GET_CLOSURE_REASON_HISTORY, LOG_CLOSURE_REASON]

_IDR_ACC = _ACC
_IDR_USER = "(SELECT record FROM users WHERE record_id = :user_id)"
_expected_apy, _actual_apy = "CAST(:expected_apy AS REAL)", "CAST(:actual_apy AS REAL)"
_report_id = cat(
    "'IDR_'",
    sha_id(
        cat(
            "'interest_report:'",
            ":account_id",
            "':'",
            ":user_id",
            "':'",
            f"float_text({_expected_apy})",
            "':'",
            f"float_text({_actual_apy})",
            "':11/14/2025'",
        ),
        16,
    ),
)
SUBMIT_INTEREST_DISCREPANCY = Discoverable(
    "submit_interest_discrepancy_report_7294",
    "Report to the back office that the interest credited to a savings account does not match its APY.",
    (
        Param("account_id", "string", "The savings account's id"),
        Param("user_id", "string", "The customer's user id"),
        Param("expected_apy", "number", "The APY the customer should have had, in percent (2.775 for 2.775%)"),
        Param("actual_apy", "number", "The APY applied, in percent"),
        Param("amount_difference", "number", "The interest missing, in dollars"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':account_id')} OR {_empty(':user_id')} OR :expected_apy IS NULL OR :actual_apy IS NULL "
                    "OR :amount_difference IS NULL",
                    "'Error: Missing required parameters.'",
                ),
                ("NOT " + exists("accounts", ":account_id"), "'Error: Account ''' || :account_id || ''' not found.'"),
                ("NOT " + exists("users", ":user_id"), "'Error: User ''' || :user_id || ''' not found.'"),
            )
        ),
        # tau2 adds the report to a table its database does not have, so nothing is kept
        _answer(
            "char(10) || 'Interest Discrepancy Report Submitted Successfully!' || char(10) || '  - Report ID: ' || "
            f"{_report_id} || char(10) || '  - Account: ' || :account_id || ' (' || "
            f"{_pyval(_IDR_ACC, 'level', 'Unknown')} || ')' || char(10) || '  - Customer: ' || "
            f"{_pyval(_IDR_USER, 'name', 'Unknown')} || char(10) || '  - Expected APY: ' || "
            f"float_text({_expected_apy}) || '%' || char(10) || '  - Actual APY: ' || float_text({_actual_apy}) || "
            f"'%' || char(10) || '  - APY Difference: ' || float_text(round_half_even({_expected_apy} - {_actual_apy}, "
            f"4)) || '%' || char(10) || '  - Amount Difference: $' || {money(':amount_difference')} || char(10) || "
            "'  - Status: PENDING_REVIEW' || char(10) || char(10) || 'The backend team will investigate this "
            "discrepancy and ensure correct APY calculations are applied going forward.'"
        ),
    ],
)

# order_debit_card_5739
_DELIVERY = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days", "RUSH": "1-2 business days"}
_DESIGNS = ["CLASSIC", "PREMIUM", "CUSTOM"]
_delivery_fee, _design_fee = "CAST(:delivery_fee AS REAL)", "CAST(:design_fee AS REAL)"
_excess = "CAST(coalesce(nullif(:excess_replacement_fee, 0), 0) AS REAL)"
_total = f"({_delivery_fee} + {_design_fee} + {_excess})"
_option, _design = "upper(:delivery_option)", "upper(:card_design)"
_holdings_text = f"replace(coalesce(python_str({_ACC} -> '$.current_holdings'), '0'), ',', '')"
_holdings = (
    f"(SELECT CASE WHEN trim(v) GLOB '*[0-9]*' AND NOT trim(v) GLOB '*[^0-9.eE+-]*' THEN CAST(trim(v) AS REAL) "
    f"ELSE 0.0 END FROM (SELECT CASE WHEN json_type({_ACC}, '$.current_holdings') IS NULL THEN '0' "
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
        _check(
            first_error(
                (
                    f"{_empty(':account_id')} OR {_empty(':user_id')} OR {_empty(':delivery_option')} OR "
                    f":delivery_fee IS NULL OR {_empty(':card_design')} OR :design_fee IS NULL OR "
                    f"{_empty(':shipping_address')}",
                    "'Error: Missing required parameters. Required: account_id, user_id, delivery_option, "
                    "delivery_fee, "
                    "card_design, design_fee, shipping_address.'",
                ),
                (
                    f"NOT {_one_of(_option, list(_DELIVERY))}",
                    lit(f"Error: Invalid delivery_option. Must be one of: {list(_DELIVERY)}"),
                ),
                (f"NOT {_one_of(_design, _DESIGNS)}", lit(f"Error: Invalid card_design. Must be one of: {_DESIGNS}")),
                ("NOT " + exists("accounts", ":account_id"), "'Error: Account ''' || :account_id || ''' not found.'"),
                (
                    f"json_extract({_ACC}, '$.class') IS NOT 'checking' OR json_type({_ACC}, '$.class') IS NOT 'text'",
                    "'Error: Debit cards can only be ordered for checking accounts. Account ''' || :account_id || "
                    f"''' is a ' || {_pyval(_ACC, 'class', 'None')} || ' account.'",
                ),
                (
                    f"json_extract({_ACC}, '$.status') IS NOT 'OPEN' OR json_type({_ACC}, '$.status') IS NOT 'text'",
                    "'Error: Account must be OPEN. Account ''' || :account_id || ''' has status: ' || "
                    f"{_pyval(_ACC, 'status', 'None')}",
                ),
                (
                    f"json_extract({_ACC}, '$.user_id') IS NOT :user_id OR json_type({_ACC}, '$.user_id') IS NOT "
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
        _answer(
            _lines(
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

AGENT_DISCOVERABLE += [SUBMIT_INTEREST_DISCREPANCY, ORDER_DEBIT_CARD]

# -- credit card accounts ---------------------------------------------------------------------------------

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
        _CC_PARAM,
        Param("amount", "number", "The credit in dollars"),
        Param("reason", "string", f"One of: {', '.join(_STATEMENT_REASONS)}"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':user_id')} OR {_empty(':credit_card_account_id')} OR :amount IS NULL OR "
                    f"{_empty(':reason')}",
                    "'Error: Missing required parameters (user_id, credit_card_account_id, amount, reason).'",
                ),
                (f"{_credit} <= 0", "'Error: Credit amount must be positive.'"),
                (
                    f"NOT {_one_of(':reason', _STATEMENT_REASONS)}",
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
        _answer(
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
        _CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("flag_type", "string", f"One of: {', '.join(_FLAG_TYPES)}"),
        Param("expiration_date", "string", "When the flag ends, MM/DD/YYYY"),
        Param("reason", "string", f"One of: {', '.join(_FLAG_REASONS)}"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    " OR ".join(
                        _empty(f":{p}")
                        for p in ("credit_card_account_id", "user_id", "flag_type", "expiration_date", "reason")
                    ),
                    "'Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, "
                    "reason).'",
                ),
                (
                    f"NOT {_one_of(':flag_type', _FLAG_TYPES)}",
                    lit(f"Error: Invalid flag_type. Must be one of: {_FLAG_TYPES}"),
                ),
                (
                    f"NOT {_one_of(':reason', _FLAG_REASONS)}",
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
        _answer(
            "'Account flag applied successfully!' || char(10) || '  - Flag ID: ' || :chk.id || char(10) || "
            "'  - Account: ' || :credit_card_account_id || char(10) || '  - User ID: ' || :user_id || char(10) || "
            f"'  - Flag Type: ' || {titled(_FLAG_TYPES, ':flag_type')} || char(10) || '  - Effective Date: 11/14/2025' "
            "|| char(10) || '  - Expiration Date: ' || :expiration_date || char(10) || '  - Reason: ' || "
            f"{titled(_FLAG_REASONS, ':reason')}"
        ),
    ],
)

_close_pairs = [("credit_card_account_id", _pystr(":credit_card_account_id")), ("user_id", _pystr(":user_id"))]
CLOSE_CREDIT_CARD_ACCOUNT = Discoverable(
    "close_credit_card_account_7834",
    "Close a customer's credit card account for good.",
    (_CC_PARAM, Param("user_id", "string", "The customer's user id")),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR {_empty(':user_id')}",
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
        _answer(
            cat(
                lit(
                    "Credit card account closed successfully.\n\nExecuted: close_credit_card_account_7834\nArguments: "
                ),
                _user_args_indented(_close_pairs),
                NL,
                "'Account ' || :credit_card_account_id || ' has been closed.'",
            )
        ),
    ],
)

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
        _CC_PARAM,
        Param("amount", "number", "The payment in dollars, above 0"),
    ),
    True,
    [
        {"kind": "query", "bind": "b", "sql": f"SELECT {balance(_CHK)} AS chk, {_cc_balance} AS cc"},
        _check(
            first_error(
                (
                    f"{_empty(':user_id')} OR {_empty(':checking_account_id')} OR {_empty(':credit_card_account_id')} "
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
        _answer(
            f"'Payment processed successfully!' || char(10) || '  - Payment Amount: $' || {money(_pay)} || char(10) || "
            "'  - From Checking Account: ' || :checking_account_id || char(10) || '  - To Credit Card Account: ' || "
            f":credit_card_account_id || char(10) || '  - New Checking Balance: $' || {money(f':b.chk - {_pay}')} || "
            f"char(10) || '  - New Credit Card Balance: $' || {money(f':b.cc - {_pay}')} || char(10) || "
            "'The payment has been applied immediately.'"
        ),
    ],
)

AGENT_DISCOVERABLE += [APPLY_STATEMENT_CREDIT, APPLY_ACCOUNT_FLAG, CLOSE_CREDIT_CARD_ACCOUNT, PAY_CREDIT_CARD]

# -- credit limit increases ------------------------------------------------------------------------------

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
        _CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("requested_increase_amount", "integer", "The increase asked for, in whole dollars"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR {_empty(':user_id')} OR :requested_increase_amount IS "
                    "NULL",
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
        _answer(
            "'Credit limit increase request submitted successfully.' || char(10) || char(10) || "
            "'Executed: submit_credit_limit_increase_request_7392' || char(10) || '  - Request ID: ' || :chk.id || "
            "char(10) || '  - Account: ' || :credit_card_account_id || char(10) || '  - Requested Increase: $' || "
            f"python_format(CAST({_increase} AS INTEGER), ',') || char(10) || '  - Status: PENDING'"
        ),
    ],
)

GET_CLI_HISTORY = _records_of(
    "get_credit_limit_increase_history_4829",
    "The credit limit increase requests of a credit card account: dates, amounts, statuses.",
    _CC_PARAM,
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
    (_CC_PARAM, Param("months", "integer", "How many months back")),
    False,
    [
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR :months IS NULL",
                    "'Error: Missing required parameters (credit_card_account_id, months).'",
                ),
                (f"{_months} <= 0", "'Error: months must be a positive integer.'"),
                (
                    f"NOT EXISTS ({_PAYMENTS})",
                    "'No payment history found for account ''' || :credit_card_account_id || '''.'",
                ),
            )
        ),
        _answer(
            f"'Payment history for account ''' || :credit_card_account_id || ''' (last ' || {_months} || ' months):' "
            "|| char(10) || 'Consecutive on-time payments: ' || coalesce((SELECT min(n) - 1 FROM "
            f"({_SHOWN}) WHERE json_extract(record, '$.status') IS NOT 'ON_TIME' OR json_type(record, '$.status') "
            f"IS NOT 'text'), (SELECT count(*) FROM ({_SHOWN}))) || coalesce((SELECT group_concat(line, '') FROM "
            f"(SELECT char(10) || char(10) || '  - Payment Date: ' || {_pyval('record', 'payment_date', 'None')} || "
            f"char(10) || '    Amount: ' || {_pyval('record', 'amount', 'None')} || char(10) || '    Status: ' || "
            f"{_pyval('record', 'status', 'None')} AS line FROM ({_SHOWN}) ORDER BY n)), '')"
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
        _CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("new_credit_limit", "integer", "The new total limit in dollars"),
    ),
    True,
    [
        {"kind": "query", "bind": "l", "sql": f"SELECT {_old_limit} AS old"},
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR {_empty(':user_id')} OR :new_credit_limit IS NULL",
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
        _answer(
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
        _CC_PARAM,
        Param("user_id", "string", "The customer's user id"),
        Param("denial_reason", "string", f"One of: {', '.join(_DENIAL_REASONS)}"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':credit_card_account_id')} OR {_empty(':user_id')} OR {_empty(':denial_reason')}",
                    "'Error: Missing required parameters.'",
                ),
                (
                    f"NOT {_one_of(':denial_reason', _DENIAL_REASONS)}",
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
        _answer(
            "'Credit limit increase request denied.' || char(10) || '  - Account: ' || :credit_card_account_id || "
            "char(10) || '  - Denial Reason: ' || :denial_reason || char(10) || '  - Date: 11/14/2025' || char(10) || "
            "'The customer will receive a notification explaining the denial.'"
        ),
    ],
)

AGENT_DISCOVERABLE += [SUBMIT_CLI_REQUEST, GET_CLI_HISTORY, GET_PAYMENT_HISTORY, APPROVE_CLI, DENY_CLI]

# -- debit card activation, alerts, limits ------------------------------------------------------------

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
_CARD_ACCOUNT = f"json_extract({_CARD}, '$.account_id')"
_OTHER_ACTIVE = (
    "SELECT record_id, position FROM debit_cards WHERE record_id != :card_id AND json_extract(record, '$.account_id') "
    f"IS {_CARD_ACCOUNT} AND json_extract(record, '$.status') IS 'ACTIVE' AND json_type(record, '$.status') = 'text'"
)


def _activation(
    name: str, description: str, allowed: list[str], default: str, other_sets: str, lines: str
) -> Discoverable:
    """``activate_debit_card_829x``: tau2's common checks (``_validate_activation_common``), the card made
    active, and the account's other active cards changed as ``other_sets`` says."""
    reason = get(_CARD, "issue_reason", lit(default))
    shown_reason = _pyval(_CARD, "issue_reason", "new_account")
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
            _check(
                first_error(
                    (
                        " OR ".join(
                            _empty(f":{p}") for p in ("card_id", "last_4_digits", "expiration_date", "cvv", "pin")
                        ),
                        "'Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, "
                        "pin.'",
                    ),
                    (f"({_pin_problem(':pin')}) IS NOT NULL", f"'Error: ' || ({_pin_problem(':pin')})"),
                    (":cvv GLOB '*[^0-9]*' OR length(:cvv) != 3", "'Error: CVV must be exactly 3 digits.'"),
                    (
                        ":last_4_digits GLOB '*[^0-9]*' OR length(:last_4_digits) != 4",
                        "'Error: Last 4 digits must be exactly 4 digits.'",
                    ),
                    _CARD_FOUND,
                    (
                        f"{reason} IS NULL OR NOT {_one_of(reason, allowed)}",
                        f"'Error: Wrong activation tool. This card has issue_reason=''' || {shown_reason} || '''. "
                        "Please "
                        f"use ' || coalesce(json_extract({json_lit(_ACTIVATION_TOOLS)}, '$.' || json_quote({reason})), "
                        f"'unknown') || ' instead of {name}.'",
                    ),
                    (f"{_CARD_STATUS} IS 'ACTIVE'", "'Error: Debit card ''' || :card_id || ''' is already active.'"),
                    (
                        f"{_CARD_STATUS} IS NOT 'PENDING'",
                        f"'Error: Debit card ''' || :card_id || ''' cannot be activated. Current status: ' || "
                        f"{_status_text('')} || '. Only PENDING cards can be activated.'",
                    ),
                    (
                        f"json_extract({_CARD}, '$.last_4_digits') IS NOT :last_4_digits OR "
                        f"json_type({_CARD}, '$.last_4_digits') IS NOT 'text'",
                        "'Error: Card verification failed. The last 4 digits do not match our records.'",
                    ),
                    (
                        f"coalesce({_CARD_ACCOUNT}, '') != '' AND EXISTS (SELECT 1 FROM accounts WHERE record_id = "
                        f"{_CARD_ACCOUNT} AND json_extract(record, '$.status') IS NOT 'OPEN')",
                        f"'Error: The linked checking account ''' || {_CARD_ACCOUNT} || ''' is no longer open. Card "
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
            _answer(lines),
        ],
    )


_ACTIVATE_LINES = ["'Card ID: ' || :card_id"]
ACTIVATE_NEW = _activation(
    "activate_debit_card_8291",
    "Activate a customer's first debit card on a checking account (issue reason new_account or first_card).",
    ["new_account", "first_card"],
    "new_account",
    f"'$.status', 'DEACTIVATED', '$.deactivated_date', {TODAY}, '$.deactivation_reason', 'New card activated'",
    _lines(
        "'New Debit Card Activation Successful'",
        "'Card ID: ' || :card_id",
        "'Status: ACTIVE'",
        "'Activation Date: 11/14/2025'",
        "''",
        "'Your card is now ready to use at any ATM or point of sale terminal.'",
        "'For security, please sign the back of your card.'",
    )
    + " || "
    + _when(":chk.others IS NOT NULL", "char(10) || 'Note: Previous card(s) have been deactivated: ' || :chk.others"),
)
_REPLACEMENT = ["lost", "stolen", "fraud"]
ACTIVATE_REPLACEMENT = _activation(
    "activate_debit_card_8292",
    "Activate a replacement debit card (issue reason lost, stolen or fraud); the account's other cards stop at once.",
    _REPLACEMENT,
    "lost",
    f"'$.status', 'DEACTIVATED', '$.deactivated_date', {TODAY}, '$.deactivation_reason', "
    "'Replacement card activated (' || :chk.reason || ')'",
    _lines(
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
    + _when(
        ":chk.reason = 'fraud'",
        "'- Since fraud was suspected, we recommend changing your online banking password'",
    )
    + " || "
    + _when(
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
    _lines(
        "'Reissued Debit Card Activation Successful'",
        "'Card ID: ' || :card_id",
        f"'Reissue Reason: ' || {titled(_REISSUE, ':chk.reason')}",
        "'Status: ACTIVE'",
        "'Activation Date: 11/14/2025'",
        "''",
        "'Your reissued card is now ready to use.'",
    )
    + " || "
    + _when(
        ":chk.others IS NOT NULL",
        "char(10) || 'Note: Your previous card(s) (' || :chk.others || ') will remain active for 24 hours as a "
        "grace period.' || char(10) || 'After 24 hours, the old card(s) will be automatically deactivated.'",
    )
    + " || "
    + _when(
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
        _check(
            first_error(
                (_empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                (_empty(":reason"), "'Error: Missing required parameter: reason.'"),
                (
                    ":reason NOT IN ('customer_verified', 'velocity_clear')",
                    "'Error: Invalid reason ''' || :reason || '''. Must be one of: customer_verified, velocity_clear'",
                ),
                _CARD_FOUND,
                (
                    f":reason = 'velocity_clear' AND NOT {_truthy(_CARD, 'velocity_blocked')}",
                    "'Error: Debit card ''' || :card_id || ''' does not have an active velocity block.'",
                ),
                (
                    f":reason = 'customer_verified' AND NOT {_truthy(_CARD, 'fraud_alert_active')}",
                    "'Error: Debit card ''' || :card_id || ''' does not have an active fraud alert.'",
                ),
                (
                    f":reason = 'customer_verified' AND json_extract({_CARD}, '$.alert_source') IS 'bank_initiated' "
                    f"AND json_type({_CARD}, '$.alert_source') = 'text'",
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
        _answer(
            "CASE WHEN :reason = 'velocity_clear' THEN "
            + _lines(
                "'Velocity Block Cleared Successfully'",
                "'Card ID: ' || :card_id",
                "'Cleared Date: 11/14/2025'",
                "''",
                "'The card is now unblocked and ready for normal use.'",
                "'The velocity monitoring will continue - if the same unusual patterns recur,'",
                "'the card may be blocked again automatically.'",
            )
            + " ELSE "
            + _lines(
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

AGENT_DISCOVERABLE += [ACTIVATE_NEW, ACTIVATE_REPLACEMENT, ACTIVATE_REISSUED, CLEAR_FRAUD_ALERT]

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
_LIMIT_ACC = f"(SELECT record FROM accounts WHERE record_id = {_CARD_ACCOUNT})"
_level = f"lower(coalesce({get(_LIMIT_ACC, 'level')}, ''))"
_new = "CAST(:new_limit AS REAL)"
_new_int = f"CAST({_new} AS INTEGER)"
_field = "CASE WHEN :limit_type = 'atm' THEN 'daily_atm_limit' ELSE 'daily_purchase_limit' END"
_limit_name = "CASE WHEN :limit_type = 'atm' THEN 'Daily ATM Withdrawal Limit' ELSE 'Daily Purchase Limit' END"
_card_limit = f"({_CARD} -> ('$.' || {_field}))"
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
        _check(
            first_error(
                (_empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                (_empty(":limit_type"), "'Error: Missing required parameter: limit_type.'"),
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
                _CARD_FOUND,
                (
                    f"{_CARD_STATUS} IS NOT 'ACTIVE' OR json_type({_CARD}, '$.status') IS NOT 'text'",
                    f"'Error: Debit card ''' || :card_id || ''' is not active. Current status: ' || {_status_text('')} "
                    "|| '. Only ACTIVE cards can have limit increases.'",
                ),
                (
                    f"coalesce({_CARD_ACCOUNT}, '') = '' OR {_LIMIT_ACC} IS NULL",
                    "'Error: Could not find linked account for debit card ''' || :card_id || '''.'",
                ),
                (
                    f"json_extract({_LIMIT_ACC}, '$.status') IS NOT 'OPEN' OR json_type({_LIMIT_ACC}, '$.status') "
                    "IS NOT 'text'",
                    f"'Error: The linked account ''' || {_CARD_ACCOUNT} || ''' is not in good standing. Account "
                    f"status: ' || {_pyval(_LIMIT_ACC, 'status', 'None')} || '.'",
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
                    f"{_pyval(_LIMIT_ACC, 'level', 'None')} || '''. Please verify the account type.'",
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
        _answer(
            _lines(
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

AGENT_DISCOVERABLE += [TEMPORARY_LIMIT_INCREASE]

# -- tools no gold action uses ---------------------------------------------------------------------------

CHANGE_DEBIT_CARD_PIN = Discoverable(
    "change_debit_card_pin_6285",
    "Change a debit card's PIN when the customer knows the current one.",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("current_pin", "string", "The current 4-digit PIN"),
        Param("new_pin", "string", "The new 4-digit PIN"),
    ),
    True,
    [
        _check(
            first_error(
                (
                    f"{_empty(':card_id')} OR {_empty(':current_pin')} OR {_empty(':new_pin')}",
                    "'Error: Missing required parameters. Required: card_id, current_pin, new_pin.'",
                ),
                (
                    ":current_pin GLOB '*[^0-9]*' OR length(:current_pin) != 4",
                    "'Error: Current PIN must be exactly 4 digits.'",
                ),
                (f"({_pin_problem(':new_pin')}) IS NOT NULL", f"'Error: ' || ({_pin_problem(':new_pin')})"),
                (":current_pin = :new_pin", "'Error: New PIN must be different from current PIN.'"),
                _CARD_FOUND,
                (
                    f"{_CARD_STATUS} IS NOT 'ACTIVE' OR json_type({_CARD}, '$.status') IS NOT 'text'",
                    f"'Error: Cannot change PIN. Card status is ' || {_status_text('')} || '. Only ACTIVE cards can "
                    "have their PIN changed.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.pin_last_changed', {TODAY}) "
            f"WHERE record_id = :card_id AND {OK}",
        },
        _answer(
            _lines(
                "'Debit Card PIN Changed Successfully'",
                "'Card ID: ' || :card_id",
                "'PIN Changed: 11/14/2025'",
                "''",
                "'The new PIN is effective immediately.'",
                "'Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.'",
                "''",
                "'Security reminder: Never share your PIN with anyone.'",
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
        _check(
            first_error(
                (_empty(":card_id"), "'Error: Missing required parameter: card_id'"),
                _CARD_FOUND,
                (
                    f"upper(coalesce({get(_CARD, 'status')}, '')) != 'ACTIVE'",
                    f"'Error: Cannot update recurring block settings for a card with status ''' || "
                    f"upper(coalesce({get(_CARD, 'status')}, '')) || '''. Card must be ACTIVE.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": "UPDATE debit_cards SET record = json_set(record, '$.recurring_blocked', "
            f"{boolean(':block_recurring')}) WHERE record_id = :card_id AND {OK}",
        },
        _answer(
            "CASE WHEN :block_recurring THEN "
            + _lines(
                "'Recurring payments BLOCKED for debit card ' || :card_id || '.'",
                "'All recurring/subscription charges will be declined.'",
                "'One-time purchases are not affected.'",
                "'This change takes effect within 24 hours.'",
            )
            + " ELSE "
            + _lines(
                "'Recurring payments UNBLOCKED for debit card ' || :card_id || '.'",
                "'Recurring/subscription charges will now be allowed.'",
                "'This change takes effect within 24 hours.'",
            )
            + " END"
        ),
    ],
)

EXAMPLE_TOOL = Discoverable(
    "example_agent_tool_0000",
    "A placeholder tool that does nothing.",
    (),
    True,
    [_check("NULL"), _answer("'Example tool executed successfully.'")],
)

AGENT_DISCOVERABLE += [CHANGE_DEBIT_CARD_PIN, SET_RECURRING_BLOCK, EXAMPLE_TOOL]
