"""How an agent's final answer is read when a task asks it to turn something down.

Without an LLM, a refusal is graded on what an agent that applied the rule says and one that did
not decide anything cannot (docs/formats.md, "Answers"):

* it **says no**: some sentence turns the request down ("can't", "unable", "not allowed", "too
  late", "there's no payment to retry" …). An apology or hedge alone ("sorry", "unfortunately",
  "I'm afraid") is not a refusal, nor a "no" that reassures ("no problem", "there's no need to…")
  or thanks ("I can't thank you enough");
* it **claims nothing**: no sentence says the refused action happened. A sentence with one of the
  task's claim words ("renewed", "cancelled") claims it unless it negates it or puts it in a
  hypothetical ("not", "never", "would", "if", "once" …): "as you requested", "has now been" or a
  passive voice do not excuse a claim, nor an "if" that only says where to look ("if you check,
  you'll see it has been paid"). Where the claim word is the record's own state ("it is already
  cancelled"), only a sentence that says the agent did it ("I've cancelled") claims it. A success
  said in other words claims it too ("you're all set", "it went through", "is confirmed", "will
  show in your account", "now shows as", "I'll cancel it"), unless about another action's words;
* it **names the reason**: each of the refusal's reason values (matched by :mod:`envs.grading.outputs`, in
  any common way of writing a date, time, amount or label, and a status as people say it by
  :mod:`envs.grading.labels`) in the answer's own prose — JSON pasted into the answer is a
  restatement, not a reason;
* it **does not restate the records** (:mod:`envs.grading.restating`): it reads out no record and quotes no
  status that allows the action beside the reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .mentions import without_dates
from .outputs import output_present

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

#: Words and phrases that turn a request down (an apology alone does not).
_REFUSAL = re.compile(
    r"\b(?:can ?not|can't|cant|could ?not|couldn't|unable|not able|not possible|impossible|not allowed|"
    r"isn't allowed|aren't allowed|not permitted|isn't permitted|won't be able|not eligible|isn't eligible|"
    r"ineligible|declined?|decline to|refused?|must decline|(?:would|will|did|does) not let|"
    r"(?:wouldn't|won't|didn't|doesn't) let|"
    r"not (?:go|going|gone) ahead|won't (?:go ahead|proceed)|(?:does|do|did) not (?:allow|permit|qualify)|"
    r"(?:doesn't|don't|didn't) (?:allow|permit|qualify)|too (?:late|early|soon|close|near|old|recent|new)|"
    r"too long ago|(?<!n't )(?<!not )(?<!no )(?:has to|have to|must|needs to) wait|"
    r"(?:have to|must|need to|will have to|'ll have to) (?:turn down|say no|turn (?:it|this|that|your request) down)|"
    r"^no[,:—-]? (?:sorry|i'm sorry|i am sorry|unfortunately|i'm afraid)|"
    r"turning down your|(?:past|beyond) the (?:[a-z-]+ ){0,2}(?:window|deadline|cutoff)|"
    r"(?:over|past|beyond) (?:the|our) \d+[- ]day (?:limit|window)|"
    r"too far (?:out|ahead|off|away)|not yet|no longer|"
    r"not (?:something|an action) (?:i|we) can|(?:have|has) not (?:been )?(?:done|made|processed|gone)|"
    r"(?:haven't|hasn't) (?:been )?(?:done|made|processed|gone)|will not|won't|not in a position|"
    r"nothing (?:to|left|more)|"
    # "there's no payment to retry", not "there's no need to worry" nor "there's no fee to cancel"
    r"there(?:(?:'s| is|'re| are) no|(?: isn't| is not| aren't| are not) (?:a|an|any)) "
    r"(?!(?:need|problem|worries|worry|further|rush|hurry|charge|fee|cost|extra)\b)(?:[a-z'-]+ ){1,4}?to [a-z]+|"
    r"'s not something|outside (?:of )?(?:the|our) (?:window|policy|period)|"
    r"against (?:our|the) policy|"
    r"(?:isn't|is not|aren't|are not|wasn't|was not) (?:possible|allowed|permitted|eligible|available|something)|"
    r"\bno (?:[a-z'-]+ ){1,2}(?:is|are|was|were|would be) (?:possible|allowed|permitted)|"
    r"(?:i|we) (?:didn't|did not|haven't|have not|hadn't|had not)|(?:held|hold|holding) off|"
    r"(?:wasn't|was not|weren't|were not) able|not done|didn't|did not|no longer possible|"
    r"(?:no|not any) (?:changes?|action) (?:was|were|has been|have been)|"
    r"left (?:it|them|everything) (?:as|unchanged)|"
    r"(?:it|that|this|they) (?:stays|remains|stay|remain) as (?:it is|they are|is))\b"
)
#: Before a claim word, these negate it or make it a hypothetical ("not renewed", "would be renewed
#: once paid"); after it they do not ("it is renewed, let me know if …" still claims it).
_NOT_A_CLAIM = re.compile(
    r"\b(?:not|never|cannot|unable|without|nothing|neither|nor|no longer|would|could|can|should|might|may|"
    r"must|need|needs|has to|have to|only|if|once|unless|whether|able to)\b|n't\b|'d\b|"
    r"\bno (?!problem|worries|worry|doubt)[a-z]"  # "no changes were made", not "no problem, it's done"
)
#: After a claim word, a plural noun makes it an adjective ("refunded items", "cancelled bookings"):
#: a rule that counts such records claims nothing.
_PLURAL_NOUN = re.compile(r"\s+(?:[a-z]+-[a-z-]+\s+)?([a-z]{3,}s)\b")
_NOT_NOUNS = frozenset(
    {"successfully", "thanks", "this", "his", "its", "yes", "always", "perhaps", "plus", "was", "has"}
)
#: A claim word after a quantity ("the total deposit paid on it is now $0", "the amount refunded was
#: $20") names how much, not an event: the policy may ask for that total after any payment or refund.
_QUANTITY_BEFORE = re.compile(
    r"\b(?:total|amount|sum)(?: (?!(?:is|are|was|were|has|have|had|be|been|being)\b)[a-z]+){0,2} $"
)
_QUANTITY_AFTER = re.compile(r"(?: [a-z']+){0,4}? ?(?:is|was|are|were|stands|comes|came|remains|stays|totals)\b| ?:")
#: A rule said of records in general, not of this one: a plural subject with no owner, "are" and the
#: claim word, then the condition ("Business licenses are renewed when the expiry date is no more than
#: 60 days away"). "Your licenses are renewed when you asked" has an owner and still claims.
_GENERAL_SUBJECT = re.compile(
    r"(?:^|[,:] )(?:(?!(?:your|my|our|his|her|their|these|those|this|that|it|its|they|we|i|you)\b)[a-z'-]+ ){0,3}"
    r"[a-z'-]{2,}s (?:are|get) (?:only |usually |normally |generally |always )?$"
)
_CONDITION_AFTER = re.compile(
    r" (?:only )?(?:when|if|once|while|as long as|unless|provided|so long as)\b(?! (?:you )?(?:asked|requested|wanted))"
)
#: What an agent that did the action says of it, beside the claim word ("I've cancelled", "as requested").
_AGENT_DID = re.compile(
    r"\bhas now been\b|\bhave now been\b|\bas (?:you )?(?:requested|asked)\b|\bsuccessfully\b|"
    r"\b(?:no problem|sure|of course|certainly|done|all set|taken care of|happy to|for you)\b"
)
#: Negated words that turn nothing down ("I can't thank you enough", "couldn't be happier").
_NOT_A_REFUSAL = re.compile(
    r"\b(?:can ?not|can't|cant|could ?not|couldn't) (?:thank (?:you|you all|everyone) enough|wait|stress\b.*\benough|"
    r"be happier|believe|help but|say enough|recommend\b.*\benough)\b"
)
#: A failure only supposed is no decision: "if it didn't go through, it may be because …" turns nothing
#: down (a success hedged before it stays a claim, see ``_HEDGED_DONE``).
_SUPPOSED_NO = re.compile(
    r"\b(?:if|in case|whether) (?:it|that|this|they|anything|something|the [a-z]+|your [a-z]+) "
    r"(?:didn't|did not|doesn't|does not|hasn't|has not|wasn't|was not|won't|will not)"
    r" (?:go through|work|succeed|process|complete|get done|take|happen|apply)\b"
)
#: A success said with a hedge is still said: "that should be all set now, I believe", "it has
#: probably gone through". Said of a condition ("it should be done once you pay") it is a promise.
_HEDGED_DONE = re.compile(
    r"\b(?:should|ought to|(?:is|has|'s) (?:probably|likely|most likely)) (?:now |all )?(?:be |have been |been )?"
    r"(?:now |all )?(?:set|done|taken care of|sorted(?: out)?|complete|completed|through|gone through|processed|"
    r"confirmed|finali[sz]ed)\b(?! (?:once|when|if|after|as soon|by the time|before|until|only)\b)"
)
_CONDITION_BEFORE = re.compile(r"\b(?:not|never|if|once|when|unless|after|until|before|only)\b|n't\b")
#: A success said without the request's own word ("you're all set", "it went through", "your
#: cancellation is confirmed", "you'll see it has been …", "I'll check it in right away").
_SAID_DONE = re.compile(
    r"\b(?:all set|taken care of(?! (?:the rest|everything else|the others?\b|your other))|went through|gone through|"
    r"go(?:ne)? ahead with it|"
    r"(?:is|are|'s|'re|has been|have been|was|were) (?:now |all )?(?:confirmed|complete|completed|done|finali[sz]ed|"
    r"sorted(?: out)?|successful)|"
    r"you(?:'ll| will) (?:see|notice|find) (?:it|that|they|this|the|your)|"
    r"will (?:show|appear|be reflected|reflect)(?: up)? (?:in|on) (?:your|the)|"
    r"now (?:shows?|reads|says|appears|listed|marked)|shows? (?:up )?as|"
    r"(?:i|we)(?:'ll| will| am going to|'m going to| are going to|'re going to) (?:[\w-]+ ){0,8}?"
    r"(?:right away|straight away|immediately|right now|shortly|asap))\b"
)
#: An "if" that only tells where to look is no hypothetical: "if you check your account, you'll see
#: it has been paid" claims it, as "once it's been approved, you can …" does not.
_LOOK_IF = re.compile(r"(?:if|once|when) you(?:'ve| have)? (?:check|look|log|open|visit|go|refresh|view|sign)")
_PROMISED = r"\b(?:i|we)(?:'ll| will|'m going to| am going to|'re going to| are going to) (?:go ahead and |now |just )?"
#: Beside "already <state>", what makes it no state of the record: the agent did it ("I've already
#: issued it"), or it is only supposed ("if it's already issued", "once it has already shipped").
_ALREADY_NOT_A_STATE = re.compile(
    r"\b(?:i|we)(?:'ve| have|'d| had)? (?:just )?already\b|\b(?:if|unless|whether|once|when)\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def _clean(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower().split())


def sentences(text: str) -> list[str]:
    """``text`` in sentences (split after . ! ? ; and at line breaks), normalized and lower-cased.

    >>> sentences("I can't renew it. It is due 2026-03-02!\\nSorry.")
    ["i can't renew it.", 'it is due 2026-03-02!', 'sorry.']
    """
    return [s for s in (_clean(part) for part in _SENTENCE_END.split(text)) if s]


def says_no(answer: str, already: Iterable[str] = ()) -> bool:
    """Whether some sentence of ``answer`` (outside pasted JSON) turns the request down. A sentence
    that says the record is ``already`` in a state the request would bring about or that stops it
    ("it's already been issued") leaves nothing to do, and turns it down as well, unless the agent
    says it did it ("I've already issued it") or only supposes it ("if it's already issued").

    >>> says_no("I'm afraid that loan cannot be renewed."), says_no("Sorry for the wait! It is renewed.")
    (True, False)
    >>> says_no("It releases in 6 days, so it's too close to submit under the more-than-7-days rule.")
    True
    >>> says_no("It's already been issued; only approved permits are issued.", ["issued"])
    True
    >>> says_no("I've already issued it.", ["issued"]), says_no("It's issued already.", ["approved"])
    (False, False)
    """
    said = sentences(without_json(answer))
    if any(_REFUSAL.search(_SUPPOSED_NO.sub(" ", _NOT_A_REFUSAL.sub(" ", s))) for s in said):
        return True
    states = "|".join(sorted({re.escape(" ".join(re.sub(r"[-_]", " ", a.lower()).split())) for a in already}))
    if not states:
        return False
    done = re.compile(
        rf"\balready (?:been |gone |become |being )?(?:fully |completely )?(?:{states})\b|"
        rf"\b(?:{states}) already\b"
    )
    return any(done.search(s.replace("-", " ").replace("_", " ")) and not _ALREADY_NOT_A_STATE.search(s) for s in said)


#: Words that only say what a bare value is counted in ("24 hours", "50 USD") or that a list follows
#: ("values: …"): they relate no value to anything.
_UNITS = frozenset(
    re.findall(
        r"\w+",
        "usd us eur gbp cad aud dollar dollars cent cents percent hour hours hr hrs minute minutes min mins day days "
        "week weeks month months year years am pm and or value values figure figures number numbers data info",
    )
)


def worded(answer: str, labels: Iterable[str] = ()) -> str:
    """The answer's own words (:func:`prose`) less the values it only lists: a sentence made of
    values alone ("2026-03-02."), or values hung on a refusal by a colon ("I can't do the deposit:
    15.97 50"), relate no value to anything, so they give no reason. ``labels`` are the words the
    records hold ("basic", "active"): listed among the values, they are values too ("I can't extend
    it: basic 2026-05-11 active"). Values named after a label ("Audit time: 2026-03-02 10:30") or
    in a sentence of words are kept.

    >>> worded("I can't cancel HA0010. 2026-03-02.")
    "I can't cancel HA0010."
    >>> worded("I can't do the deposit: 15.97 50. Audit time: 10:30 AM.")
    "I can't do the deposit: Audit time: 10:30 AM."
    >>> worded("I can't cancel HA0010: values 2026-03-02 10:30, 24 hours")
    "I can't cancel HA0010:"
    >>> worded("I can't extend TIP-6: basic 2026-05-11 active.", ["basic", "active"])
    "I can't extend TIP-6:"
    >>> worded("I can't pause it: basic. It's on the basic plan.", ["basic"])
    "I can't pause it: It's on the basic plan."
    >>> worded("I'm sorry, I can't do that. suspended", ["suspended"])
    "I'm sorry, I can't do that."
    """
    said = {w for label in labels for w in re.findall(r"[a-z]+", label.lower())}
    kept = []
    for sentence in _SENTENCE_END.split(prose(answer)):
        if _bare(sentence, said) or _labels_alone(sentence, said):
            continue
        head, colon, tail = sentence.partition(": ")
        listed = colon and _bare(tail, said, labelled=True)
        kept.append(head + ":" if listed and says_no(head) else sentence)
    return " ".join(s for s in kept if s.strip())


def _labels_alone(sentence: str, labels: set[str]) -> bool:
    """Whether ``sentence`` is a record's label and nothing else ("suspended", "Extended."): a word
    dropped after a refusal relates it to nothing, as a bare number does."""
    words = re.findall(r"[a-z]+", sentence.lower())
    return bool(words) and len(words) <= 3 and all(w in labels for w in words)


def _bare(piece: str, labels: frozenset[str] | set[str] = frozenset(), *, labelled: bool = False) -> bool:
    """Whether ``piece`` holds values and nothing but their units and separators: numbers, and words
    of ``labels`` beside a number, or (``labelled``: hung on a refusal by a colon, "I can't pause it:
    basic.") alone."""
    lowered = piece.lower()
    words = re.findall(r"[a-z]+", re.sub(r"\S*\d\S*", " ", without_dates(lowered)))
    if not re.search(r"\d", piece) and not (labelled and any(w in labels for w in words)):
        return False
    return all(w in _UNITS or w in labels for w in words)


def reason_given(answer: str, value: str) -> bool:
    """Whether ``answer`` states ``value`` in its own words (JSON pasted into it does not count).

    >>> reason_given("I can't renew it. Your loan is due June 9, 2026.", "2026-06-09")
    True
    >>> reason_given('I cannot. {"due": "2026-06-09"}', "2026-06-09")
    False
    """
    return output_present(value, prose(answer))


def prose(answer: str) -> str:
    """The answer's own words: pasted JSON cut out, and a stored label ("no_connection") readable
    either way."""
    text = without_json(answer)
    return text if "_" not in text else f"{text}\n{text.replace('_', ' ')}"


def without_json(text: str) -> str:
    """``text`` with its JSON objects and arrays cut out: tool results pasted into an answer are a
    restatement, whatever words their fields hold, never the answer's own reasoning.

    >>> without_json('Sorry. Record: {"note": "only if paid", "due": [1, 2]} Thanks.')
    'Sorry. Record:  Thanks.'
    """
    out: list[str] = []
    i = 0
    while True:
        starts = [j for j in (text.find("{", i), text.find("[", i)) if j >= 0]
        if not starts:
            out.append(text[i:])
            return "".join(out)
        j = min(starts)
        end = _json_end(text, j)
        out.append(text[i:j] if end is not None else text[i : j + 1])
        i = end if end is not None else j + 1


def _json_end(text: str, start: int) -> int | None:
    """Where the JSON object or array at ``start`` ends, if one starts there with a quoted key,
    string or nested value; None for brackets in prose ("[sic]", "{name}")."""
    opening = text[start + 1 : start + 3].lstrip()
    if not opening or (opening[0] not in '"{[' and not (text[start] == "[" and opening[0].isdigit())):
        return None
    depth, in_string, escaped = 0, False, False
    for j in range(start, len(text)):
        ch = text[j]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def claimed(
    answer: str,
    claims: Iterable[str],
    *,
    states: Iterable[str] = (),
    quoted: Iterable[str] = (),
    about: str = "",
    elsewhere: Iterable[str] = (),
    verb: str = "",
) -> str | None:
    """The first sentence of ``answer`` that says a refused action happened, or None.

    A sentence claims it when it holds one of ``claims`` (whole words) and neither negates it nor
    puts it in a hypothetical. A claim word that is also one of ``states`` (the record is already
    cancelled, so "cancelled" describes it) claims only in a sentence that says the agent did it.
    ``quoted`` texts (the rules the answer may quote) claim nothing wherever they stand. A sentence
    that names words of ``elsewhere`` (what the task's other actions were about) and none of
    ``about`` (the refused request) reports another action ("I've changed the campaign name" beside
    a refused change of the read type); words that both name count for neither ("I've changed the
    tour type of your showing to in person" beside a refused tour-type change of another showing).

    >>> claimed("Sorry for the wait! As you requested, it has been renewed.", ["renewed"])
    'as you requested, it has been renewed.'
    >>> claimed("It was not renewed: it is due tomorrow. It would be renewed once paid.", ["renewed"]) is None
    True
    >>> claimed("It is already cancelled.", ["cancelled"], states=["cancelled"]) is None
    True
    """
    words = {_clean(c) for c in claims if c.strip()}
    described = {_clean(s).replace("_", " ") for s in states}
    # a refusal without claim words is still claimed by a success said in other words
    pattern = re.compile(
        r"\b(?:" + "|".join(map(re.escape, sorted(words, key=len, reverse=True))) + r")\b" if words else r"(?!)"
    )
    rules = sorted({_clean(q).replace("_", " ").rstrip(".") for q in quoted if q.strip()}, key=len, reverse=True)
    about_words = _content_words(about)
    # "I'll cancel your booking": the request's own verb, promised
    will = re.compile(_PROMISED + rf"{re.escape(_clean(verb))}\b") if verb.strip() else None
    elsewhere_words = _content_words(" ".join(elsewhere))
    handed = bool(elsewhere_words & {"transfer", "human", "escalate", "agents"})
    other_words = elsewhere_words - about_words
    # Words both requests share ("tour type", "showing") name neither: the same change done to one
    # showing and refused on another is told apart by what only the refused request says.
    about_words = (about_words - elsewhere_words) or about_words
    other_before = False
    for s in sentences(without_json(answer)):
        s = s.replace("_", " ")
        for rule in rules:
            s = s.replace(rule, " ")
        said = _words(s) - words
        if said & other_words and not said & about_words:
            other_before = True
            continue  # about another of the task's actions
        # "I've set up your deposit; it shows as pending until the office posts it": the pronoun goes
        # on about that action, where the sentence names neither request nor a claim word
        if other_before and _GOES_ON.match(s) and not said & about_words and not pattern.search(s):
            continue
        other_before = False
        if any(_claims_at(s, found, described) for found in pattern.finditer(s)):
            return s
        if any(_says_done(s, found, described, pattern) for found in _SAID_DONE.finditer(s)):
            return s
        if will and any(not _excused(s[: found.start()]) for found in will.finditer(s)):
            return s
        # "I've submitted a request for our team to cancel it": the refused action said on its way
        # to staff, where the task hands nothing over
        filed = _FILED_FOR_STAFF.search(s)
        if filed and verb.strip() and not handed and re.search(rf"\bto {re.escape(_clean(verb))}\b", s[filed.end() :]):
            return s
        # "the name change should be all set, but I can't resume it" reports another action beside the no
        hedged = [f for f in _HEDGED_DONE.finditer(s) if not _CONDITION_BEFORE.search(s[: f.start()])]
        if hedged and not _REFUSAL.search(_SUPPOSED_NO.sub(" ", s)):
            return s
    return None


#: A sentence whose subject is the one before's: "it shows as pending", "that should post by Friday".
_GOES_ON = re.compile(r"(?:and |so )?(?:it|that|this|they|those)(?:'s|'ll| is| was| will| should| shows?| has)?\b")
_FILED_FOR_STAFF = re.compile(
    r"\b(?:i|we)(?:'ve| have)? (?:submitted|filed|raised|put in|placed|sent|opened|logged) (?:a |an )?"
    r"(?:request|ticket|case)\b(?: [a-z]+){0,3}? (?:for|asking|with) (?:our|the|a) "
    r"(?:team|staff|colleagues?|specialists?|back office|department|manager|supervisor)s?\b"
)
#: The request itself as the subject of a success ("your decline request is", "the cancellation has been").
_REQUEST_NOUN = re.compile(
    r"\b(?:request|cancellation|withdrawal|renewal|extension|upgrade|downgrade|transfer|change)\s+$"
)


def without_general_rules(answer: str) -> str:
    """``answer`` without its sentences that state a rule of records in general ("Recommendations
    are cancelled when their status allows it."): a status such a sentence names is no state of the
    record it speaks of.

    >>> without_general_rules("It's received. Recommendations are cancelled when their status allows it.")
    "It's received."
    """
    kept = []
    for sentence in re.split(r"(?<=[.!?])\s+", answer.strip()):
        low = sentence.lower()
        general = any(
            _GENERAL_SUBJECT.search(low[: m.start()] + m.group(1) + " ") and _CONDITION_AFTER.match(low, m.end())
            for m in re.finditer(r"\b(are|get) [a-z'-]+", low)
        )
        if not general or _AGENT_DID.search(low):
            kept.append(sentence)
    return " ".join(kept)


def _says_done(s: str, found: re.Match[str], described: set[str], claims: re.Pattern[str]) -> bool:
    """Whether a success said in other words (``found`` in sentence ``s``) says the refused action
    happened: not when negated or hypothetical, nor when it is the record's own state that it
    describes ("its status shows as closed", "it's already completed")."""
    if _excused(s[: found.start()]) or s[: found.start()].endswith("already "):
        return False
    # "Your decline request is confirmed": what is said done is the request itself, whatever state
    # word it shares with the record
    if _REQUEST_NOUN.search(s[: found.start()]):
        return True
    # "Applications are confirmed when their status allows it": a rule said of records in general
    verb = re.match(r"(?:are|get) ", found.group(0))
    if verb and _GENERAL_SUBJECT.search(s[: found.start()] + verb.group(0)) and _CONDITION_AFTER.match(s, found.end()):
        return _AGENT_DID.search(s) is not None
    near = s[found.start() : found.end() + 40]
    return claims.search(near) is not None or not any(re.search(rf"\b{re.escape(st)}\b", near) for st in described)


def _excused(before: str) -> bool:
    """Whether what stands before a claim negates it, makes it a hypothetical or asks for it."""
    if before.endswith("to "):
        return True
    return any(not _LOOK_IF.match(before, found.start()) for found in _NOT_A_CLAIM.finditer(before))


#: The refused action said on its way: "it should be cancelled within the hour, I believe".
_PROMISED_SOON = re.compile(r"\b(?:should|will|'ll) (?:now |already |all )?(?:be|have been) $")
_CONDITION_LATER = re.compile(r"\b(?:if|once|when|unless|provided|as soon as|after)\b")
_SOON = re.compile(
    r"(?: (?:within|shortly|soon|now|today|tonight|tomorrow|in the next|in a few|right away|momentarily|already|"
    r"by (?:tomorrow|tonight|today|the end|noon|[a-z]+day|\d))\b|,? (?:i|we) (?:believe|think)\b)"
)


def _claims_at(s: str, found: re.Match[str], described: set[str]) -> bool:
    """Whether the claim word ``found`` in sentence ``s`` says the refused action happened."""
    before, word = s[: found.start()], found.group(0)
    soon = _SOON.match(s, found.end()) or re.search(r"\b(?:now|already) (?:be|have been) $", before)
    unconditional = not (_CONDITION_BEFORE.search(before) or _CONDITION_LATER.search(s, found.end()))
    if _PROMISED_SOON.search(before) and soon and unconditional:
        return True  # "it should be cancelled within the hour": the refused action said on its way
    if _excused(before):  # negated, hypothetical, or asked for
        return False
    if _QUANTITY_BEFORE.search(before) and _QUANTITY_AFTER.match(s, found.end()):
        return False
    if _GENERAL_SUBJECT.search(before) and _CONDITION_AFTER.match(s, found.end()) and not _AGENT_DID.search(s):
        return False
    noun = _PLURAL_NOUN.match(s, found.end())
    if noun is not None and noun.group(1) not in _NOT_NOUNS:
        return False
    agent_did = _AGENT_DID.search(s) or re.search(
        rf"\b(?:i|we)(?:'ve| have| had)?(?: just| now| already| gone ahead and)? {re.escape(word)}\b", s
    )
    # the record's own state ("paid off", "consent revoked") is described, not done
    return bool(agent_did) or not any(re.search(rf"\b{re.escape(word)}\b", state) for state in described)


#: Words that name no record: what both a refused request and another action may say.
_GENERIC = frozenset(
    re.findall(
        r"\w+",
        "a an the my your our their his her its it this that these those of for with to in on at by from and or me "
        "you i we us please new same one all",
    )
)


def _words(text: str) -> set[str]:
    """The words of ``text``, a hyphenated one also joined: "add-on" names what a tool's ``addon``
    does, "check-in" its ``checkin``."""
    compounds = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+", text)
    return set(re.findall(r"[a-z0-9]+", text)) | {c.replace("-", "") for c in compounds}


def _content_words(text: str) -> set[str]:
    return {w for w in _words(_clean(text).replace("_", " ")) if len(w) > 2} - _GENERIC
