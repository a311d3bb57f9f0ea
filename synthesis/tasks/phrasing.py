"""Natural-language rendering of tasks: the user's facts and requests, in varied phrasings.

The offline backend draws from these templates with the task generator's seeded RNG; the LLM
backend may rewrite the result, which is then re-verified (the facts must still be stated).
"""

from __future__ import annotations

import random
import re
from datetime import date
from typing import Any

from envs.quality.text import column_words

from .details import detail, dictated, quoted, spoken_value
from .motives import transition_motive

#: Personas, with the ages they fit (a retired teacher born in 2001 is no one a reader believes).
_PERSONAS: list[tuple[str, int, int]] = [
    ("A busy parent who answers in short sentences.", 25, 60),
    ("A retired teacher, polite and a little wordy.", 60, 120),
    ("A student on a tight budget who wants exact numbers.", 16, 30),
    ("A small-business owner in a hurry.", 25, 75),
    ("A careful person who double-checks every detail.", 16, 120),
    ("A first-time customer, unsure of the terms.", 16, 120),
    ("A frequent customer who knows the process well.", 16, 120),
    ("Someone calling on a phone with a bad connection, who repeats things.", 16, 120),
    ("A frustrated customer who wants this fixed today.", 16, 120),
    ("A friendly person who chats a bit before getting to the point.", 16, 120),
]
#: The largest sum a user on a tight budget deals in.
_BUDGET_LIMIT = 2500.0
#: Free-text arguments by words in their name, as a user would fill them in.
_FREE_TEXT: list[tuple[tuple[str, ...], list[str]]] = [
    (("address", "street", "location", "point"), ["14 Elm Street", "220 Harbor Road", "5 Station Square"]),
    (("tracking", "reference", "number", "code"), ["TRK4471902", "REF-20931", "1Z884A0312"]),
    (("name", "person", "contact"), ["Jordan Lee", "Sam Rivera", "Alex Morgan"]),
    (("relationship",), ["neighbour", "grandparent", "aunt"]),
    (
        ("description", "details", "issue", "problem", "symptom"),
        ["It stopped working after two days", "The screen is cracked"],
    ),
    (("instruction", "request", "message"), ["Leave it at the front desk", "Ring the bell twice"]),
    (("title", "subject", "event"), ["Spring Gathering", "Team Offsite"]),
]
#: How a user gives the email their account is under; each opens few of a catalog's messages.
EMAIL_FACTS = [
    "My email is {email}.",
    "You can find me under {email}.",
    "The account email is {email}.",
    "The account is under {email}.",
    "I'm registered as {email}.",
    "It's {email} on the account.",
    "My account email is {email}.",
    "You'll have me as {email}.",
    "I signed up with {email}.",
    "The email I use with you is {email}.",
]
#: How a user gives their name and one more detail ({what}: "date of birth", "zip code").
NAME_FACTS = [
    "My name is {name} and my {what} is {value}.",
    "I'm {name}, {what} {value}.",
    "This is {name}; my {what} is {value}.",
    "Name's {name}, {what} {value}.",
    "It's {name}, and my {what} is {value}.",
    "The account is in the name of {name}, {what} {value}.",
]
_OPENINGS = ["Hi,", "Hello,", "Hi there,", "Good morning,", "Hey,", ""]
_CLOSINGS = ["Thanks!", "Thank you.", "Thanks a lot.", "", "Appreciate it.", "Cheers."]
_VERBS = {
    "cancel": "cancel",
    "renew": "renew",
    "return": "return",
    "pay": "pay",
    "approve": "approve",
    "reject": "reject",
    "close": "close",
    "reopen": "reopen",
    "suspend": "suspend",
    "reinstate": "reinstate",
    "confirm": "confirm",
    "complete": "complete",
    "refund": "refund",
    "ship": "ship",
    "archive": "archive",
}


