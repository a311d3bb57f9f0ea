"""Where each rule lives: in the tool (a guard that refuses the call) or in the policy only.

Real service systems enforce some rules in code and leave others to the person at the desk
(DESIGN.md, "Where a rule lives"). A domain may say so per guard (``Guard.enforced_by``); for the
rest, :func:`assign_enforcement` makes a share of them policy-only, chosen deterministically from
the domain's id. A policy-only rule is written in the policy, not checked by its tool: an agent that
acts against it changes the state, and a task that expects no change fails it.

Only rules an agent could break without corrupting the records may live in the policy: time
windows, rules about a field's value (a fare class, a plan tier) and how many records a user may
open. Balances that keep the data consistent (a payment covering its price, copies left to lend),
checks of the user's own arguments, identity and status checks stay in the tools.
"""

from __future__ import annotations

import math
import random

from .domain import Domain, Guard, Transition

#: The share of a domain's rules made policy-only when the domain does not say (issue: ≥ 40 %).
DEFAULT_POLICY_SHARE = 0.4
#: Rule kinds that may live in the policy alone: breaking one leaves the data consistent.
POLICY_KINDS = frozenset({"future", "past", "within", "equals", "not_equals", "one_of"})


def rule_guards(t: Transition) -> list[Guard]:
    """The rules of a transition: its guards other than ownership (which is identity, not policy)."""
    return [g for g in t.guards if g.kind != "owner"]


def enforced(guards: list[Guard]) -> list[Guard]:
    """The guards a tool checks: all but the policy-only ones."""
    return [g for g in guards if g.enforced_by != "policy"]


def policy_only(g: Guard) -> bool:
    return g.enforced_by == "policy"


def rule_count(domain: Domain) -> int:
    """Rule instances of the agent's write tools: the rules of customer transitions and of creates."""
    n = 0
    for e in domain.entities:
        if e.lifecycle is not None:
            n += sum(len(rule_guards(t)) for t in e.lifecycle.transitions if t.actor == "customer")
        if e.create is not None:
            n += sum(g.kind != "owner" for g in e.create.guards)
    return n


def _eligible(g: Guard) -> bool:
    if g.kind not in POLICY_KINDS or g.enforced_by is not None:
        return False
    # a rule about the user's own argument is input validation, not a policy to hold back on
    return not str(g.field).startswith("param:")


def _limit_on_create(g: Guard) -> bool:
    """A limit on how many records a user may open ("at most 3 books on loan"): the records stay
    consistent past it, so it may be the policy's to keep (its invariant is then not emitted)."""
    return g.kind == "count_max" and isinstance(g.amount, int) and g.enforced_by is None


def assign_enforcement(domain: Domain, share: float = DEFAULT_POLICY_SHARE) -> Domain:
    """A copy of ``domain`` where enough rules are policy-only to make ``share`` of all its rules
    (or every rule that may be, when fewer may); guards the domain marks keep their mark.

    >>> from synthesis.domains.ontology import load_ontology
    >>> d = assign_enforcement(load_ontology()[0])
    >>> sum(g.enforced_by == "policy" for e in d.entities if e.lifecycle
    ...     for t in e.lifecycle.transitions for g in t.guards) > 0
    True
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"policy share must be between 0 and 1, got {share}")
    copy = domain.model_copy(deep=True)
    # transition rules first: refusal tasks are made on them; then the limits and rules of creates
    on_transitions: list[Guard] = []
    on_creates: list[Guard] = []
    marked = 0
    for e in copy.entities:
        for t in e.lifecycle.transitions if e.lifecycle is not None else []:
            if t.actor == "customer":
                marked += sum(policy_only(g) for g in rule_guards(t))
                on_transitions += [g for g in rule_guards(t) if _eligible(g)]
        if e.create is not None:
            rules = [g for g in e.create.guards if g.kind != "owner"]
            marked += sum(policy_only(g) for g in rules)
            # a new record's date ahead is the data's coherence, not a rule to hold back on
            on_creates += [g for g in rules if (_eligible(g) and g.kind != "future") or _limit_on_create(g)]
    rng = random.Random(f"enforcement:{domain.id}")
    rng.shuffle(on_transitions)
    rng.shuffle(on_creates)
    wanted = math.ceil(share * rule_count(copy)) - marked
    for g in [*on_transitions, *on_creates][: max(0, wanted)]:
        g.enforced_by = "policy"
    return copy
