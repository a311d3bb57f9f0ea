"""The body of a generated agent policy, written the way tau2-bench's policies are.

tau2's policies are sectioned by topic, explain each record's statuses in a table (status | meaning |
what can be done), give the reason beside each rule and state general conduct rules. This module
writes those parts for ``envgen._policy``:

* :func:`conduct_lines`: the general rules (confirm before writing, one call at a time, make nothing
  up, deny with the rule and the value, hand over only what the staff section lists);
* :func:`entity_sections`: one ``## <Entity plural>`` section per entity the agent can act on or
  whose statuses matter, with its status table and its write tools, each tool's line exactly as
  :attr:`ToolMeta.policy` gives it (parsers and graders read those rule phrases) and, under it, each
  rule again with one short clause saying why;
* :func:`state_rows`, :func:`reason`: the table's rows and the reasons, chosen deterministically.

Nothing here adds a number: a policy's numbers are its rules' (graders read them as stated amounts).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from ..domains.domain import Attribute, Domain, Entity, Guard, Transition
from ..domains.whole_payments import LEAST
from .coherence_rules import creation_guards
from .escalation import TOOL as HANDOVER_TOOL
from .guards import describe_guard
from .toolkit import ToolMeta, a_, upper_first

__all__ = ["conduct_lines", "entity_sections", "handover_lines", "reason", "state_rows"]

# fmt: off
#: What a status word means, in plain words; other states are read from their own words.
MEANINGS: dict[str, str] = {
    "active": "in effect and in use", "accepted": "accepted and going ahead", "attended": "the customer took part",
    "booked": "booked for the customer", "cancelled": "called off", "completed": "finished",
    "confirmed": "confirmed and going ahead", "credited": "the amount has been credited", "declined": "turned down",
    "delivered": "received by the customer", "denied": "turned down", "disputed": "being contested",
    "done": "finished", "draft": "being prepared, not yet sent", "enrolled": "taking part",
    "expired": "ran out of time", "failed": "did not go through", "filed": "filed and awaiting a decision",
    "held": "on hold", "in_progress": "under way", "issued": "issued to the customer", "lapsed": "no longer in force",
    "lost": "reported lost", "missed": "did not take place as planned", "no_show": "the customer did not turn up",
    "offered": "offered, awaiting an answer", "open": "open and still being handled",
    "ordered": "ordered, not yet done", "paid": "paid in full", "past_due": "payment is late",
    "paused": "on hold for now", "pending": "waiting to be handled", "picked_up": "collected",
    "placed": "placed, not yet handled", "posted": "recorded on the account", "proposed": "suggested, not yet agreed",
    "received": "received by us", "refunded": "the money has been paid back", "rejected": "turned down",
    "removed": "taken off", "requested": "asked for, not yet handled", "reserved": "held for the customer",
    "resolved": "sorted out", "returned": "given back", "reversed": "undone",
    "revoked": "withdrawn and no longer valid", "scheduled": "planned for a date ahead", "shipped": "on its way",
    "submitted": "sent in and awaiting a decision", "suspended": "stopped for now", "under_review": "being reviewed",
    "unpaid": "not yet paid", "used": "used up", "verified": "checked and confirmed",
    "waitlisted": "waiting for a place to open", "waived": "no longer owed",
    "withdrawn": "withdrawn and no longer pursued",
}
#: Why a rule exists, by kind of rule: a few phrasings each, one picked per tool and rule.
REASONS: dict[str, tuple[str, ...]] = {
    "future_release": (
        "so that the place can still be offered to someone else",
        "so that what is released can still be used by others",
        "because a late cancellation cannot be handled in time",
    ),
    "future_notice": (
        "so that our team has time to prepare", "because changes this close to the date can no longer be arranged",
        "so that there is still time to make the change properly",
    ),
    "deadline": (
        "because after that date it no longer applies", "since a window that has closed cannot be reopened",
    ),
    "future_now": (
        "because what has already started or passed cannot be changed",
        "since a date that is already past can no longer be acted on",
    ),
    "past_window": (
        "because this opens only a short time before the date", "since earlier than that it is too soon to do it",
    ),
    "past_done": (
        "because it can only be done once the date has passed", "since nothing can be settled before it has happened",
    ),
    "within": (
        "because older requests can no longer be verified",
        "so that it is raised while the details can still be checked", "since the window for it closes after that",
    ),
    "min_balance": (
        "because an account is never allowed to go negative",
        "since we never spend money or credit the customer does not have",
        "so that the balance always covers what it pays for",
    ),
    "min_capacity": (
        "so that no place is ever promised twice", "because we cannot give out more than is available",
    ),
    "min_money": (
        "so that there is enough to cover it", "because what is there must cover the cost",
    ),
    "min_left": (
        "because an amount already settled cannot be paid again", "since once nothing is left there is nothing to pay",
    ),
    "min": (
        "because below it the request does not qualify", "since that is the lowest level the service accepts",
    ),
    "max_zero": (
        "because anything still owed must be settled first", "since an open amount blocks this action",
    ),
    "max_owed": (
        "because a customer who owes more must settle first", "since more than that outstanding must be paid off first",
    ),
    "max_money": (
        "so that no more money moves than is owed or was paid",
        "because an amount may never exceed what it is measured against",
    ),
    "max": (
        "because that is the most the service allows", "since beyond it the request is outside what is offered",
    ),
    "status": (
        "because what can be done depends on where that record stands",
        "since in any other state it is not ready for this",
    ),
    "condition": (
        "because the action is offered only in that case", "since other cases are handled differently",
        "because that is what this action is for",
    ),
    "exclusion": (
        "because in that case the action does not apply", "since that case is handled differently",
    ),
    "differs": (
        "because a change to the same value would change nothing",
        "since asking for what is already there is not a change",
    ),
    "count_max_new": (
        "to keep places fair for every customer", "so that no one holds more than their share",
        "because limits keep the service fair for everyone",
    ),
    "count_one": (
        "so that the same thing is not asked for twice", "because one at a time is all that can be handled",
    ),
    "count_max": (
        "because limits keep the service fair for everyone", "so that the allowance is the same for every customer",
    ),
    "sum_max": (
        "so that the total never goes past its limit", "because the total is capped, however it is split",
    ),
}
# fmt: on

_CAPACITY = ("left", "available", "remaining", "spots", "seats", "capacity", "stock", "copies", "slots", "spaces")
_BALANCE = ("credit", "balance", "points", "funds", "wallet", "miles", "allowance", "budget", "deposit")
_MONEY = ("amount", "paid", "price", "fare", "fee", "cost", "total", "due", "charge")
_OWED = ("balance", "owed", "owing", "debt", "fine", "outstanding", "arrears")
_DEADLINE = ("deadline", "expir", "until", "valid", "cutoff", "cut_off")
_RELEASE = ("cancel", "withdraw", "release", "drop", "leave", "return", "forfeit", "surrender", "give_up")


def _words(name: str) -> str:
    return name.replace("_", " ")


def _pick(options: Sequence[str], key: str) -> str:
    """One of ``options``, the same for the same key in every run (``hash()`` is salted per process)."""
    return options[zlib.crc32(key.encode("utf-8")) % len(options)]


def _source_name(source: Any) -> str:
    return str(source).split(":", 1)[-1].split(".")[-1]


def _attribute_kind(domain: Domain, entity: Entity, source: Any) -> str | None:
    text = str(source)
    if text.startswith("field:"):
        a = entity.attribute(text[len("field:") :])
        return a.kind if a else None
    if text.startswith("via:") and "." in text:
        ref_name, column = text[len("via:") :].split(".", 1)
        ref = entity.reference(ref_name)
        if ref is None:
            return None
        a = domain.entity(ref.entity).attribute(column)
        return a.kind if a else None
    return None


def _is_status(domain: Domain, entity: Entity, source: Any) -> bool:
    """Whether a rule tests a record's status (its own or a referenced record's lifecycle field)."""
    text = str(source)
    if text.startswith("via:") and "." in text:
        ref_name, column = text[len("via:") :].split(".", 1)
        ref = entity.reference(ref_name)
        entity = domain.entity(ref.entity) if ref is not None else entity
    else:
        column = _source_name(text)
    return entity.lifecycle is not None and entity.lifecycle.field == column


def _category(domain: Domain, entity: Entity, action: str, g: Guard) -> str:
    """Which kind of reason fits a rule: its guard's kind, told apart by what it tests."""
    name = _source_name(g.field)
    if g.kind == "min":
        if g.amount == LEAST:  # a payment of the whole asks that something is left
            return "min_left"
        if any(w in name for w in _BALANCE):
            return "min_balance"
        if any(w in name for w in _CAPACITY):
            return "min_capacity"
        if _attribute_kind(domain, entity, g.field) == "quantity":
            return "min_capacity"
        return "min_money" if any(w in name for w in _MONEY) else "min"
    owed = any(w in name for w in _OWED)
    if g.kind == "max" or (g.kind == "equals" and g.value == 0 and not isinstance(g.value, bool) and owed):
        if g.amount == 0 or g.kind == "equals":
            return "max_zero"
        if owed:
            return "max_owed"
        return "max_money" if isinstance(g.amount, str) and any(w in _source_name(g.amount) for w in _MONEY) else "max"
    if g.kind == "future":
        if any(w in name for w in _DEADLINE) or name.endswith("_by"):
            return "deadline"
        if not g.hours:
            return "future_now"
        return "future_release" if any(w in action for w in _RELEASE) else "future_notice"
    if g.kind == "past":
        return "past_window" if g.hours else "past_done"
    if g.kind in ("equals", "not_equals", "one_of") and _is_status(domain, entity, g.field):
        return "status"
    if g.kind in ("equals", "not_equals", "one_of"):
        # "not when ...", "must not be marked ...": a case left out; otherwise the case the action is for
        excludes = (g.kind == "not_equals") != (g.value is False and g.kind != "one_of")
        return "exclusion" if excludes else "condition"
    if g.kind == "count_max" and g.amount == 1:
        return "count_one"
    if g.kind == "count_max":
        return "count_max_new" if action == "create" else "count_max"
    return g.kind if g.kind in REASONS else "condition"


