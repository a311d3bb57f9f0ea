"""The checks of a refused request: turned down, for the stated reason, and decided.

A refusal passes when the answer says no, gives the reason's values (in any natural form), claims
nothing was done, and says nothing that leaves which value decided unsaid: records read out, values
of the reason's own kind beside it, statuses that would allow the action, figures of fields no rule
names. docs/formats.md, "Refusals", lists what passes and what fails.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine import Environment
from ..formats.task import Refusal, Task, ToolCall
from .answers import claimed, says_no, without_general_rules, worded
from .everyday import spec_readings
from .hedges import hedged_statuses
from .labels import is_label, value_stated
from .layouts import as_sentences
from .outputs import Reading
from .reassurance import refusal_gives_reason, without_kept_status
from .reports import acted_on, call_ids
from .restating import (
    MAX_RESTATED,
    AnswerContext,
    allowing_states,
    dumped_records,
    named_rivals,
    reason_labels,
    records_of,
    restated,
    rivals,
    shown_values,
    states_status,
    weighed_against,
)
from .results import CheckResult
from .spans import said_only_as_span
from .tied import bare_numbers, other_records_statuses, record_names
from .unasked import offered_payments, refused_key, reminders, unasked_figures

#: How many statuses of a status reason's own column, shown by no tool, an answer must name beside
#: the reason to leave unsaid which one stops the request (one shown by a tool is a rival alone).
MIN_LISTED_RIVALS = 2


def refusal_checks(task: Task, answer: str, env: Environment, results: list[Any]) -> list[CheckResult]:
    """One check per refused request of ``task``: the answer turns it down, gives the reason and
    nothing that leaves the decision unsaid (a claim, a read-out, rivals, allowing statuses)."""
    if not task.refusals:
        return []
    # a table row, a bullet or a "key: value" line states its value as the sentence it stands for
    answer = as_sentences(answer)
    context = AnswerContext.of(env.spec, task, results)
    acted = acted_on(env, task, results)  # what the allowed writes did is reported, not read out
    labels = {v for t in env.spec.tables for c in t.columns for v in c.enum or ()}
    # a reason is given in words: values only listed (the records' labels among them), or a sentence
    # of values alone, relate nothing
    listed = labels | {v for v in context.shown if is_label(v) and len(v.split()) <= 3}
    said = Reading(worded(answer, listed), today=env.spec.clock.date())
    extra = restated(answer, context.shown, context.allowed, context.words, env.spec.clock.date())
    # the user's words for a record and the reason itself are no reading of it out
    user = "\n".join(
        [task.instruction, *task.user.known_facts, *task.user.reveal_if_asked, *(r.request for r in task.refusals)]
    )
    # what the agent did (the gold writes' arguments and results) it may report too
    done_values = shown_values(
        [c.arguments for c in task.gold_actions if env.tools[c.tool].kind == "write"]
        + [r for c, r in zip(task.gold_actions, results, strict=False) if env.tools[c.tool].kind == "write"]
    )
    reasons = [v for r in task.refusals for v in r.reason]
    dumped = dumped_records(
        answer, context.reads, [*reasons, *done_values], user, names=call_ids(task), acted_on=acted, reasons_excuse=True
    )
    done = [_action_words(call) for call in task.gold_actions if env.tools[call.tool].kind == "write"]
    # the field the task also asks about names no request ("the add-on refund went through, so your
    # account credit is $59.39" beside a refused "reverse my account payment"): left out of the claims read
    unasked_of = _without_fields(answer, _asked_fields(context.reads, task.outputs))
    keys = [k for t in env.spec.tables for k in t.primary_key]  # a status said of another record: a list
    about = record_names(task.refusals, acted, user, context.reads, keys)
    out = []
    for refusal in task.refusals:
        tool = _refused_tool(env, refusal)
        rules = [r.text for r in env.spec.rules if r.tool == tool or r.id == refusal.rule]
        claim = claimed(
            unasked_of,
            refusal.claims,
            states=refusal.reason,
            quoted=rules,
            about=_request_words(refusal),
            elsewhere=done,
            verb=refusal.request.split()[0],
        )
        request, claims = refusal.request, refusal.claims
        deciding = [*rules, *(t.description for t in env.spec.tools if t.name == tool)]
        # a label said in its column's everyday words ("still unpaid" of an open bill), where they fit
        # no other value the rules would let through
        # a count said only as days or hours where the rule counts no time is the answer's promise
        missing = [
            v
            for v in refusal.reason
            if not value_stated(said, v, request=request, claims=claims, also=spec_readings(env.spec, v, deciding))
            or said_only_as_span(answer, v, deciding)
        ]
        cited = [r.text for r in env.spec.rules if r.tool == tool and r.id != refusal.rule and _quotes(answer, r.text)]
        # a reason's rivals are the other values its column could hold (a ticket's other statuses),
        # not another column's (its service type), nor what the gold writes sent
        own_kind = reason_labels(env.spec, refusal.reason)
        shown_rivals = rivals(extra, refusal.reason, own_kind, refusal.claims, context.allowed)
        # the statuses the action is allowed in (its description, its rules) may be said as the rule
        excused = "\n".join([*rules, context.words])
        said_rivals = named_rivals(answer, own_kind, refusal.reason, excused, refusal.claims, user)
        # one status of the policy said in passing is often another record's ("SP0025 was quoted, and
        # I've signed it"); a list of them beside the reason is not
        said_rivals = said_rivals if len(said_rivals) >= MIN_LISTED_RIVALS else []
        # the field a rule weighs the reason against is the other side of the reason, not its rival
        rule_text = next((r.text for r in env.spec.rules if r.id == refusal.rule), "")
        weighed = weighed_against(rule_text, context.reads, refused_key(refusal.call))
        rival = [v for v in dict.fromkeys([*shown_rivals, *said_rivals]) if v not in done_values | weighed]
        # the record said to be any of several of its column's statuses, the reason among them
        hedged = hedged_statuses(answer, own_kind, labels)
        # the record's status said as kept ("still scheduled, but I can't cancel it because …") reassures
        # where the refusal itself gives the reason; it is no reason
        kept = refusal_gives_reason(answer, refusal.reason, env.spec.clock.date(), request)
        general_free = without_general_rules(answer)  # "X are cancelled when …" names no state of this one
        allowing = [
            s
            for s in allowing_states(env.spec, refusal.call, refusal.reason, context.reads)
            if states_status(without_kept_status(general_free, s) if kept else general_free, s)
        ]
        # figures of fields no rule of the request names: the user's particulars, other rows', or a string
        figures = unasked_figures(
            extra,
            context.reads,
            [*rules, *(t.description for t in env.spec.tools if t.name == tool), *context.documents],
            refused_key(refusal.call),
            [*context.allowed, *refusal.reason],
            acted,
            offered_payments(answer),
            reminders(env.spec.policy),
        )
        error = None
        # "it's already been issued" of a request to issue it, or already in the reason's state
        if not says_no(answer, already=[*refusal.claims, *(v for v in refusal.reason if is_label(v))]):
            error = "the answer does not say it is turned down"
        elif claim is not None:
            error = f"the answer claims it was done: {claim!r}"
        elif missing:
            error = f"the answer does not give the reason {', '.join(missing)}"
        elif dumped:
            error = f"the answer reads out the records {', '.join(dumped)} instead of giving the reason"
        elif len(extra) > MAX_RESTATED:
            error = f"the answer restates {len(extra)} values the tools showed that are no reason: {', '.join(extra)}"
        elif figures:
            error = f"the answer reads out {', '.join(figures)}, of fields no rule of the request names"
        elif rival:
            error = (
                f"the answer gives {', '.join(rival)} beside the reason, of its own kind: which one decides is unsaid"
            )
        elif hedged:
            error = f"the answer says the record is any of {', '.join(hedged)}: which one it is, is unsaid"
        elif untied := other_records_statuses(answer, labels, about):
            error = (
                f"the answer gives statuses of {', '.join(untied)}, records it is not about: which decides is unsaid"
            )
        elif numbers := bare_numbers(answer):
            error = f"the answer lists figures ({numbers}) with no rule or field tied to any of them"
        elif cited:
            error = f"the answer cites rules that do not stop it ({'; '.join(cited)}) beside the one that does"
        elif allowing:
            error = f"the answer gives the status {', '.join(allowing)}, which allows it, beside the reason"
        out.append(
            CheckResult(
                kind="refusal", description=f"turned down: {refusal.request}", passed=error is None, error=error
            )
        )
    return out


def _refused_tool(env: Environment, refusal: Refusal) -> str | None:
    """The write tool a refused request would call: its ``call``'s, or (a fee the user declined has
    none) the one write tool named by the request's verb and words ("cancel my booking" →
    ``cancel_booking``)."""
    if refusal.call is not None:
        return refusal.call.tool
    verb, *rest = refusal.request.lower().split()
    said = set(re.findall(r"[a-z0-9]+", " ".join(rest)))
    found = [
        t.name
        for t in env.spec.tools
        if t.kind == "write" and t.name.split("_")[0] == verb and set(t.name.split("_")[1:]) <= said
    ]
    return found[0] if len(found) == 1 else None


def _quotes(answer: str, rule: str) -> bool:
    """Whether ``answer`` quotes ``rule`` word for word (an agent that has found the rule that stops
    a request paraphrases or quotes that one; one that pastes the action's rules has not decided)."""
    said = " ".join(re.findall(r"[a-z0-9']+", answer.lower().replace("_", " ")))
    return " ".join(re.findall(r"[a-z0-9']+", rule.lower().replace("_", " "))) in said


def _request_words(refusal: Refusal) -> str:
    """What a refused request is about: its words less its verb ("read type spot" of "change the read
    type for your spot")."""
    return " ".join(refusal.request.split()[1:])


def _asked_fields(reads: list[Any], outputs: list[str]) -> set[str]:
    """The columns the gold reads showed an asked value in ("account_credit")."""
    asked = set(outputs)
    return {
        key
        for record in records_of(reads)
        for key, value in record.items()
        if not isinstance(value, dict | list) and str(value) in asked
    }


def _without_fields(answer: str, columns: set[str]) -> str:
    """``answer`` less the names of ``columns`` ("account credit", "account-credit")."""
    for column in sorted(columns, key=len, reverse=True):
        answer = re.sub(r"\b" + r"[\s_-]+".join(map(re.escape, column.split("_"))) + r"\b", " ", answer, flags=re.I)
    return answer


def _action_words(call: ToolCall) -> str:
    """What a gold write is about: its tool's words less the verb, and its text arguments."""
    texts = [v for v in call.arguments.values() if isinstance(v, str) and not any(ch.isdigit() for ch in v)]
    return " ".join([*call.tool.split("_")[1:], *texts])