#: Transitions whose name no rule below reads well, as templates around the record's phrase ``{p}``.
_IDIOMS = {
    "go_live": "take {p} live",
    "late_cancel": "late-cancel {p}",
    "opt_out": "opt out of {p}",
    "re_enroll": "re-enroll {p}",
    "extend_one_day": "extend {p} by one day",
    "start_preparing": "start preparing {p}",
    "dispose": "dispose of {p}",
    "accept_counter": "accept the counteroffer on {p}",
}
#: Particles of phrasal verbs, which come before the record: "check in my appointment".
_PARTICLES = {"in", "out", "up", "off", "back", "down"}
#: Prepositions that start a tail coming after the record: "pay my invoice with credit".
_TAIL_PREPOSITIONS = {"with", "to", "from", "for", "at", "on", "under", "by", "in"}
#: Words that alone are a tail after the record: "end my hold early".
_TAIL_WORDS = {"early", "late", "online", "unclaimed"}
#: The preposition joining a verb's own object to the record: "apply the credit to my invoice".
_OBJECT_PREPOSITIONS = {"add": "to", "apply": "to", "remove": "from"}
_MASS_NOUNS = {"hours", "parking", "credit"}
#: Past forms of verbs that take no object, with their base form: they are asked with "did", not "was".
_INTRANSITIVE = {
    "arrived": "arrive",
    "departed": "depart",
    "expired": "expire",
    "ended": "end",
    "landed": "land",
    "occurred": "occur",
    "happened": "happen",
}
#: Steps of the business's own work, as a customer asks for them: "have my claim reviewed", not
#: "start the review for my claim" (the words of the staff who do it).
_STAFF_WORK = {
    "review": "reviewed",
    "investigation": "investigated",
    "assessment": "assessed",
    "audit": "audited",
    "evaluation": "evaluated",
    "inspection": "inspected",
}
_RESULT_WORDS = {"pass": "passed", "fail": "failed", "found": "found", "lost": "lost", "won": "won", "fixed": "fixed"}


#: Words that start what a create's description adds after its verb and object.
_QUALIFIERS = frozenset({"for", "to", "at", "of", "on", "with", "from", "in", "into", "that", "which", "so", "by"})


#: Verbs that move or stretch a record in time, and the counts they take: "postpone it by 2 days".
_SHIFTING_VERBS = frozenset({"postpone", "delay", "defer", "push", "shift", "reschedule", "extend", "move"})
_SHIFTS = frozenset({"days", "hours", "weeks", "months", "extra_days", "extra_hours", "extra_weeks"})
#: Verbs that stop a thing for a while: "pause my subscription for 14 days".
_HOLDING_VERBS = frozenset({"pause", "suspend", "freeze", "hold", "defer", "skip"})
#: Verbs that set a thing up anew: "schedule the redelivery for my parcel, 8 days later than planned".
_SETTING_VERBS = frozenset({"schedule", "book", "arrange", "request", "set", "rebook"})


def _span(name: str) -> str:
    """The unit of a count of time a tool takes (``pause_days`` gives "days"), else ""."""
    if name in _SHIFTS:
        return name.removeprefix("extra_")
    last = name.split("_")[-1]
    return last if last in ("days", "hours", "weeks", "months") and name.count("_") == 1 else ""


def spanned(verb: str, unit: str, n: int) -> str | None:
    """A count of time said with the action it belongs to, never bare ("I need 8 days."): " by 2
    days" after a move, " for 14 days" after a pause, ", 8 days later than planned" after a
    redelivery set up, "It's running 3 days late." beside a delay reported; None for other verbs."""
    said = f"{n} {unit[:-1] if n == 1 else unit}"
    parts = verb.split("_")
    if parts[0] in _SHIFTING_VERBS and "delay" not in parts[1:]:
        return f" by {said}"
    if parts[0] in _HOLDING_VERBS:
        return f" for {said}"
    if "delay" in parts or "late" in parts:
        return f"It's running {said} late."
    if parts[0] in _SETTING_VERBS:
        return f", {said} later than planned"
    return None


def _human(name: str) -> str:
    return name.replace("_", " ").replace(".", "'s ")


def spoken_column(name: str) -> str:
    """A column's name as a question about it says it ("balance due")."""
    return _human(name)


def _is_tail(words: list[str]) -> bool:
    return words[0] in _TAIL_PREPOSITIONS or (len(words) == 1 and words[0] in _TAIL_WORDS)