def reason(domain: Domain, entity: Entity, tool: str, action: str, g: Guard, text: str) -> str:
    """Why a rule exists, in one short clause: a phrasing for its kind, picked by tool and rule.

    ``action`` is the transition's name (or ``create``): a notice period before cancelling is there to
    free the place, before other changes to give time to prepare.
    """
    return _pick(REASONS[_category(domain, entity, action, g)], f"{tool}:{text}")


def _clause(description: str) -> str:
    """A description as a clause: 'Gate: Record that the car left; fee kept' -> 'record that the car left'."""
    text = description.split(";")[0].split(":")[-1].strip().rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) < 2 else text


def _has_tool(meta: Sequence[ToolMeta], entity: Entity, t: Transition) -> bool:
    return any(m.entity == entity.name and m.transition == t.name and m.role == "transition" for m in meta)


def _updates(entity: Entity, meta: Sequence[ToolMeta]) -> list[Attribute]:
    """The attributes of ``entity`` the customer can change with a tool of their own."""
    names = {m.attribute for m in meta if m.entity == entity.name and m.role == "update"}
    return [a for a in entity.attributes if a.name in names]


def state_rows(domain: Domain, entity: Entity, meta: Sequence[ToolMeta]) -> list[str]:
    """The status table of an entity with a lifecycle: every state, what it means, what can be done."""
    life = entity.lifecycle
    if life is None:
        return []
    rows = ["| status | meaning | what can be done |", "|---|---|---|"]
    for s in life.states:
        meaning = [MEANINGS.get(s, _words(s))]
        if s == life.initial:
            meaning.append(f"every {entity.human} starts here")
        into = [t for t in life.transitions if t.to == s and s not in t.from_states]
        # the customer's ways in by name (their tools are listed below), staff and system ones described
        reached = []
        for who, actor in (("the customer asks to", "customer"), ("our staff", "staff"), ("our systems", "system")):
            ways = [_words(t.name) if actor == "customer" else _clause(t.description) for t in into if t.actor == actor]
            if ways:
                reached.append(f"when {who} {' or '.join(dict.fromkeys(ways))}")
        if reached:
            meaning.append("reached " + ", or ".join(reached))
        out = [t for t in life.transitions if s in t.from_states]
        can = [_words(t.name) for t in out if t.actor == "customer" and _has_tool(meta, entity, t)]
        can += [
            f"change the {_words(a.name)}" for a in _updates(entity, meta) if s in (entity.editable_states(a) or [s])
        ]
        staff = [_words(t.name) for t in out if t.actor != "customer"]
        if not out and not can:
            # a state nothing leads into is one the business moves on from (an order being picked)
            done = "nothing more can be done; it is final" if into else "nothing you can do at this stage"
        else:
            done = "; ".join(can) if can else "nothing you can do"
            if staff:
                done += f"; only our staff: {', '.join(dict.fromkeys(staff))}"
        rows.append(f"| `{s}` | {'; '.join(meaning).replace('|', '/')} | {done} |")
    return rows


