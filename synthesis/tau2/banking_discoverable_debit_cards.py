"""τ³ banking_knowledge's discoverable debit card tools on an existing card: an account's cards,
closing, freezing and unfreezing a card, resetting and changing its PIN (``CHANGE_DEBIT_CARD_PIN`` is
used by no gold action). ``CARD``, ``CARD_STATUS``, ``CARD_FOUND``, ``CARD_ACCOUNT``, ``status_text``
and ``pin_problem`` serve the other debit card modules too.
"""

from __future__ import annotations

from .banking_discoverable_sql import NL, OK, answer, check, empty, get, joined, one_of, when
from .banking_sql import TODAY, exists, first_error, lit, titled
from .banking_tool_spec import Discoverable, Param


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
        check(
            first_error(
                (empty(":account_id"), "'Error: Missing required parameter ''account_id''.'"),
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
        answer(
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

CARD = "(SELECT record FROM debit_cards WHERE record_id = :card_id)"
CARD_STATUS = f"json_extract({CARD}, '$.status')"

CARD_ACCOUNT = f"json_extract({CARD}, '$.account_id')"

CARD_FOUND = ("NOT " + exists("debit_cards", ":card_id"), "'Error: Debit card ''' || :card_id || ''' not found.'")
_CLOSE_REASONS = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]
_reason = "lower(:reason)"


def status_text(expr: str) -> str:
    """``str()`` of a card's status as tau2 prints it (``None`` when it has none)."""
    return f"coalesce(python_str({CARD} -> '$.status'), 'None')"


CLOSE_DEBIT_CARD = Discoverable(
    "close_debit_card_4721",
    "Close a debit card for good (it cannot be reactivated).",
    (
        Param("card_id", "string", "The debit card's id"),
        Param("reason", "string", f"One of: {', '.join(_CLOSE_REASONS)}"),
    ),
    True,
    [
        check(
            first_error(
                (
                    f"{empty(':card_id')} OR {empty(':reason')}",
                    "'Error: Missing required parameters. Required: card_id, reason.'",
                ),
                (
                    f"NOT {one_of(_reason, _CLOSE_REASONS)}",
                    lit(f"Error: Invalid reason. Must be one of: {_CLOSE_REASONS}"),
                ),
                CARD_FOUND,
                (
                    f"{CARD_STATUS} IS NULL OR {CARD_STATUS} NOT IN ('ACTIVE', 'PENDING')",
                    "'Error: Debit card ''' || :card_id || ''' cannot be closed. Current status: ' || "
                    f"{status_text('')} || "
                    "'. Only ACTIVE or PENDING cards can be closed.'",
                ),
            ),
            previous=CARD_STATUS,
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.status', 'CLOSED', '$.closed_date', {TODAY}, "
            f"'$.closure_reason', {_reason}) WHERE record_id = :card_id AND {OK}",
        },
        answer(
            joined(
                "'Debit Card Closed Successfully'",
                "'Card ID: ' || :card_id",
                "'Previous Status: ' || :chk.previous",
                "'New Status: CLOSED'",
                f"'Closure Reason: ' || {titled(_CLOSE_REASONS, _reason)}",
                "'Closure Date: 11/14/2025'",
                "''",
            )
            + " || "
            + when(
                f"{_reason} IN ('lost', 'stolen', 'fraud_suspected')",
                "'IMPORTANT: This card has been immediately deactivated for security.' || char(10) || "
                "'Any pending transactions may still be processed.'",
            )
            + " || "
            + when(
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
        check(
            first_error(
                (empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                CARD_FOUND,
                (f"{CARD_STATUS} IS 'FROZEN'", "'Error: Debit card ''' || :card_id || ''' is already frozen.'"),
                (
                    f"{CARD_STATUS} IS NOT 'ACTIVE'",
                    "'Error: Debit card ''' || :card_id || ''' cannot be frozen. Current status: ' || "
                    f"{status_text('')} || "
                    "'. Only ACTIVE cards can be frozen.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.status', 'FROZEN', '$.frozen_date', {TODAY}) "
            f"WHERE record_id = :card_id AND {OK}",
        },
        answer(
            joined(
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

_LINKED = "json_extract(" + CARD + ", '$.account_id')"
UNFREEZE_DEBIT_CARD = Discoverable(
    "unfreeze_debit_card_3893",
    "Unfreeze a frozen debit card.",
    (Param("card_id", "string", "The debit card's id"),),
    True,
    [
        check(
            first_error(
                (empty(":card_id"), "'Error: Missing required parameter: card_id.'"),
                CARD_FOUND,
                (f"{CARD_STATUS} IS 'ACTIVE'", "'Error: Debit card ''' || :card_id || ''' is already active.'"),
                (
                    f"{CARD_STATUS} IS NOT 'FROZEN'",
                    "'Error: Debit card ''' || :card_id || ''' cannot be unfrozen. Current status: ' || "
                    f"{status_text('')} || "
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
        answer(
            joined(
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


def pin_problem(pin: str) -> str:
    """tau2's ``_validate_pin``: NULL for a good PIN, else its message."""
    return first_error(
        (
            f"{empty(pin)} OR {pin} GLOB '*[^0-9]*' OR length({pin}) != 4",
            "'PIN must be exactly 4 digits.'",
        ),
        (f"{one_of(pin, _SEQUENTIAL)}", "'PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN.'"),
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
        check(
            first_error(
                (
                    f"{empty(':card_id')} OR {empty(':last_4_digits')} OR {empty(':new_pin')}",
                    "'Error: Missing required parameters. Required: card_id, last_4_digits, new_pin.'",
                ),
                (
                    ":last_4_digits GLOB '*[^0-9]*' OR length(:last_4_digits) != 4",
                    "'Error: Last 4 digits must be exactly 4 digits.'",
                ),
                (f"({pin_problem(':new_pin')}) IS NOT NULL", f"'Error: ' || ({pin_problem(':new_pin')})"),
                CARD_FOUND,
                (
                    f"json_extract({CARD}, '$.last_4_digits') IS NOT :last_4_digits OR "
                    f"json_type({CARD}, '$.last_4_digits') IS NOT 'text'",
                    "'Error: Card verification failed. The last 4 digits do not match our records.'",
                ),
                (
                    f"{CARD_STATUS} IS NOT 'ACTIVE'",
                    f"'Error: Cannot reset PIN. Card status is ' || {status_text('')} || '. Only ACTIVE cards can "
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
        answer(
            joined(
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
        check(
            first_error(
                (
                    f"{empty(':card_id')} OR {empty(':current_pin')} OR {empty(':new_pin')}",
                    "'Error: Missing required parameters. Required: card_id, current_pin, new_pin.'",
                ),
                (
                    ":current_pin GLOB '*[^0-9]*' OR length(:current_pin) != 4",
                    "'Error: Current PIN must be exactly 4 digits.'",
                ),
                (f"({pin_problem(':new_pin')}) IS NOT NULL", f"'Error: ' || ({pin_problem(':new_pin')})"),
                (":current_pin = :new_pin", "'Error: New PIN must be different from current PIN.'"),
                CARD_FOUND,
                (
                    f"{CARD_STATUS} IS NOT 'ACTIVE' OR json_type({CARD}, '$.status') IS NOT 'text'",
                    f"'Error: Cannot change PIN. Card status is ' || {status_text('')} || '. Only ACTIVE cards can "
                    "have their PIN changed.'",
                ),
            )
        ),
        {
            "kind": "exec",
            "sql": f"UPDATE debit_cards SET record = json_set(record, '$.pin_last_changed', {TODAY}) "
            f"WHERE record_id = :card_id AND {OK}",
        },
        answer(
            joined(
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
