"""Amounts a policy says to tell after an action ("Tell the member their new points balance after
every change."): a task doing that action requires the amount in the answer, asked or not."""

from __future__ import annotations

import re

#: A policy line asking the agent to tell an amount after an action: "Tell the owner the new estimate
#: after approving additional work.", "Tell the member their new points balance after every change."
_TELL_AFTER = re.compile(r"^tell the [\w ]+? (?:their |the |about the )?(?P<what>.+?) after (?P<when>.+?)\.?$", re.I)


#: Words of a column's name that say what kind of amount it is, not which ("balance_due" is a balance).
_KIND_WORDS = frozenset({"due", "at", "on", "id", "amount", "total", "value", "current", "new"})


def policy_tells(rules: list[str], column: str, action: str) -> bool:
    """Whether one of the domain's ``rules`` asks the agent to tell ``column``'s value after
    ``action`` (a transition's name): its noun is the column's last word, its action the verb's stem
    or "any change".

    >>> policy_tells(["Tell the owner the new estimate after approving additional work."], "estimate", "approve")
    True
    >>> policy_tells(["Tell the owner the new estimate after approving additional work."], "estimate", "decline")
    False
    >>> policy_tells(["Tell the customer the remaining account balance after a payment."], "balance_due", "pay_bill")
    True
    >>> policy_tells(["Tell the renter the new balance after a payment."], "balance_due", "prepay_unit_rental")
    True
    """
    words = column.lower().split("_")
    nouns = [w for w in words if w not in _KIND_WORDS] or words
    verb = action.split("_")[0].lower()
    # "after a payment" is after any way of paying: a prepayment, a payment of a bill
    stems = {verb[:4], "pay"} if "pay" in verb else {verb[:4]}
    for rule in rules:
        m = _TELL_AFTER.match(rule.strip())
        if m is None or not any(re.search(rf"\b{re.escape(n)}\b", m["what"].lower()) for n in nouns):
            continue
        if any(stem in m["when"].lower() for stem in stems) or re.search(r"\b(?:any|every) change\b", m["when"], re.I):
            return True
    return False
