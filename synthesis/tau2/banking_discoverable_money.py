"""τ³ banking_knowledge's discoverable tools that move money in bank accounts: a transfer between two
of a customer's accounts, a credit to a checking or a savings account, and a report of a savings
account's interest paid below the rate expected.
"""

from __future__ import annotations

from .banking_discoverable_sql import ACCOUNT, OK, answer, check, empty, get, one_of, pyval
from .banking_sql import TODAY, balance, cat, exists, first_error, lit, money, next_position, sha_id
from .banking_tool_spec import Discoverable, Param

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
        check(
            first_error(
                (
                    f"{empty(':source_account_id')} OR {empty(':destination_account_id')} OR :amount IS NULL",
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
        answer(
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
    acc = ACCOUNT
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
            check(
                first_error(
                    (
                        f"{empty(':account_id')} OR :amount IS NULL OR {empty(':credit_type')}",
                        "'Error: Missing required parameters.'",
                    ),
                    (f"{_amount} <= 0", "'Error: Credit amount must be positive.'"),
                    (
                        f"NOT {one_of(':credit_type', kinds)}",
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
            answer(
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

_IDR_ACC = ACCOUNT
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
        check(
            first_error(
                (
                    f"{empty(':account_id')} OR {empty(':user_id')} OR :expected_apy IS NULL OR :actual_apy IS NULL "
                    "OR :amount_difference IS NULL",
                    "'Error: Missing required parameters.'",
                ),
                ("NOT " + exists("accounts", ":account_id"), "'Error: Account ''' || :account_id || ''' not found.'"),
                ("NOT " + exists("users", ":user_id"), "'Error: User ''' || :user_id || ''' not found.'"),
            )
        ),
        # tau2 adds the report to a table its database does not have, so nothing is kept
        answer(
            "char(10) || 'Interest Discrepancy Report Submitted Successfully!' || char(10) || '  - Report ID: ' || "
            f"{_report_id} || char(10) || '  - Account: ' || :account_id || ' (' || "
            f"{pyval(_IDR_ACC, 'level', 'Unknown')} || ')' || char(10) || '  - Customer: ' || "
            f"{pyval(_IDR_USER, 'name', 'Unknown')} || char(10) || '  - Expected APY: ' || "
            f"float_text({_expected_apy}) || '%' || char(10) || '  - Actual APY: ' || float_text({_actual_apy}) || "
            f"'%' || char(10) || '  - APY Difference: ' || float_text(round_half_even({_expected_apy} - {_actual_apy}, "
            f"4)) || '%' || char(10) || '  - Amount Difference: $' || {money(':amount_difference')} || char(10) || "
            "'  - Status: PENDING_REVIEW' || char(10) || char(10) || 'The backend team will investigate this "
            "discrepancy and ensure correct APY calculations are applied going forward.'"
        ),
    ],
)
