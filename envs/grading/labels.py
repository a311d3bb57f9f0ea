"""Status labels as people say them, and as they are not.

A record's status is stored as a label (``disputed``, ``under_review``, ``past_due``, ``filed``); an
agent says it in words. Three readings follow (docs/formats.md, "Answers"):

* :func:`phrasings` — the ways a label is said: "under review" is also "in review" and "being
  reviewed" (a state *under* or *in* a process is that process going on), and a short table gives
  the phrasings no rule derives ("disputed" is "under dispute", "past due" is "overdue");
* :func:`label_stated` — whether a text says a record is in the state a label names. Where the
  label is the participle of the request's own verb ("cancelled" for "cancel my order"), the word
  after "can't be", "to be" or "can't get it" restates the request, not the state: "it can't be
  cancelled" gives no reason, "it has already been cancelled" does;
* :func:`label_named` — whether a text names a label as a status, for distractors: a label that is
  also an ordinary verb ("filed") used as a verb, in the passive followed by when, where or by whom
  ("was filed when the goods arrived", "has been filed by your broker") or in the active with an
  object ("I filed it"), names no status; nor does a label said to be denied ("via a job board, not
  through a recruiter", "rather than a recruiter", "A recruiter? No"); every other use does
  ("status: filed", "is filed", "filed, duty_due, cleared").

A label that is a short phrase with a number ("continuous 1 month") is said with the number in words
or digits, hyphenated or not, and its words in any order within a span as long as the phrase and one
word more ("a one-month continuous pass").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .mentions import parse_value
from .outputs import Reading, as_number, normalize

#: Phrasings of one state that no rule derives from the label's words, each group said any of its ways.
_SAME_STATE: tuple[tuple[str, ...], ...] = (
    ("disputed", "under dispute", "in dispute"),
    ("appealed", "under appeal"),
    ("past due", "overdue"),
    ("in progress", "underway", "under way"),
    ("in collections", "with collections", "sent to collections"),
)
_PROCESS = re.compile(r"(?:in|under) ([a-z]+)")
#: A thing and what was done to it ("delivery attempted", "payment received"); not a manner or a
#: state word first ("partially shipped", "not started", "past due").
_DONE_TO = re.compile(r"(?!(?:not|non|un|in|under|over|past|pre|re|self|auto)\b)([a-z]{3,}(?<!ly)) ([a-z]{3,}ed)")
_ALREADY = ("", "already ", "just ")
#: Before a participle, what makes it the request restated ("can't be cancelled", "to be disputed").
_REQUESTED = re.compile(
    r"\b(?:can|ca|cannot|could|will|wo|would|should|must|may|might|to)(?:n't| not)? "
    r"(?:be|get|have)(?: (?:it|them|this|that|these|those))?(?: [a-z]+ly| again| now| yet)? $"
)
#: After a participle used as a verb: when, where, by whom or how it was done.
_EVENT = re.compile(
    r"(?:,? (?:when|on|at|by|in|with|after|before|from|upon|through|via|for|since|during|as soon as|once|"
    r"yesterday|today|earlier|last|back|already|just|electronically|online)\b| \d)"
)
#: Before a participle, what makes it how the request came, not the record's state: "as you requested".
_AS_ASKED = re.compile(r"\bas (?:you|you've|you have|you had|was|we|i)(?: already| just| originally)? $")
_PASSIVE = re.compile(r"\b(?:was|were|been|being|got|had|have|has|'ve|'d)(?: (?:already|just|originally|first))? $")
_ACTIVE_OBJECT = re.compile(r" (?:it|them|the|your|a|an|this|that|my|our|his|her|their)\b")
_ACTIVE_SUBJECT = re.compile(r"\b(?:i|we|you|they|he|she|broker|agent|team)(?: (?:already|just|originally|first))? $")
#: Verbs whose participle no suffix makes ("pay my citation" is refused on a citation already paid).
_IRREGULAR = {
    "pay": "paid", "prepay": "prepaid", "hold": "held", "send": "sent", "make": "made", "withdraw": "withdrawn",
    "take": "taken", "give": "given", "do": "done", "write": "written", "sell": "sold", "keep": "kept",
    "leave": "left", "lose": "lost", "buy": "bought", "freeze": "frozen", "lend": "lent", "spend": "spent",
}  # fmt: skip
_IRREGULAR_PARTICIPLES = frozenset(_IRREGULAR.values())


def _words(text: str) -> str:
    """Normalized text with hyphens and underscores as spaces and "-elled" spelt "-eled"."""
    return re.sub(r"(?<=[a-z]e)ll(?=ed\b|ing\b)", "l", " ".join(re.sub(r"[-_]", " ", normalize(text)).split()))


def _participle(verb: str) -> str:
    return verb + ("d" if verb.endswith("e") else "ed")


def phrasings(label: str) -> set[str]:
    """The ways ``label`` is said, normalized (spaces for underscores, "canceled" for "cancelled").

    >>> sorted(phrasings("under_review"))
    ['being reviewed', 'in review', 'under review']
    >>> sorted(phrasings("disputed"))
    ['disputed', 'in dispute', 'under dispute']
    """
    said = _words(label)
    out = {said}
    if m := _PROCESS.fullmatch(said):  # a process going on: "under review", "in review", "being reviewed"
        out |= {f"in {m[1]}", f"under {m[1]}", f"being {_participle(m[1])}"}
    if m := _DONE_TO.fullmatch(said):  # "a delivery was attempted", "a delivery attempt was already made"
        thing, done, verb = m[1], m[2], m[2].removesuffix("ed")
        out.add(f"{done} {thing}")
        for adverb in _ALREADY:
            out |= {f"{thing} was {adverb}{done}", *(f"{thing} {had} {adverb}been {done}" for had in ("has", "had"))}
            if verb.endswith("t"):  # a verb that is its own noun: an attempt, a request, a deposit
                out |= {f"{thing} {verb} was {adverb}made", f"{thing} {verb} has {adverb}been made"}
    for group in _SAME_STATE:
        if said in group:
            out |= set(group)
    return out


def _occurrences(needle: str, text: str) -> Iterable[int]:
    """Where ``needle`` starts in ``text`` with no word character glued to either side."""
    for m in re.finditer(rf"(?<![\w]){re.escape(needle)}(?![\w])", text):
        yield m.start()


def _of_request(label: str, request: str, claims: Iterable[str]) -> bool:
    """Whether ``label`` is the participle of the request's verb ("cancelled" of "cancel my order")."""
    said = _words(label)
    verb = _words(request).split(" ", 1)[0] if request.strip() else ""
    stem = verb[:-1] if verb.endswith("e") else verb
    head = said.split(" ")[0]
    return (
        said in {_words(c) for c in claims}
        or (len(stem) >= 3 and head.startswith(stem))
        or head == _IRREGULAR.get(verb)
    )