def verb_phrase(verb: str, phrase: str) -> str:
    """What a user asks to do to a record, from a transition name: ``pay_with_credit`` and "my invoice"
    give "pay my invoice with credit"; ``approve_estimate`` gives "approve the estimate for my invoice"."""
    if verb in _IDIOMS:
        return _IDIOMS[verb].format(p=phrase)
    if verb in _VERBS:
        return f"{_VERBS[verb]} {phrase}"
    head, *rest = verb.split("_")
    if not rest:
        return f"{head} {phrase}"
    if head in ("mark", "report", "flag", "set"):
        return f"{head} {phrase} as {' '.join(rest)}"
    if len(rest) == 1 and rest[0] in _RESULT_WORDS:  # record_pass, resolve_lost, confirm_fixed
        return f"{head} {phrase} as {_RESULT_WORDS[rest[0]]}"
    if rest[0] in _PARTICLES and (len(rest) == 1 or _is_tail(rest[1:])):
        tail = " ".join(rest[1:])
        return f"{head} {rest[0]} {phrase}" + (f" {tail}" if tail else "")
    if _is_tail(rest):
        return f"{head} {phrase} {' '.join(rest)}"
    noun = " ".join(rest)
    if head in ("start", "begin", "open") and noun in _STAFF_WORK:
        return f"have {phrase} {_STAFF_WORK[noun]}"
    if head == "add":
        article = "" if rest[-1] in _MASS_NOUNS else ("an " if noun[0] in "aeiou" else "a ")
        return f"add {article}{noun} to {phrase}"
    return f"{head} the {noun} {_OBJECT_PREPOSITIONS.get(head, 'for')} {phrase}"


def record_question(phrase: str, column: str) -> str | None:
    """A question for a when-column named after an event: ``requested_on`` gives "When was my payout
    requested?", ``expires_on`` "When does my pass expire?". None for other columns, and for times a
    record is *for* (``scheduled_at``: "when was it scheduled" would ask for the booking time)."""
    *verb, last = column.split("_")
    if last not in ("on", "at") or not verb:
        return None
    if verb[0] in ("scheduled", "expected", "planned", "due"):
        return None
    if len(verb) == 1 and verb[0] in _INTRANSITIVE:  # "When did my trip arrive?", not "was ... arrived"
        return f"When did {phrase} {_INTRANSITIVE[verb[0]]}?"
    past = verb[0].endswith("ed") or verb[0] == "paid"
    if past and (len(verb) == 1 or (len(verb) == 2 and verb[1] in _PARTICLES)):  # topped_up_on
        return f"When was {phrase} {' '.join(verb)}?"
    if len(verb) == 1 and verb[0].endswith("s") and not verb[0].endswith("ss"):  # expires, renews, starts
        return f"When does {phrase} {verb[0][:-1]}?"
    return None


#: Units a record earns its owner, asked as "How many miles did … earn me?".
_EARNED = frozenset({"miles", "points", "credits", "stars"})


def plain_question(phrase: str, column: str, kinds: dict[str, str]) -> str | None:
    """A value of a record asked as a person asks it, where the column's label need not be said: the
    record's one amount of money ("How much is my damage claim for the booking on April 6?"), a reward
    it earned ("How many miles did my mileage activity for the retail partner earn me?"). None for
    other columns, and for an amount beside another (a fee beside a deposit: "how much" cannot say
    which)."""
    kind = kinds.get(column)
    if kind == "money" and sum(k == "money" for k in kinds.values()) == 1:
        return f"How much is {phrase}?"
    words = column_words(column).split()
    if kind in ("integer", "quantity") and words and words[-1] in _EARNED and len(words) <= 2:
        return f"How many {' '.join(words)} did {phrase} earn me?"
    return None


#: Last words of a column that say what kind a record is, and what a person asks of one.
_KIND_WORDS = frozenset({"type", "kind", "category", "class"})


def kind_question(phrase: str, column: str) -> str | None:
    """A record's kind or how it was paid asked as a person asks it: ``payment_type`` gives "What
    kind of payment is my event payment …?", ``payment_method`` "What payment method did I use for
    my …?", not "What is the payment type of my …?" (a form's field). None for other columns."""
    words = column_words(column).split()
    if not words or not phrase.startswith("my "):
        return None
    if words[-1] in _KIND_WORDS:
        noun = " ".join(words[:-1])
        return f"What kind of {noun} is {phrase}?" if noun else f"What {words[-1]} is {phrase}?"
    if words[-1] == "method":
        return f"What {' '.join(words)} did I use for {phrase}?"
    return None


