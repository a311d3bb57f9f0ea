"""τ³ banking_knowledge's discoverable tools the agent hands to the customer (``USER_DISCOVERABLE``):
disputing a transaction's cash back, the card's last 4 digits, depositing a check, a referral link.

Each first checks that the agent handed it over (``_given``) and logs the call with its arguments in
``user_discoverable_tool_calls`` (``_log_user_call``), as tau2's ``_check_tool_given`` and
``_log_user_tool_call`` do.
"""

from __future__ import annotations

from typing import Any

from .banking_discoverable_disputes import dispute_id
from .banking_discoverable_sql import ACCOUNT, NL, OK, answer, check, get, pystr, user_args_indented
from .banking_sql import TODAY, balance, cat, exists, first_error, insert, lit, money, num, sha_id, where_field
from .banking_tool_spec import Discoverable, Param


def _user_args_json(pairs: list[tuple[str, str]]) -> str:
    """``json.dumps(args, sort_keys=True)`` of the named values, each already Python JSON text."""
    body = " || ', ' || ".join(lit('"' + k + '": ') + " || " + v for k, v in sorted(pairs))
    return "'{' || " + body + " || '}'"


def _given(name: str) -> dict[str, Any]:
    """``_check_tool_given``: the agent must have handed the tool over."""
    return check(
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


_auto_resolve = (
    "coalesce((SELECT json_extract(record, '$.auto_resolve_disputes') FROM task_config "
    "WHERE record_id = 'dispute_settings' AND json_type(record, '$.auto_resolve_disputes') IN ('true', 'integer', "
    "'real')), 0)"
)
_cash_back_pairs = [("user_id", pystr(":user_id")), ("transaction_id", pystr(":transaction_id"))]

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
            "sql": f"SELECT {dispute_id} AS id, {exists('cash_back_disputes', dispute_id)} AS taken, "
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
        answer(
            cat(
                lit(
                    "Cash back dispute submitted successfully. Your case has been queued for review.\n\n"
                    "Executed: submit_cash_back_dispute_0589\nArguments: "
                ),
                user_args_indented(_cash_back_pairs),
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
            [("credit_card_account_id", pystr(":credit_card_account_id"))],
            [("credit_card_account_id", ":credit_card_account_id")],
        ),
        {
            "kind": "query",
            "bind": "c",
            "sql": "SELECT EXISTS (SELECT 1 FROM credit_card_accounts WHERE "
            f"{where_field('account_id', ':credit_card_account_id')}) AS found, substr({_last4_digits} || '0000', 1, "
            "4) AS last4",
        },
        answer(
            "CASE WHEN NOT :c.found THEN 'Error: Credit card account ''' || :credit_card_account_id || ''' not found.' "
            "ELSE "
            + cat(
                lit("Card information retrieved successfully.\n\nExecuted: get_card_last_4_digits\nArguments: "),
                user_args_indented([("credit_card_account_id", pystr(":credit_card_account_id"))]),
                NL,
                "'Last 4 digits of card: ' || :c.last4",
            )
            + " END"
        ),
    ],
)

_check_amount = "CAST(:check_amount AS REAL)"
_DEPOSIT_ACC = ACCOUNT
_deposit_pairs = [("account_id", pystr(":account_id")), ("check_amount", f"python_json(float_text({_check_amount}))")]
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
        answer(
            ":d.err, "
            + cat(
                lit(
                    "Check deposited successfully. Funds will be available according to your account's deposit "
                    "policy.\n\nExecuted: deposit_check_3847\nArguments: "
                ),
                user_args_indented(_deposit_pairs),
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
_link_pairs = [("user_id", pystr(":user_id")), ("card_name", pystr(":card_name"))]
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
        answer(
            cat(
                lit(
                    "Referral link generated successfully. Share this link with the person you want to refer.\n\n"
                    "Executed: get_referral_link\nArguments: "
                ),
                user_args_indented(_link_pairs),
                NL,
                "CASE WHEN :r.taken THEN 'Note: A referral link for this card may have already been generated.' ELSE "
                "'Referral ID: ' || :r.id || char(10) || 'Referral link: https://rhobank.com/refer/' || :r.id END",
            )
        ),
    ],
)