#: Numbers a label's phrase may hold, as people write them in words.
_NUMBER_NAMES = dict(
    enumerate(re.findall(r"\w+", "zero one two three four five six seven eight nine ten eleven twelve"))
)
#: How many words a label phrase with a number may have to be read in any order: longer phrases are
#: names, said as written.
_MAX_PHRASE_WORDS = 4


def _number_phrase_said(said: str, label: str) -> bool:
    """Whether ``said`` (normalized by :func:`_words`) holds every word of ``label``, a short phrase
    with a number, within a span one word longer than the phrase, the number in digits or words."""
    tokens = _words(label).split()
    if not 2 <= len(tokens) <= _MAX_PHRASE_WORDS or not any(t.isdigit() for t in tokens):
        return False
    accepted = [{t, _NUMBER_NAMES.get(int(t), t)} if t.isdigit() else {t} for t in tokens]
    words = re.findall(r"[a-z0-9]+", said)
    span = len(tokens) + 1
    for start in range(len(words)):
        window = words[start : start + span]
        if all(any(w in forms for w in window) for forms in accepted):
            return True
    return False


def label_stated(
    text: str, label: str, *, request: str = "", claims: Iterable[str] = (), also: Iterable[str] = ()
) -> bool:
    """Whether ``text`` says a record is in the state ``label`` names, in any of its :func:`phrasings`;
    the participle of the ``request``'s own verb (or one of its ``claims``) counts only outside the
    request restated ("can't be cancelled"). ``also`` are everyday words its column lets name it
    (:mod:`envs.grading.everyday`): they count where they are neither denied ("not paid in full") nor
    the request restated ("can't be picked up").

    >>> label_stated("It's already under dispute, so our team is reviewing it.", "disputed", request="dispute it")
    True
    >>> label_stated("I'm sorry, it can't be disputed.", "disputed", request="dispute my stay")
    False
    >>> label_stated("I can't reschedule your delivery, as you requested.", "requested", request="reschedule it")
    False
    """
    said = _words(text)
    restated = _of_request(label, request, claims)
    for phrase in phrasings(label):
        for at in _occurrences(phrase, said):
            before = said[max(0, at - 40) : at]
            if not ((restated and _REQUESTED.search(before)) or _AS_ASKED.search(before)):
                return True
    for phrase in {_words(p) for p in also} - phrasings(label):
        for at in _occurrences(phrase, said):
            before = said[max(0, at - 60) : at]
            if not (_REQUESTED.search(before[-40:]) or _DENIED_BEFORE.search(before)):
                return True
    return _number_phrase_said(said, label)


