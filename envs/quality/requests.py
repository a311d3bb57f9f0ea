"""How a user's request reads: with a reason for it, and with its details in a person's words.

Read from the instruction (the user's first message) alone (docs/synthesis.md, "Quality report"):

* ``motive_requests`` / ``requests_without_motive``: tasks that ask for an action (a write, or a
  request the agent must refuse), and those whose instruction gives no reason for it
  (:func:`has_motive`); every user scenario of tau2-bench has one ("I'm moving", "the trip was
  cancelled"), and a request without one reads like a form ("I need you to pause my subscription.").
* ``form_dictated_tasks``: instructions that give a detail as a form's field and value ("Please make
  the project type roof.", "I'd like the method to be check.", "The valuation is 5017.17.");
* ``column_named_tasks``: instructions that name a record by a column and its value ("my appeal
  whose hearing date is 2026-02-17", "my order with price per guest 123.09");
* ``iso_date_tasks``: instructions with a date written as ``YYYY-MM-DD``, where a person says the day
  ("February 17");
* ``unknown_value_named_tasks`` (measure 63): instructions that name the user's record by a column
  its owner does not know it by, or a superlative of one ("my appointment with estimate 316.37",
  "my card with the highest current balance"; :mod:`.record_names`);
* ``label_voiced_tasks`` (measure 86): instructions that read a field's label or its catch-all value
  out as the user's own words: "For the share percent, it's 10.", "They're my other.", "It's a van
  vehicle." (a person says "They should get 10% of it.", "They're not a relative of mine.", "It's
  a van.");
* ``form_choice_tasks`` (measure 64): instructions that give a detail as a choice off a form: "I'd
  go with jeep for the make.", "Slow speed symptom, please." (a person says "It's a Jeep.", "The
  internet has been really slow.").
* ``stitched_tasks`` (measure 115): instructions stitched from parts of a request: the record a new
  one is for said in a sentence of its own ("I'd also like to ask for a room arrangement. It is for
  the same tour booking."), or a reason that says only that a request goes with the one before ("It
  belongs with it, so I'd rather do both now."); a person says "a twin room for the same tour
  booking" and gives the reason once.
* ``miscounted_tasks`` (measure 117): instructions that say a count of one with a plural noun ("We'll
  be 1 people.", "I'd like 1 hours returned.", "1 extra nights"); the word before the count is in
  lower case, so a day ("April 1 works for me") or a name ("Pod 1") is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..formats.task import Task
from .record_names import names_by_unknown_value

#: Words that join a reason to a request: "…, because my plans changed", "now that I'm back".
_REASON_WORDS = re.compile(
    r"\b(?:because|since|so that|now that|due to|no longer|any ?more|came up|turned out|turns out|fell through|"
    r"(?:plans|things|circumstances|situation|needs) (?:have |has )?changed|found (?:a better|another)|moving away)\b",
    re.IGNORECASE,
)
#: How a sentence about the user's circumstances starts ("I'm travelling …", "My plans changed.",
#: "It arrived damaged.", "Something came up.").
_SUBJECT = re.compile(
    r"^(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our|it|it's|there's|things|something|money|the|a|this|that|"
    r"they|work)\b",
    re.IGNORECASE,
)
#: Words of a request, a question, an identifying fact or a detail: no sentence with one is a reason.
_NOT_A_REASON = re.compile(
    r"\b(?:please|could you|can you|would you|i'd like|i would like|i want to|i need you|i need to|i'd also|"
    r"tell me|let me know|afterwards|the request is about|my email|the account email|you can find me|my name|"
    r"it is for|it's for|don't go ahead|what would|what is)\b|[?\"\d@]",
    re.IGNORECASE,
)
_DETAIL = re.compile(r"^the (?:[\w'-]+ ){1,4}(?:is|are|should be)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_QUOTE = re.compile(r'"([^"]+)"')

#: A detail given as a form's field and value.
_FORM_DETAIL = re.compile(
    r"\bplease make the (?:[a-z_]+ ){1,4}[\w$].*?\.(?:\s|$)|\bi'd like the (?:[a-z_]+ ){1,4}to be\b|"
    r"\bthe (?:[a-z_]+ ){1,3}is (?:\$?[\d,.:\- ]+|(?-i:[a-z_]+))\.(?:\s|$)",
    re.IGNORECASE,
)
#: A record named by a column and its value.
_COLUMN_NAMED = re.compile(r"\bwhose (?:[a-z_]+ ){1,4}is\b|\bwith (?:[a-z_]+ ){1,3}\$?\d[\d,.\-]*\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
#: A value picked for a field: "I'd go with jeep for the make.", "Slow speed symptom, please."
_FORM_CHOICE = re.compile(r"\b(?i:i'd go with) [^.]+ for the [a-z ]+\.|(?:^|[.!?] )[A-Z][a-z]*(?: [a-z]+)+, please\.")

#: A field's label or catch-all value voiced: "For the share percent, it's 10.", "They're my other.",
#: "It's a van vehicle." (a kind said with the noun it is a kind of).
_LABEL_VOICED = re.compile(
    r"\bFor the [a-z ]+, it's [\d.,]+\.|\bThey're my other\.|\bIt's an? [\w ]+ (?:vehicle|device|appliance)\."
)

#: A record said in a sentence of its own after its request, or a reason that is only "it goes with it".
_STITCHED = re.compile(
    r"(?:^|[.!?]\s)It is for\b|\b(?:It belongs with it|It goes with what I just asked about|"
    r"everything for it is in one place|I'd rather sort it all out in one go)\b"
)

#: A one said with a plural noun, after at most one word that qualifies it ("1 extra hours"); group 1
#: is the word before the count, group 2 the noun.
_ONE_WITH_PLURAL = re.compile(r"\b([A-Za-z']+) 1 (?:[a-z]+ )?(people|children|[a-z]*[^\Wsiu]s)\b")
#: Words after a count that end in -s and are no plural noun: "1 as personal", "1 works for me".
_NOT_PLURALS = frozenset({"as", "was", "has", "does", "goes", "works", "suits", "needs", "comes", "takes", "makes"})


@dataclass
class RequestCounts:
    motive_requests: int = 0
    requests_without_motive: int = 0
    form_dictated_tasks: int = 0
    column_named_tasks: int = 0
    iso_date_tasks: int = 0
    unknown_value_named_tasks: int = 0
    form_choice_tasks: int = 0
    label_voiced_tasks: int = 0
    stitched_tasks: int = 0
    miscounted_tasks: int = 0


def has_motive(text: str) -> bool:
    """Whether ``text`` gives a reason for what it asks: words that join one ("because", "no longer")
    or a sentence about the user's circumstances, which asks, identifies and details nothing ("I'm
    travelling for a few weeks.", "It arrived damaged."), said or dictated as a quoted reason; a
    greeting or a thank-you is none."""
    if _REASON_WORDS.search(text):
        return True
    dictated = [q for q in _QUOTE.findall(text) if len(q.split()) >= 3]  # 'the reason is "I'm moving."'
    for sentence in [*_SENTENCES.split(text.strip()), *dictated]:
        sentence = re.sub(
            r"^(?:hi|hello|hey|hi there|good morning|good afternoon|ok|so|well),?\s+", "", sentence, flags=re.I
        )
        if _SUBJECT.match(sentence) and not _NOT_A_REASON.search(sentence) and not _DETAIL.match(sentence):
            return True
    return False


def is_stitched(text: str) -> bool:
    """Whether ``text`` names a new record's parent in a sentence of its own, or gives a reason that
    says only that a request goes with the one before (measure 115)."""
    return _STITCHED.search(text) is not None


def miscounts(text: str) -> bool:
    """Whether ``text`` says a count of one with a plural noun ("We'll be 1 people."; measure 117)."""
    return any(m[1].islower() and m[2] not in _NOT_PLURALS for m in _ONE_WITH_PLURAL.finditer(text))


def dictates_form(text: str) -> bool:
    """Whether ``text`` gives a detail as a field and its value ("The valuation is 5017.17.")."""
    return _FORM_DETAIL.search(text) is not None


def names_by_column(text: str) -> bool:
    """Whether ``text`` names a record by a column and its value ("whose refunded date is …")."""
    return _COLUMN_NAMED.search(text) is not None


def request_counts(tasks: list[Task]) -> RequestCounts:
    """Measure the instructions of ``tasks``."""
    out = RequestCounts()
    for task in tasks:
        text = task.instruction
        if task.expects_change or task.refusals:
            out.motive_requests += 1
            out.requests_without_motive += not has_motive(text)
        out.form_dictated_tasks += dictates_form(text)
        out.column_named_tasks += names_by_column(text)
        out.iso_date_tasks += _ISO_DATE.search(text) is not None
        out.unknown_value_named_tasks += names_by_unknown_value(text)
        out.form_choice_tasks += _FORM_CHOICE.search(text) is not None
        out.label_voiced_tasks += _LABEL_VOICED.search(text) is not None
        out.stitched_tasks += is_stitched(text)
        out.miscounted_tasks += miscounts(text)
    return out
