"""The event a column or a status names: ``suspension_reason`` and ``suspended`` both name a
suspension, ``dispute_note`` and ``disputed`` a dispute, ``takedown_reason`` and ``taken_down`` a
takedown. A reason that names an event belongs to the records in a state naming that event
(``synthesis.domains.bound_text`` fills seed rows so; ``believable`` counts the rows that do not).
"""

from __future__ import annotations

from itertools import pairwise

#: Each event and the words (or underscore-joined word pairs) that name it, as a noun or a state.
EVENT_FORMS: dict[str, frozenset[str]] = {
    event: frozenset(forms)
    for event, forms in {
        "suspend": ("suspension", "suspended", "suspend"),
        "deny": ("denial", "denied"),
        "dispute": ("dispute", "disputed"),
        "takedown": ("takedown", "taken_down"),
        "close": ("closure", "closed"),
        "reject": ("rejection", "rejected"),
        "remake": ("remake",),
        "revoke": ("revocation", "revoked"),
        "appeal": ("appeal", "appealed"),
        "resolve": ("resolution", "resolved"),
        "transfer": ("transfer", "transferred"),
        "cancel": ("cancellation", "cancelled", "canceled"),
        "decline": ("decline", "declined"),
        "refuse": ("refusal", "refused"),
        "terminate": ("termination", "terminated"),
        "dismiss": ("dismissal", "dismissed"),
        "withdraw": ("withdrawal", "withdrawn"),
        "void": ("void", "voided"),
        "default": ("default", "defaulted"),
        "lose": ("loss", "lost"),
    }.items()
}
_EVENT_OF = {form: event for event, forms in EVENT_FORMS.items() for form in forms}


def event_of(name: str) -> str | None:
    """The one event ``name`` (a column or a state, words joined by ``_``) names, or None (no event,
    or more than one)."""
    words = name.lower().split("_")
    pieces = {*words, *("_".join(pair) for pair in pairwise(words))}
    found = {_EVENT_OF[p] for p in pieces if p in _EVENT_OF}
    return found.pop() if len(found) == 1 else None