def _ordinary_verb(label: str) -> bool:
    said = _words(label)
    return re.fullmatch(r"[a-z]+ed", said) is not None or said in _IRREGULAR_PARTICIPLES


#: Before a value, what denies it: "not through a recruiter", "rather than the premium plan".
_DENIED_BEFORE = re.compile(
    r"\b(?:not|never|no longer|isn't|aren't|wasn't|rather than|instead of)"
    r"(?: (?:through|via|by|from|in|on|at|a|an|the|to|for|with|as|of|"
    r"your|its|their|our|my|any))* $"
)
#: After a value, what denies it: "A recruiter? No, a job board."
_DENIED_AFTER = re.compile(r"[\s\"')]*\?[\s\"')]*(?:no|nope|not)\b")
#: A value denied, to cut out of a text: the denial, its small words, and a date or one value after it.
_DENIED_VALUE = re.compile(
    _DENIED_BEFORE.pattern.removesuffix(" $")
    + r" (?:[a-z]+ \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?|[^\s,;:!?()]+?)(?=[\s,;:!?()]|\.(?:\s|$)|$)"
)


#: Several words denied together: "not a deposit or balance payment", "neither pending nor open".
_DENIED_LIST = re.compile(
    r"\b(?:not|neither|never) (?:an? |the )?[a-z]+(?:,? (?:or|nor) (?:an? |the )?[a-z]+)+\b", re.IGNORECASE
)


def without_denied_lists(text: str) -> str:
    """``text`` less the words it denies together ("not a deposit or balance payment").

    >>> without_denied_lists("It was a refund, not a deposit or balance payment.")
    'It was a refund,  payment.'
    """
    return _DENIED_LIST.sub("", text)


def without_denied(text: str) -> str:
    """``text`` less the values it says are not the case ("$40, not $50" keeps "$40"): a wrong value
    denied is not stated.

    >>> without_denied("It was $40, not $50; never 2026-03-02. Not June 9, 2026 either.")
    'it was $40, ; . either.'
    >>> without_denied("It was a refund, not a deposit or balance payment.")
    'it was a refund, payment.'
    """
    flat = " ".join(text.split()).replace("_", " ").lower()
    return _DENIED_VALUE.sub("", _DENIED_LIST.sub("", flat)).replace("  ", " ")