#: A field of one's own account as its owner calls it.
_OWN_FIELD = {"phone": "phone number", "email": "email address", "mobile": "mobile number", "pin": "PIN"}


def _field(what: str, phrase: str) -> str:
    """ "the delivery instructions of my grocery order"; on the account itself, "my phone number"."""
    return f"the {what} of {phrase}" if phrase else f"my {what}"


def _column_noun(column: str) -> str:
    """A column as a noun: ``lesson_at`` is the "lesson time", ``expected_on`` the "expected date"
    (the same words the quality report reads superlatives with)."""
    return column_words(column)


def column_noun(column: str) -> str:
    """A column as a noun a person uses ("lesson time" for ``lesson_at``)."""
    return _column_noun(column)


#: Users who act for someone else (a parent, a guardian): the persona is theirs, not the child's.
_FOR_OTHERS = ("parent", "guardian", "famil", "caregiver", "household")


#: Users who act for a business (a shipper, an importer, a dispatcher): no parent or student persona.
_FOR_BUSINESS = ("shipper", "importer", "dispatcher", "advertiser", "business", "client_contact", "seller")
#: Users who work for someone else: no small-business owner.
_EMPLOYED = ("employee", "worker", "candidate", "juror")


def _fits_role(persona: str, role: str) -> bool:
    low, role = persona.lower(), role.lower()
    if "student" in low and any(w in role for w in _FOR_OTHERS):
        return False
    if ("parent" in low or "student" in low) and any(w in role for w in _FOR_BUSINESS):
        return False  # "a busy parent" shipping freight (seed 89)
    return not ("business owner" in low and any(w in role for w in _EMPLOYED))


def _fits_history(persona: str, records: int | None) -> bool:
    if records is None:
        return True
    if "first-time" in persona:
        return records <= 1
    return records >= 3 if "frequent" in persona else True