def _guards_of(domain: Domain, entity: Entity, m: ToolMeta) -> tuple[str, list[Guard]]:
    """The action a write tool does and the guards its rules come from (as in ``write`` and ``bulk``)."""
    if m.role in ("transition", "bulk") and entity.lifecycle is not None:
        t = next((x for x in entity.lifecycle.transitions if x.name == m.transition), None)
        return (t.name, list(t.guards)) if t is not None else ("", [])
    if m.role == "create" and entity.create is not None:
        return "create", creation_guards(domain, entity, entity.create)
    return "", []


def _why_lines(domain: Domain, entity: Entity, m: ToolMeta) -> list[str]:
    """Each rule of a tool again, with the reason for it: ``  - The rule, so that ...``."""
    action, guards = _guards_of(domain, entity, m)
    seen: dict[str, Guard] = {}
    for g in guards:
        text = describe_guard(domain, g, entity.human) if g.kind != "owner" else None
        if text is not None and text not in seen:
            seen[text] = g
    return [f"  - {upper_first(text)}, {reason(domain, entity, m.tool, action, g, text)}." for text, g in seen.items()]


def _owner_sentence(domain: Domain, entity: Entity) -> str:
    owner = next((r for r in entity.references if r.role == "owner"), None)
    if owner is None:
        return ""
    return f" Each {entity.human} belongs to {a_(domain.entity(owner.entity).human)}."


