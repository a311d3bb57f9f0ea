"""Why a user changes a field of a record or asks for a new one, in their own words (the reasons
for a transition, and the rules every motive keeps, are in :mod:`.motives`)."""

from __future__ import annotations

from .motives import RESCHEDULE, motives_of, pick

_UPDATE = motives_of(
    "My details changed recently.",
    "It was set up wrong the first time.",
    "Things changed on my end since I set it up.",
    "I gave the wrong one when I set it up.",
    "I noticed it was wrong when I looked it over.",
    "My situation changed since then.",
    "What's on file isn't right anymore.",
)
#: A setting switched on or off (autopay, reminders) is no value given wrong: the user wants it the
#: other way, and the reason must read right for either direction.
SETTING_WORDS = frozenset(
    {"autopay", "auto", "autorenew", "paperless", "notifications", "notify", "alerts", "reminders", "reminder",
     "opt", "marketing", "newsletter", "sms", "enabled", "consent", "subscribed", "optin", "sharing", "protection",
     "lock", "explicit", "mode", "login", "remote", "online", "roaming", "rush", "expedited", "signature",
     "liftgate", "loaner", "detailing", "donate", "paused"}
)  # fmt: skip
_SETTING = motives_of(
    "I'd rather handle that differently from now on.",
    "I've rethought how I want that set up.",
    "The other way suits me better now.",
    "It works better for me the other way now.",
)
_CONTACT = motives_of(
    "I changed it recently.",
    "I don't use the old one anymore.",
    "I got a new one last week.",
    "The old one isn't working anymore.",
    "I'd rather you reach me on the new one from now on.",
)
_CREATE = motives_of(
    "I've been meaning to set this up for a while.",
    "I decided it's time to get this sorted.",
    "A friend recommended it and I'm keen to go ahead.",
    "I need it in place before my schedule fills up.",
)


def update_motive(column: str, key: str) -> str:
    """Why the user changes a field: an address because they moved, a contact because it is new, a
    time because of a conflict, a setting because they want it the other way, anything else because
    it changed or was set up wrong."""
    words = set(column.split("_"))
    if words & SETTING_WORDS or column.startswith(("is_", "has_", "wants_", "allow_")):
        options = _SETTING
    elif words & {"address", "street", "city", "zip", "postcode", "postal"}:
        options = motives_of(
            "I've just moved.",
            "We moved house last month.",
            "I've moved to a new place.",
            "We moved across town recently.",
        )
    elif words & {"email", "phone", "mobile", "contact"}:
        options = _CONTACT
        if "email" in words:  # an address changes with the provider; a phone number is kept across carriers
            options = (*_CONTACT, *motives_of("I switched email providers recently."))
    elif words & {"dba", "trade", "trading", "brand"} or column == "business_name":
        # a business's trade name changes with the business, not to find a record again
        options = motives_of(
            "We've rebranded and trade under the new name now.",
            "The business has changed the name it trades under.",
            "We're trading under the new name from this month.",
        )
    elif words & {"title", "name", "subject", "label", "heading", "nickname"}:
        # a record renamed is named better, not corrected: a new title is no fix of a wrong one
        options = motives_of(
            "The old name doesn't describe it well anymore.",
            "A clearer name would help me find it straight away.",
            "I've gone off the old name.",
        )
    elif words & {"date", "time", "day", "slot", "at", "on", "start", "window"}:
        options = RESCHEDULE
    else:
        options = _UPDATE
    return pick(options, f"{column}|{key}", refused=False) or _UPDATE[0].text


def create_motive(action: str, key: str, *, follows: bool = False) -> str | None:
    """Why the user asks for a new record (``action``: "book a tour", "file a claim"); ``follows``:
    it is for a record the task just named ("a twin room for the same tour booking"), None: the
    request it goes with gave the reason, and "It belongs with it, so I'd rather do both now." says
    nothing of the user's situation (measure 115)."""
    if follows:
        return None
    head = action.split()[0].lower() if action.split() else ""
    if set(action.lower().split()) & {"vehicle", "car"}:  # a car is bought, not a plan that grew
        options = motives_of(
            "I've just bought another car.",
            "We've got a second car at home now.",
            "I traded in my old car and have a new one.",
        )
    elif head in ("top", "load", "deposit", "fund", "add_funds"):
        options = motives_of(
            "I want enough on there for what I'm planning to buy.",
            "I'd rather have some money on there before the weekend.",
            "My balance is getting low and I don't want to run out.",
        )
    elif head in ("buy", "purchase", "order", "rent", "hire"):
        options = motives_of(
            "I've had my eye on it for a while.",
            "A friend recommended it and I'm keen to go ahead.",
            "I've been saving up for this.",
        )
    elif head in ("apply", "request"):
        options = motives_of(
            "I need it sorted before I can go ahead with my plans.",
            "I've been meaning to get this started for a while.",
            "I'd rather get it in early, since these things take time.",
        )
    elif head in ("book", "reserve", "schedule"):
        options = motives_of(
            "I'd rather get it on the calendar before it fills up.",
            "I've been meaning to get this sorted for a while.",
            "I'm planning ahead, since my weeks are getting busy.",
        )
    elif head in ("file", "report", "submit", "open", "lodge", "raise"):
        options = motives_of(
            "I need to get this on record.",
            # no day of its own: what happened may be weeks old
            "It happened a little while ago and I've put off reporting it long enough.",
            "I was told I need to get this in first.",
        )
    elif head in ("add", "register", "enroll", "include"):
        options = motives_of(
            "I forgot to add this when I set things up.",
            "Our plans grew, so I need to add this.",
            "I was told I should have this in place.",
        )
    else:
        options = _CREATE
    return pick(options, f"{action}|{key}", refused=False) or _CREATE[0].text
