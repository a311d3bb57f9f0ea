"""What the answer on a task that made writes may not say (docs/formats.md, "Answers").

A write task's answer is free in form: a confirmation, a summary, or nothing at all. Two things it
may not do:

* :func:`denied_writes` — tell the user the asked action was not done, after it was: "I'm sorry, I
  can't do that.", "I wasn't able to add the liftgate", "No changes were made". A side remark that
  turns down something else ("I can't refund the booking fee, though"), a limit said of the future
  ("it can't be rescheduled again") and what the user does on their own device ("I can't change your
  phone's settings for you") say nothing of the writes made;
* :func:`old_values` and :func:`stated_as_current` — state, as the current value, the value an asked
  output had before the task's writes changed it: "your credit available is 14,433.71" where it is now
  14,358.71, or both listed bare ("14,433.71, 14,358.71") with nothing telling which is which. Said as
  what it was ("went from 14,433.71 to 14,358.71", "previously $14,433.71", "14,433.71 → 14,358.71")
  it is no answer, and passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .answers import sentences, without_json
from .mentions import parse_value
from .outputs import Reading, as_number
from .reports import turned_down

#: Other verbs an agent reports a tool's verb with ("booked" for ``create_visit``).
_SAME_AS = {
    "create": ("create", "book", "schedule", "set up", "make", "open", "submit", "file", "place", "register", "log"),
    "update": ("update", "change", "edit", "modify", "set"),
    "add": ("add", "attach"),
    "remove": ("remove", "delete", "take off"),
    "transfer": ("transfer", "pass", "hand", "escalate", "forward", "connect", "refer"),
    "pay": ("pay", "settle"),
    "reschedule": ("reschedule", "move"),
}
_IRREGULAR = {
    "pay": "paid", "make": "made", "set": "set", "put": "put", "send": "sent", "hold": "held", "take": "taken",
    "give": "given", "buy": "bought", "withdraw": "withdrawn", "freeze": "frozen", "unfreeze": "unfrozen",
    "do": "done", "undo": "undone", "run": "run", "reset": "reset", "split": "split", "keep": "kept",
}  # fmt: skip
_DOUBLED = frozenset(
    [
        "cancel",
        "drop",
        "ship",
        "skip",
        "unskip",
        "flag",
        "opt",
        "swap",
        "stop",
        "plan",
        "submit",
        "refer",
        "transfer",
        "permit",
        "admit",
        "commit",
        "tip",
        "ban",
        "bar",
        "tag",
        "plug",
        "unplug",
        "step",
    ]
)
#: The agent, then a negation before the verb: "I can't", "we weren't able to", "I haven't yet".
_FIRST_PERSON_NO = re.compile(
    r"\b(?:i|we)(?:'m|'ve|'d|'ll)?(?: (?:am|have|had|was|were|really|just|also|still|unfortunately|actually|simply))*"
    r" (?:can't|cannot|can not|couldn't|could not|didn't|did not|haven't|have not|hadn't|had not|won't|will not|"
    r"wasn't|was not|weren't|were not|am not|'m not|unable|not)"
    r"(?: (?:be|been|able|to|go|ahead|and|yet|actually|successfully|get|fully|manage|managed|allowed|permitted))* $"
)
#: A negated passive before the participle: "it wasn't added", "it hasn't been rescheduled yet".
_PASSIVE_NO = re.compile(
    r"\b(?:wasn't|was not|weren't|were not|isn't|is not|aren't|are not|hasn't|has not|haven't|have not|"
    r"couldn't|could not|can't|cannot|never|not)(?: (?:yet|been|be|actually|successfully|able to be))* $"
)
#: What makes a negated verb no denial of the writes made: another thing, again, or later.
_ELSEWHERE = re.compile(
    r"\b(?:else|other|another|again|further|anymore|any more|additional|extra|more|later|future|after|once|until|"
    r"without|unless|if|yourself|on your (?:end|side|device|phone))\b"
)
#: The whole request said not done, whatever it was: "no changes were made", "I left everything as it was".
_NOTHING_DONE = re.compile(
    r"\b(?:no changes? (?:was|were|has been|have been|got) made|nothing (?:was|has been|got) (?:changed|done|updated)|"
    r"(?:i|we) (?:didn't|did not|haven't|have not) (?:change|do|make|update) anything|"
    r"(?:i|we) (?:left|kept) (?:it|them|everything) (?:as|unchanged|the same)|"
    r"(?:it|everything|they) (?:stays|remains|stay|remain) (?:as (?:it was|it is|they were|is)|unchanged)|"
    r"(?:i|we)(?:'m|'ve| am| have| was| were)? (?:can't|cannot|couldn't|could not|wasn't|was not|weren't|were not|"
    r"unable|not|haven't|have not|didn't|did not)(?: (?:be|been|able|to|yet|actually|successfully|manage|managed))* "
    r"(?:process|complete|handle|do|fulfil|fulfill|carry out|fix|resolve|solve|sort out|help with|make) "
    r"(?:your|the|this|that|it|these|those|any)\b|"
    # the change said unsure, not in force or failed: "I'm not certain it went through", "the change
    # hasn't taken effect", "the system failed to update your address", "I don't think I updated it"
    r"not (?:certain|sure) (?:it|that|this|they|the [a-z]+ |your [a-z]+ )?(?:went through|worked|was [a-z]+ed)|"
    r"(?:it|that|this|they|the change|the update) (?:might|may) not have (?:been|gone|worked)|"
    r"(?:it|that|the change|the update) (?:hasn't|has not|didn't|did not) taken? effect(?! yet| until| before| on)|"
    r"(?:is|are) still (?:showing |listed )?as (?:it|they) (?:was|were)|"
    r"still (?:shows?|showing) as (?:it|they) (?:was|were)|"
    r"(?:don't|do not) think (?:i|we) [a-z]+ed|(?:the )?system (?:failed|was unable|wasn't able|couldn't|could not)|"
    r"(?:i|we) failed to (?:[a-z]+ ){1,2}(?:your|the|it|this|that)\b|"
    # the request said against the policy as a whole: "our policy does not allow it"
    r"(?:policy|policies|rules?) (?:does not|doesn't|do not|don't|won't|will not|would not|wouldn't) "
    r"(?:allow|permit|let (?:me|us)(?: do)?) (?:it|that|this|them|the change|your request|the request)\b)"
)


#: The writes said handed to someone else: "I've escalated this to our team", "I've submitted a
#: request; they'll take it from here". Where the agent made them, that misreports them.
_HANDED_OFF = re.compile(
    r"\b(?:i|we)(?:'ve| have)? (?:escalated|passed|handed|forwarded|referred|submitted|sent|raised) "
    r"(?:this|it|that|your request|the request|your case|a request|a ticket)\b"
    r"(?: (?:on|over|along))?(?: to| for| and|;|,)"
)


def _forms(verb: str) -> list[str]:
    """``verb`` as written in any tense: "cancel", "cancels", "cancelled", "canceled", "cancelling"."""
    head, _, particle = verb.partition(" ")
    tail = f" {particle}" if particle else ""
    if head in _IRREGULAR:
        done = [_IRREGULAR[head]] + ([head + "ed"] if head in ("pay",) else [])
        ing = [head + "ing"]
    elif head.endswith("e"):
        done, ing = [head + "d"], [head[:-1] + "ing"]
    elif re.search(r"[^aeiou]y$", head):
        done, ing = [head[:-1] + "ied"], [head + "ing"]
    elif head in _DOUBLED or re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", head):
        done, ing = [head + head[-1] + "ed", head + "ed"], [head + head[-1] + "ing", head + "ing"]
    else:
        done, ing = [head + "ed"], [head + "ing"]
    plural = head + ("es" if re.search(r"(?:s|sh|ch|x|z)$", head) else "s")
    return [f"{w}{tail}" for w in dict.fromkeys([head, plural, *done, *ing])]


def write_verbs(tools: Iterable[str]) -> list[str]:
    """The verbs an answer reports the agent's own writes with: each tool's leading word ("add" of
    ``add_liftgate_freight_shipment``, "check in" and "check" of ``check_in_booking``: "pay" of
    ``pay_in_full_bill`` is no "pay in") and its everyday equals."""
    out: list[str] = []
    for tool in tools:
        words = tool.split("_")
        particle = len(words) > 2 and words[1] in ("in", "out", "up", "off", "back")
        out += [*([f"{words[0]} {words[1]}"] if particle else []), words[0], *_SAME_AS.get(words[0], ())]
    return list(dict.fromkeys(out))


def denied_writes(answer: str, agent_tools: Iterable[str]) -> str | None:
    """The first sentence of ``answer`` that says the task's writes were not made, or None: a bare
    turn-down of the request ("I'm sorry, I can't do that."), the whole of it said undone ("no changes
    were made"), or a verb of the agent's own writes (``agent_tools``' names, see :func:`write_verbs`)
    negated with the agent as its subject or in the passive, in a sentence that names what a write acts
    on or says "it" or "your" after the verb ("I wasn't able to add the liftgate", "your visit hasn't
    been booked", "I couldn't cancel it", "I couldn't reinstate your account"). A negated verb about
    something else, again or later ("I can't change the cabin", "it can't be moved again") is none.

    >>> denied_writes("Done — your booking is cancelled. I can't refund the booking fee, though.", ["cancel_booking"])
    >>> denied_writes("I'm sorry, I wasn't able to cancel your booking.", ["cancel_booking"])
    "i'm sorry, i wasn't able to cancel your booking."
    """
    bare = turned_down(answer)
    if bare is not None:
        return bare
    tools = list(agent_tools)
    forms = sorted({f for v in write_verbs(tools) for f in _forms(v.lower())}, key=len, reverse=True)
    verb = re.compile(r"\b(?:" + "|".join(map(re.escape, forms)) + r")\b") if forms else None
    objects = _objects(tools)
    # where the task hands nothing over, "I've escalated this to our team" says the writes were not made
    hand_over_denies = not any(t.startswith("transfer") for t in tools)
    for s in sentences(without_json(answer)):
        if _ELSEWHERE.search(s):
            continue
        if _NOTHING_DONE.search(s) or (hand_over_denies and _HANDED_OFF.search(s)):
            return s
        named = bool(set(re.findall(r"[a-z]+", s)) & objects)
        for found in verb.finditer(s) if verb else ():
            before = s[: found.start()]
            if not (named or _IT_AFTER.match(s, found.end())):
                continue
            if _FIRST_PERSON_NO.search(before) or _PASSIVE_NO.search(before[-40:]):
                return s
    return None


#: After a negated verb, the thing done said as "it" or as the user's: "I couldn't cancel it", "I wasn't
#: able to reinstate your account" (a record named in words no tool's name holds).
_IT_AFTER = re.compile(r" (?:it|them|that|this|so|you|your)\b")


def _objects(tools: Iterable[str]) -> set[str]:
    """The words of what the tools act on, singular and plural ("liftgate", "shipment", "shipments")."""
    words = {w for t in tools for w in t.split("_")[1:] if len(w) > 2 and w not in ("for", "the", "and", "from")}
    return words | {w + "s" for w in words} | {w[:-1] for w in words if w.endswith("s")}


def old_values(
    rows: Mapping[tuple[str, Any], tuple[Any, Any]], outputs: Iterable[str], writes: Iterable[tuple[Any, Any]] = ()
) -> list[str]:
    """The values the required ``outputs`` (numbers and dates) had before the writes changed them:
    for each row the writes changed (``rows``: expected and initial row by table and key), the initial
    value of each column whose new value is an output. An old value an output also states is none, nor
    one the ``writes`` (arguments and result of each) sent or returned as another field (the past-due
    amount paid, equal to the balance it cleared): the answer reports it as that. The changed column
    shown by a write's result before a later write changed it again is still the old value.

    >>> rows = {("accounts", ("A1",)): ({"balance": 0.0}, {"balance": 120.0})}
    >>> old_values(rows, ["0.00"]), old_values(rows, ["0.00"], [({"amount": 120.0}, {"paid": True})])
    (['120.0'], [])
    """
    asked = [o for o in outputs if as_number(o) is not None or parse_value(o.strip()) is not None]
    found: dict[str, str] = {}
    for after, before in rows.values():
        if not isinstance(after, dict) or not isinstance(before, dict):
            continue
        for col, new in after.items():
            old = before.get(col)
            if old is None or new is None or old == new or isinstance(new, bool):
                continue
            if any(Reading(str(new)).states(o) and Reading(o).states(str(new)) for o in asked):
                found.setdefault(str(old), col)
    sent = [(k, v) for pair in writes for part in pair for k, v in _scalars(part)]
    return [
        v
        for v, col in found.items()
        if not any(Reading(o).states(v) for o in outputs)
        and not any(k != col and Reading(str(x)).states(v) and Reading(v).states(str(x)) for k, x in sent)
    ]


def _scalars(data: Any, key: str = "") -> list[tuple[str, Any]]:
    """Every scalar in ``data`` with the field name it stands under."""
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _scalars(v, str(k))]
    if isinstance(data, list):
        return [p for v in data for p in _scalars(v, key)]
    return [] if data is None or isinstance(data, bool) else [(key, data)]


#: Words that say a value is what it was: "from", "previously", "your old credit of", "(was …)".
_BEFORE_CUE = re.compile(
    r"\b(?:from|was|were|previously|formerly|originally|had been|used to be|prior|old|earlier|instead of|"
    r"rather than|replacing|replaced)\b",
    re.IGNORECASE,
)
#: After a value, what says it was the old one: "14,433.71 → 14,358.71", "$90 before the change".
_AFTER_CUE = re.compile(r"\s*\)?\s*(?:→|->|=>|⇒|\bbefore\b|\bpreviously\b|\bearlier\b|\bbeforehand\b|\boriginally\b)")
#: What may stand between a cue and its value: a few words, none of which says "now".
_BETWEEN = re.compile(r"^(?:[ :$]*(?![Nn]ow\b|is\b|are\b|stands\b)[\w'$-]+){0,3}?[ :]*$")
_MAX_GAP = 40


def stated_as_current(text: str, old: str) -> bool:
    """Whether ``text`` states ``old`` other than as what a value was before: each mention of it after
    a word such as "from", "was" or "previously" (at most three words between) or before an arrow or
    "before" is cut out first.

    >>> stated_as_current("Your credit went from 14,433.71 to 14,358.71.", "14433.71")
    False
    >>> stated_as_current("Credit available: 14,433.71, 14,358.71.", "14433.71")
    True
    """
    spans: list[tuple[int, int]] = []
    for cue in _BEFORE_CUE.finditer(text):
        start = cue.end()
        for end in range(start + 1, min(len(text), start + _MAX_GAP) + 1):
            if end < len(text) and (text[end].isalnum() or text[end] in ",.") and not text[end - 1].isspace():
                continue  # cut at word ends only
            piece = text[start:end]
            if Reading(piece).states(old):
                value = _value_start(piece, old)
                if _BETWEEN.match(piece[:value]):
                    spans.append((cue.start(), end))
                break
    for cue in _AFTER_CUE.finditer(text):
        for start in range(max(0, cue.start() - _MAX_GAP), cue.start()):
            if start and not text[start - 1].isspace():
                continue
            if Reading(text[start : cue.start()]).states(old):
                spans.append((start, cue.start()))
                break
    kept = text
    for start, end in sorted(spans, reverse=True):
        kept = kept[:start] + " " + kept[end:]
    return Reading(kept).states(old)


def _value_start(piece: str, old: str) -> int:
    """Where, in ``piece`` (which states ``old``), the words stating it begin."""
    at = 0
    while at < len(piece) and Reading(piece[at:]).states(old):
        nxt = piece.find(" ", at + 1)
        if nxt < 0 or not Reading(piece[nxt:]).states(old):
            return at
        at = nxt
    return at