def _section(domain: Domain, entity: Entity, tools: list[Mapping[str, Any]], meta: Sequence[ToolMeta]) -> list[str]:
    by_name = {m.tool: m for m in meta}
    plural = _words(entity.table)
    intro = (entity.description.strip() + " " if entity.description.strip() else "") + _owner_sentence(domain, entity)
    lines = ["", f"## {upper_first(plural)}"]
    if intro.strip():
        lines.append(intro.strip())
    if entity.lifecycle is not None:
        field = entity.lifecycle.field
        named = "status" if field == "status" else f"{_words(field)} (`{field}`)"
        lines += ["", f"The {named} of {a_(entity.human)} is one of:", "", *state_rows(domain, entity, meta)]
    if not tools:
        lines += ["", f"You cannot change {plural} yourself; their status decides what can be done with them."]
        return lines
    actions: list[str] = []
    explained: set[str | None] = set()
    for t in tools:
        m = by_name.get(str(t["name"]))
        actions.append(f"- `{t['name']}`: {(m.policy if m else '') or t['description']}")
        if m is None:
            continue
        why = _why_lines(domain, entity, m)
        if m.role == "bulk" and why and m.transition in explained:
            actions.append("  - Each one is held to the same rules as one at a time, for the same reasons.")
        else:
            actions += why
        if m.role == "transition":
            explained.add(m.transition)
    explains = any(line.startswith("  ") for line in actions)
    return [*lines, "", "What you can do, and why each rule is there:" if explains else "What you can do:", *actions]


