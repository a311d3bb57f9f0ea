"""τ³ banking_knowledge's discoverable dispute tools: filing a credit card or a debit card transaction
dispute, and a customer's dispute history of each kind. ``dispute_id`` is shared with the customer's
cash back dispute (``banking_discoverable_customer``): tau2 keys both by user and transaction.
"""

from __future__ import annotations

from .banking_discoverable_sql import NL, OK, answer, check, empty, joined, one_of, when
from .banking_sql import (
    TODAY,
    boolean,
    cat,
    exists,
    first_error,
    insert,
    listing,
    lit,
    money,
    num,
    sha_id,
    titled,
    where_field,
)
from .banking_tool_spec import Discoverable, Param

dispute_id = sha_id(cat("'dispute:'", ":user_id", "':'", ":transaction_id"), 12, "dsp_")

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
        check(
            first_error(
                (f"{empty(':transaction_id')} OR {empty(':user_id')}", "'Error: Missing required parameters.'"),
                (
                    f"NOT {one_of(':card_action', _CARD_ACTIONS)}",
                    lit(f"Error: Invalid card_action. Must be one of: {_CARD_ACTIONS}"),
                ),
                (
                    f"NOT {one_of(':dispute_reason', _CC_REASONS)}",
                    lit(f"Error: Invalid dispute_reason. Must be one of: {_CC_REASONS}"),
                ),
                (
                    f"NOT {one_of(':resolution_requested', _RESOLUTIONS)}",
                    lit(f"Error: Invalid resolution_requested. Must be one of: {_RESOLUTIONS}"),
                ),
                (
                    ":resolution_requested = 'partial_refund' AND :partial_refund_amount IS NULL",
                    lit("Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."),
                ),
                (
                    f"{exists('transaction_disputes', dispute_id)}",
                    "'Error: Dispute may have already been filed for this transaction.'",
                ),
            ),
            id=dispute_id,
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
        answer(
            joined(
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


def _history(name: str, description: str, table: str, what: str, none: str) -> Discoverable:
    found = listing(table, where_field("user_id", ":user_id"))
    return Discoverable(
        name,
        description,
        (Param("user_id", "string", "The customer's user id"),),
        False,
        [
            check(first_error((empty(":user_id"), "'Error: Missing required parameter: user_id'"))),
            {"kind": "query", "bind": "found", "sql": f"SELECT {found} AS text"},
            answer(
                joined(
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
        check(
            first_error(
                (
                    " OR ".join(
                        empty(f":{p}")
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
                    f"NOT {one_of(':dispute_category', _DEBIT_CATEGORIES)}",
                    lit(f"Error: Invalid dispute_category. Must be one of: {_DEBIT_CATEGORIES}"),
                ),
                (
                    f"NOT {one_of(':transaction_type', _DEBIT_TXN_TYPES)}",
                    lit(f"Error: Invalid transaction_type. Must be one of: {_DEBIT_TXN_TYPES}"),
                ),
                (
                    f"NOT {one_of(':pin_compromised', _PIN_STATUSES)}",
                    lit(f"Error: Invalid pin_compromised. Must be one of: {_PIN_STATUSES}"),
                ),
                (
                    f"NOT {one_of(':card_action', _DEBIT_CARD_ACTIONS)}",
                    lit(f"Error: Invalid card_action. Must be one of: {_DEBIT_CARD_ACTIONS}"),
                ),
                (f"{_disputed} <= 0", "'Error: disputed_amount must be a positive number.'"),
                (
                    exists("debit_card_disputes", dispute_id),
                    "'Error: Dispute may have already been filed for this transaction.'",
                ),
            ),
            id=dispute_id,
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
        answer(
            joined(
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
            + when(
                ":pin_compromised = 'yes_shared'",
                "'WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination.'",
            )
            + " || "
            + when(
                f"{_FRAUD} AND NOT :police_report_filed AND {_disputed} > 500",
                "'RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.'",
            )
        ),
    ],
)
