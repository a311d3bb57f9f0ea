"""τ³ banking_knowledge's discoverable tools, as SQL: the internal tools the agent unlocks and calls
(``AGENT_DISCOVERABLE``) and those it hands to the customer (``USER_DISCOVERABLE``). Each answers as
tau2's method of the same name does (tau2's ``tools.py``, MIT), text for text; the descriptions are ours.

The tools are defined by family in ``banking_discoverable_*`` (accounts, money, debit cards, credit
cards, disputes, the customer's, ...); this module only lists them. The order of the lists is the order
of the ``discoverable_tools`` rows and of the unlisted tools in the spec, so it is kept as it is.
"""

from __future__ import annotations

from .banking_discoverable_accounts import (
    CLOSE_BANK_ACCOUNT,
    GET_ALL_USER_ACCOUNTS,
    GET_BANK_ACCOUNT_TRANSACTIONS,
    OPEN_BANK_ACCOUNT,
)
from .banking_discoverable_credit_cards import (
    APPLY_ACCOUNT_FLAG,
    APPLY_STATEMENT_CREDIT,
    CLOSE_CREDIT_CARD_ACCOUNT,
    GET_CLOSURE_REASON_HISTORY,
    GET_PENDING_REPLACEMENT_ORDERS,
    LOG_CLOSURE_REASON,
    ORDER_REPLACEMENT_CREDIT_CARD,
    UPDATE_TRANSACTION_REWARDS,
)
from .banking_discoverable_credit_payments import (
    APPROVE_CLI,
    DENY_CLI,
    GET_CLI_HISTORY,
    GET_PAYMENT_HISTORY,
    PAY_CREDIT_CARD,
    SUBMIT_CLI_REQUEST,
)
from .banking_discoverable_customer import (
    DEPOSIT_CHECK,
    GET_CARD_LAST_4,
    GET_REFERRAL_LINK,
    SUBMIT_CASH_BACK_DISPUTE,
)
from .banking_discoverable_debit_card_issuing import (
    ACTIVATE_NEW,
    ACTIVATE_REISSUED,
    ACTIVATE_REPLACEMENT,
    CLEAR_FRAUD_ALERT,
    ORDER_DEBIT_CARD,
)
from .banking_discoverable_debit_card_limits import SET_RECURRING_BLOCK, TEMPORARY_LIMIT_INCREASE
from .banking_discoverable_debit_cards import (
    CHANGE_DEBIT_CARD_PIN,
    CLOSE_DEBIT_CARD,
    FREEZE_DEBIT_CARD,
    GET_DEBIT_CARDS,
    RESET_DEBIT_CARD_PIN,
    UNFREEZE_DEBIT_CARD,
)
from .banking_discoverable_disputes import (
    FILE_CREDIT_CARD_DISPUTE,
    FILE_DEBIT_CARD_DISPUTE,
    GET_DEBIT_DISPUTE_STATUS,
    GET_USER_DISPUTE_HISTORY,
)
from .banking_discoverable_money import (
    APPLY_CHECKING_CREDIT,
    APPLY_SAVINGS_CREDIT,
    SUBMIT_INTEREST_DISCREPANCY,
    TRANSFER_FUNDS,
)
from .banking_discoverable_scripted import (
    EMERGENCY_TRANSFER_1114,
    EXAMPLE_TOOL,
    INITIAL_TRANSFER_0218,
    INITIAL_TRANSFER_1822,
)
from .banking_tool_spec import Discoverable

AGENT_DISCOVERABLE: list[Discoverable] = [
    GET_BANK_ACCOUNT_TRANSACTIONS,
    GET_ALL_USER_ACCOUNTS,
    GET_DEBIT_CARDS,
    FILE_CREDIT_CARD_DISPUTE,
    OPEN_BANK_ACCOUNT,
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
    GET_PENDING_REPLACEMENT_ORDERS,
    GET_CLOSURE_REASON_HISTORY,
    LOG_CLOSURE_REASON,
    SUBMIT_INTEREST_DISCREPANCY,
    ORDER_DEBIT_CARD,
    APPLY_STATEMENT_CREDIT,
    APPLY_ACCOUNT_FLAG,
    CLOSE_CREDIT_CARD_ACCOUNT,
    PAY_CREDIT_CARD,
    SUBMIT_CLI_REQUEST,
    GET_CLI_HISTORY,
    GET_PAYMENT_HISTORY,
    APPROVE_CLI,
    DENY_CLI,
    ACTIVATE_NEW,
    ACTIVATE_REPLACEMENT,
    ACTIVATE_REISSUED,
    CLEAR_FRAUD_ALERT,
    TEMPORARY_LIMIT_INCREASE,
    CHANGE_DEBIT_CARD_PIN,
    SET_RECURRING_BLOCK,
    EXAMPLE_TOOL,
]
USER_DISCOVERABLE: list[Discoverable] = [SUBMIT_CASH_BACK_DISPUTE, GET_CARD_LAST_4, DEPOSIT_CHECK, GET_REFERRAL_LINK]

__all__ = ["AGENT_DISCOVERABLE", "USER_DISCOVERABLE"]