def entity_sections(domain: Domain, tools: Sequence[Mapping[str, Any]], meta: Sequence[ToolMeta]) -> list[str]:
    """One section per entity the agent can change or whose statuses matter, the user's first.

    Every write tool but the hand-over appears under its entity, in the order the builder made them,
    with its policy line unchanged.
    """
    entity_of = {m.tool: m.entity for m in meta}
    order = sorted(domain.entities, key=lambda e: e.name != domain.user_entity)
    lines: list[str] = []
    for e in order:
        writes = [t for t in tools if t["kind"] == "write" and t["name"] != HANDOVER_TOOL]
        writes = [t for t in writes if entity_of.get(t["name"]) == e.name]
        if writes or e.lifecycle is not None:
            lines += _section(domain, e, writes, meta)
    return lines


def handover_lines(tools: Sequence[Mapping[str, Any]], meta: Sequence[ToolMeta], staff_section: bool) -> list[str]:
    """The hand-over tool's line, after the staff section (or under a heading of its own)."""
    policy_of = {m.tool: m.policy for m in meta}
    tool = next((t for t in tools if t["name"] == HANDOVER_TOOL), None)
    if tool is None:
        return []
    head = ["", "The tool for it:"] if staff_section else ["", "## Handing over to a human agent"]
    return [*head, f"- `{HANDOVER_TOOL}`: {policy_of.get(HANDOVER_TOOL) or tool['description']}"]


def conduct_lines(domain: Domain, handover: bool) -> list[str]:
    """General rules, as tau2's: confirm, one call at a time, nothing made up, deny with the reason,
    hand over only what the staff section lists; with the standing rules every policy states."""
    user = domain.entity(domain.user_entity).human
    if handover:
        hand = (
            f"- **Hand over only what our staff must do.** Use `{HANDOVER_TOOL}` only for a request listed under "
            '"What only our staff can do" below. Do not hand a request over because this policy denies it: '
            "explain the rule instead."
        )
    else:
        hand = (
            "- **No hand-over.** There is no human agent to pass requests to: what this policy does not allow, "
            "explain and decline."
        )
    return [
        "",
        "## Conduct",
        f"- **Confirm before any change.** Before you call a tool that changes a record, tell the {user} exactly "
        "what you are about to do: the action, the record's id and every value or amount involved. Go ahead only "
        'after an explicit "yes", and only with that one action.',
        "- **One tool call at a time.** Make at most one tool call at a time, and do not answer the customer while "
        "a call is pending.",
        "- Use only information from the tools or from the user. Never guess an id, a date or an amount.",
        "- **Make nothing up.** Do not invent information, procedures, policies or compensation: no refunds, "
        "credits, fee waivers, discounts or exceptions beyond what this policy states.",
        "- Before any change, check that this policy allows it: the tools do not check every rule. If a rule "
        "does not allow what the user asks, do not do it; tell them which rule stops it and the value that does.",
        "- **Deny clearly.** Turn down a request that breaks this policy in a sentence or two, naming the rule "
        "and the value in the records that stops it (a status, a date, a balance or a count).",
        "- Make one change per tool call, and tell the user the outcome, including any amount involved.",
        "- If a tool refuses an action, explain the reason it gave; do not try to work around a rule.",
        hand,
    ]