#: A clause that says what it names was left out of what the answer gives: "$136.07 isn't included".
_LEFT_OUT = re.compile(
    r"\b(?:(?:is|are|was|were)(?:n't| not) (?:included|counted)|not (?:included|counted)|excluded|excluding|"
    r"not including|leaving out|left out|(?:did|do|does|have|has)(?:n't| not) (?:include|count|add)(?:ed)?|omitted)\b",
    re.IGNORECASE,
)
#: A left-out clause that points back at the clause before it: "…was cancelled, so I haven't counted it".
_POINTS_BACK = re.compile(
    r"^\s*(?:and |so |which is why |that's why )(?:.*)\b(?:it|them|that one|those)\b", re.IGNORECASE
)
_CLAUSES = re.compile(r"(?<=[.;!?:])\s+|,\s+(?!\d)|\s+[—–-]{1,2}\s+")


def without_excluded(text: str) -> str:
    """``text`` less its clauses that say what they name was left out: "$378.20 in total; your
    cancelled booking's $136.07 deposit isn't included" gives $378.20 and states no $136.07. A value
    said only as left out is neither the answer nor a distractor given as one; the clause alone goes
    (up to its comma), so "The total, excluding the cancelled one, is $378.20" keeps its total.

    >>> without_excluded("That's $378.20 in total; your cancelled booking's $136.07 isn't included.")
    "That's $378.20 in total; "
    >>> without_excluded("The total, excluding the cancelled $136.07, is $378.20 as of June 9, 2026.")
    'The total, , is $378.20 as of June 9, 2026.'
    >>> without_excluded("That's $805.80. The $296.09 one was cancelled, so I haven't counted it.")
    "That's $805.80. , "
    """
    if not _LEFT_OUT.search(text):
        return text
    out: list[str] = []
    last, listing = 0, False
    for sep in [*_CLAUSES.finditer(text), None]:
        a, b = (sep.start(), sep.end()) if sep else (len(text), len(text))
        clause = text[last:a]
        # "Not included: $136.07, $20.00." leaves out the whole list its colon opens
        left_out = listing or bool(_LEFT_OUT.search(clause))
        if left_out and len(out) >= 2 and _POINTS_BACK.search(clause):
            out[-2] = ""  # "the $296.09 one was cancelled, so I haven't counted it": that one is left out
        out.append("" if left_out else clause)
        out.append(text[a:b])  # the separator stays
        listing = left_out and (clause.rstrip().endswith(":") or listing) and not re.search(r"[.;!?]$", clause.rstrip())
        last = b
    return "".join(out)


#: One value said: an amount ("$1,083.44"), a date in words, or one word or token.
_ONE_VALUE = r"(?:-?\$?\d[\d,]*\d(?:\.\d+)?|[a-z]+ \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?|[^\s,;:!?()]+)"
#: A change said with its value before and after: "from $73.77 to $98.77", "was $73.77, now $98.77".
_CHANGE = re.compile(
    rf"\b(?:from|was) (?P<before>{_ONE_VALUE})"
    r",?(?: (?:and is|and it's|it's|it is|is))? (?:to|now) "
    rf"(?P<after>{_ONE_VALUE})",
    re.IGNORECASE,
)


def without_superseded(text: str, outputs: Iterable[str]) -> str:
    """``text`` less the before-values of changes whose after-value is one of ``outputs``: "your
    balance would go from $73.77 to $98.77" states $98.77 as the answer and $73.77 as what it was,
    so a wrong value said as the one an asked value replaces is not stated; a change to any other
    value keeps both.

    >>> without_superseded("It would go from $73.77 to $98.77.", ["98.77"])
    'It would go from  to $98.77.'
    >>> without_superseded("It was $73.77, now $98.77.", ["98.77"])
    'It was , now $98.77.'
    >>> without_superseded("It would go from $1,083.44 to $2,840.41.", ["2840.41"])
    'It would go from  to $2,840.41.'
    >>> without_superseded("It would go from $73.77 to $90.00.", ["98.77"])
    'It would go from $73.77 to $90.00.'
    """
    wanted = list(outputs)

    def cut(m: re.Match[str]) -> str:
        after = Reading(m["after"])
        if not any(after.states(v) for v in wanted):
            return m[0]
        return m[0][: m.start("before") - m.start()] + m[0][m.end("before") - m.start() :]

    return _CHANGE.sub(cut, text) if wanted else text