class Phrasing:
    """Seeded, varied phrasings."""

    def __init__(self, rng: random.Random, today: date | None = None) -> None:
        self.rng = rng
        self.today = today  # a day of today's year is said without its year

    def persona(
        self, age: int | None = None, records: int | None = None, role: str = "", largest_amount: float = 0.0
    ) -> str:
        """A persona, one that fits the user's age, history and role where they are known: a first-time
        customer holds at most one record, a frequent one at least three; a parent booking tutoring
        for a child is no student (``role``: the name of the user's table, "parents"); a student on a
        tight budget holds no sum of thousands (``largest_amount``: a $198,409 building permit)."""
        fitting = [
            p
            for p, lo, hi in _PERSONAS
            if (age is None or lo <= age <= hi)
            and _fits_history(p, records)
            and _fits_role(p, role)
            and not ("tight budget" in p and largest_amount > _BUDGET_LIMIT)
        ]
        return self.rng.choice(fitting)

    def email_fact(self, email: str) -> str:
        """The sentence naming the user by email, drawn from many (:data:`EMAIL_FACTS`): a catalog
        where a fifth of the messages open "My email is" reads as one form, not as customers."""
        self.rng.choice(range(3))  # the draw of the three first forms, so the tasks after it stay as they were
        return random.Random(f"email|{email}").choice(EMAIL_FACTS).format(email=email)

    def name_fact(self, name: str, key: str, value: Any) -> str:
        what = "date of birth" if "birth" in key else _human(key)
        self.rng.choice(range(2))  # as in email_fact
        form = random.Random(f"name|{name}|{value}").choice(NAME_FACTS)
        return form.format(name=name, what=what, value=value)

    def record_name(self, entity: str, fragments: list[str], before: list[str] | None = None) -> str:
        """How a user names one of their records from its handles: "my loan from 2026-02-10 for the
        fiction book"; ``before``: what is said before the noun ("my premium economy booking")."""
        return " ".join(["my", *(before or []), entity, *fragments])

    def record_fact(self, phrase: str) -> str:
        return f"The request is about {phrase}."

    def _details(self, extra: dict[str, Any]) -> str:
        return "".join(f" {detail(k, v, self.today)}" for k, v in extra.items())

    def request(
        self, verb: str, phrase: str, extra: dict[str, Any], *, first: bool = True, motive: str | None = None
    ) -> str:
        """A request sentence: what to do, to which record, why (``motive``), with any details."""
        action = verb_phrase(verb, phrase)
        extra = dict(extra)
        said = ""
        shift = next((k for k in extra if _span(k) and isinstance(extra[k], int)), None)
        if shift is not None and (span := spanned(verb, _span(shift), extra[shift])):
            extra.pop(shift)  # "postpone my lesson by 2 days", "pause it for 14 days", not "I need 14 days."
            action, said = (action + span, "") if span[0] in " ," else (action, f" {span}")
        # the details belong to the request and come with it; the reason comes after them, so no
        # detail is left as a fragment after the reason ("… before I forget. A benefit amount of $38.65.")
        details = said + self._details(extra) + (f" {motive}" if motive else "")
        if not first:
            return (
                self.rng.choice(
                    [f"Then please also {action}.", f"After that, {action}.", f"I'd also like to {action}."]
                )
                + details
            )
        return (
            self.rng.choice(
                [
                    f"I'd like to {action}.",
                    f"Could you please {action}?",
                    f"Please {action}.",
                    f"I need you to {action}.",
                ]
            )
            + details
        )

    def create_request(
        self, description: str, about: list[str], details: dict[str, Any], *, first: bool, motive: str | None = None
    ) -> str:
        """A request for a new record, from the create's description, with the records it is for
        (``about``) inside it and its details before the reason: "I'd like to book a seat for flight
        AW1234. The cabin should be economy."; never "It is for the same tour booking." as a sentence
        of its own (measure 115)."""
        action = description.split(";")[0].split(", ")[0].rstrip(".")
        # the verb and its object, as a user says it ("book a tour"), not the tool's description of
        # what it is for ("book a tour of an apartment at a future time")
        words = action.split()
        cuts = [i for i, w in enumerate(words) if i >= 2 and (w in _QUALIFIERS or w.startswith("("))]
        # "ask a faculty member for a recommendation letter": asking someone, the first "for" or "to"
        # says what is asked (cut there, it asks nothing)
        asks_someone = words[:1] == ["Ask"] and len(words) > 1 and words[1] not in _QUALIFIERS
        if asks_someone and cuts and words[cuts[0]] in ("for", "to"):
            cuts = cuts[1:]
        cut = cuts[0] if cuts else len(words)
        action = " ".join(words[:cut])
        action = action[:1].lower() + action[1:]
        # "I'd also like to request to move a number" is a form's wording: the user would like to move
        # it (and not "Please attend a conference", which asks the agent to go)
        asked_for = re.match(r"^(?:request|ask|apply) to ", action) is not None
        action = re.sub(r"^(?:request|ask|apply) to ", "", action)
        lead = self.rng.choice(["I'd like to", "Could you", "Please"]) if first else "I'd also like to"
        lead = "I'd like to" if asked_for and first else lead
        words = action.split()
        named = about[0].split() if about else []
        same_noun = named[:1] == words[-1:] or (
            named[:1] == ["the"] and named[1:2] != ["same"] and named[-1:] == words[-1:]
        )
        if len(words) >= 3 and words[-2] in ("a", "an") and same_noun:
            # "reserve campsite SITE-013504302" and "reserve the cheapest tent campsite", not "reserve
            # a campsite for campsite SITE-013504302"
            action, about = " ".join([*words[:-2], about[0]]), about[1:]
        if about:
            action += " for " + " and ".join(about)
        text = f"{lead} {action}{'?' if lead == 'Could you' else '.'}" + self._details(details)
        return text + (f" {motive}" if motive else "")

    def update_request(self, column: str, phrase: str, value: Any, *, first: bool, motive: str | None = None) -> str:
        """A change of one field, with why (``motive``): "Please change the address of my account to 14
        Elm Street. I've just moved."."""
        why = f" {motive}" if motive else ""
        what = column_words(column)  # "the visit date", not "the visit on"
        if phrase == "my account":  # "my phone number", not "the phone of my account"
            what, phrase = _OWN_FIELD.get(what, what), ""
        if isinstance(value, bool):  # "turn off the autopay", not "change the autopay to False"
            return (
                f"{'Please' if first else 'Also, please'} turn {'on' if value else 'off'} {_field(what, phrase)}.{why}"
            )
        if not dictated(column, value):
            value = spoken_value(column, value, self.today)  # "to March 24 at 10 AM", "to $51.41"
        said = (
            self.rng.choice(  # drawn either way, so the tasks after this one do not change with the wording
                [
                    f"Please change {_field(what, phrase)} to {value}.",
                    f"I need {_field(what, phrase)} changed to {value}.",
                ]
            )
            if first
            else f"Also, please change {_field(what, phrase)} to {value}."
        )
        if dictated(column, value):  # 'Please change the bio of my profile to "I teach piano."'
            return f"{'Please' if first else 'Also, please'} change {_field(what, phrase)} to {quoted(value)}{why}"
        return said + why

    def ask_value(self, column: str, *, each: bool = False) -> str:
        """The question for a value the writes leave; ``each``: of every record the writes changed it on."""
        if each:
            return self.rng.choice(
                [
                    f"Afterwards, tell me the new {_human(column)} of each.",
                    f"Also, what is the {_human(column)} of each after that?",
                ]
            )
        return self.rng.choice(
            [f"Afterwards, tell me my new {_human(column)}.", f"Also, what is my {_human(column)} after that?"]
        )

    def ask_what_if(self, action: str, what: str) -> str:
        """A question about what an action would do, without asking for it."""
        return self.rng.choice(
            [
                f"If I were to {action}, what would my {what} be afterwards? Don't do it yet, I just want to know.",
                f"Before I decide: what would my {what} come to if I {action}? Please don't change anything.",
            ]
        )

    def ask_total(self, column: str, which: str) -> str:
        """A question about a sum over several records: "What is the total amount of my open fines?"."""
        what = _column_noun(column)
        return self.rng.choice(
            [
                f"What is the total {what} of my {which}?",
                f"Can you add up the {what} of all my {which} for me?",
                f"How much is the {what} of my {which} altogether?",
            ]
        )

    def ask_record_value(self, phrase: str, column: str, kinds: dict[str, str] | None = None) -> str:
        """A question of one value of the record ``phrase`` names. With the record's attribute
        ``kinds``, an amount it is the only one of is asked as "How much is my damage claim for the
        booking on April 6?" and a reward earned as "How many miles did my … earn me?", not by the
        column's label chained onto the record's ("the miles of my mileage activity for …")."""
        what, of = _column_noun(column), phrase
        if phrase == "my account":  # "what is my points balance?"
            what, of = _OWN_FIELD.get(what, what), ""
        choices = [
            f"What is {_field(what, of)}?",
            f"Can you tell me {_field(what, of)}?",
            f"I just need to know {_field(what, of)}.",
        ]
        question = record_question(phrase, column)
        picked = self.rng.choice(choices)  # drawn either way, so the tasks after this one do not change
        return question or plain_question(phrase, column, kinds or {}) or kind_question(phrase, column) or picked

    def param_value(self, name: str, schema: dict[str, Any], verb: str | None = None) -> Any:
        """A value a user gives for a tool's parameter; a reason for transition ``verb`` is one that
        fits it (:mod:`.motives`: "I'm travelling for a few weeks." to pause, not "Plans changed")."""
        t = schema.get("type")
        if t == "number":
            return round(self.rng.uniform(5, 60), 2)
        if t == "integer":
            return self.rng.randint(max(1, schema.get("minimum", 1)), schema.get("maximum", 5))
        if t == "boolean":
            return True
        if "reason" in name or "note" in name or "comment" in name:
            drawn = self.rng.choice(["Plans changed", "No longer needed", "Found a better option", "Moving away"])
            fitting = transition_motive(verb, drawn, refused=True) if verb else None  # claims nothing of the record
            return fitting or drawn
        for words, values in _FREE_TEXT:
            if any(w in name for w in words):
                return self.rng.choice(values)
        return self.rng.choice(["Please handle this with care", "Nothing special", "Call me first"])

    def instruction(self, facts: list[str], requests: list[str]) -> str:
        opening = self.rng.choice(_OPENINGS)
        body = [*facts, *requests]
        if opening and body and not body[0].startswith(("I ", "I'")):  # "Hello, my email is ..."
            body[0] = body[0][0].lower() + body[0][1:]
        parts = [opening, *body, self.rng.choice(_CLOSINGS)]
        return " ".join(p for p in parts if p)