#: After a label, a thing it names, not a state: "the plan review fee", "the claims office".
_ATTRIBUTIVE = re.compile(r" (?:fee|fees|charge|charges|cost|costs|deposit|team|department|office|form|forms)\b")


def _denied(said: str, at: int, end: int) -> bool:
    return bool(_DENIED_BEFORE.search(said[max(0, at - 60) : at]) or _DENIED_AFTER.match(said, end))


def label_named(text: str, label: str) -> bool:
    """Whether ``text`` names ``label`` as a status (for a distractor): a label that is also an
    ordinary verb, used as one, does not count, nor one said not to be the case.

    >>> label_named("Your entry was filed when the goods arrived; its status is duty due.", "filed")
    False
    >>> label_named("Entries: filed, duty_due, cleared.", "filed"), label_named("Status: filed.", "filed")
    (True, True)
    >>> label_named("It came via a job board, not through a recruiter.", "recruiter")
    False
    >>> label_named("It's queued: payment went through, so it's no longer pending payment.", "pending payment")
    False
    >>> label_named("It was issued after the $250.00 plan review fee was paid.", "plan_review")
    False
    """
    said = _words(text)
    for at in _occurrences(_words(label), said):
        if _denied(said, at, at + len(_words(label))) or _ATTRIBUTIVE.match(said, at + len(_words(label))):
            continue
        if not _ordinary_verb(label):
            return True
        before, after = said[max(0, at - 40) : at], said[at + len(_words(label)) :]
        passive = _PASSIVE.search(before) and _EVENT.match(after)
        active = _ACTIVE_SUBJECT.search(before) and _ACTIVE_OBJECT.match(after)
        if not (passive or active):
            return True
    return False


def is_label(value: str) -> bool:
    """Whether ``value`` is said in words (a status, a name), not as a date, a time or an amount."""
    v = value.strip()
    return parse_value(v) is None and as_number(v) is None and re.fullmatch(r"\d{1,2}:\d{2}", v) is None


def value_stated(
    said: Reading, value: str, *, request: str = "", claims: Iterable[str] | None = (), also: Iterable[str] = ()
) -> bool:
    """Whether the text ``said`` reads states ``value``: a label by :func:`label_stated` (``also`` its
    column's everyday words for it), anything else as :class:`~envs.grading.outputs.Reading` reads it."""
    if is_label(value):
        return label_stated(said.text, value, request=request, claims=claims or (), also=also)
    return said.states(value)


def without_user_words(text: str, user: str, least: int = 4) -> str:
    """``text`` less every run of at least ``least`` words that the user said themselves: "the status
    of your order delivered on January 3 is placed" restates how the user named the order, so its
    "delivered" is not the agent stating that status.

    >>> without_user_words("The status of your order delivered on January 3 is placed.",
    ...                    "I need the status of my order delivered on January 3 at 1:15 PM.")
    'The status of your  is placed.'
    >>> without_user_words("It was delivered on January 3.", "my order from January 3")
    'It was delivered on January 3.'
    """
    said = " " + " ".join(re.findall(r"[a-z0-9:']+", user.lower())) + " "
    spans = [(m.start(), m.end(), m[0].lower()) for m in re.finditer(r"[A-Za-z0-9:']+", text)]
    cut: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        j = i + least
        while j <= len(spans) and f" {' '.join(w for _, _, w in spans[i:j])} " in said:
            j += 1
        if j - 1 - i >= least:
            cut.append((spans[i][0], spans[j - 2][1]))
            i = j - 1
        else:
            i += 1
    for start, end in reversed(cut):
        text = text[:start] + text[end:]
    return text
