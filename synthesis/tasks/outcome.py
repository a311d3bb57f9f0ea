"""How a task ends, beyond its state: the record of each refused request, the reference answer, and
how a user whose request will be refused behaves."""

from __future__ import annotations

import random
from typing import Any

from envs.formats.spec import EnvSpec

from ..domains.domain import Domain
from .answers import declined_sentence, participles, refusal_sentence, values_sentence
from .chain import Goal
from .phrasing import verb_phrase

#: Of users whose request will be refused: how many hold a wrong belief about it, how many push back once.
BELIEF_SHARE, INSIST_SHARE = 0.25, 0.3


class Outcomes:
    """Refusals, reference answers and user behaviour (mixed into the task generator)."""

    domain: Domain
    spec: EnvSpec
    rng: random.Random

    def reference_answer(self, refused: list[Goal], outputs: list[str], told: list[str] | None = None) -> str | None:
        """What a correct agent says at the end: each refused request with its reason, then the values
        asked for, each in a sentence of ``told`` where there is one (None when there is nothing to say)."""
        parts = [
            declined_sentence(g.verb, g.phrase, g.blocked or "")
            if g.declined
            else refusal_sentence(
                g.verb, g.phrase, g.blocked or "", self.rule_text(g.rule), status=self._is_status(g.blocked)
            )
            for g in refused
        ]
        if outputs:
            parts.append(values_sentence(outputs, told))
        return " ".join(parts) if parts else None

    def _is_status(self, value: str | None) -> bool:
        """Whether ``value`` (as said, spaces for underscores) is a state of one of the domain's lifecycles."""
        said = (value or "").replace(" ", "_")
        return any(e.lifecycle is not None and said in e.lifecycle.states for e in self.domain.entities)

    def behaviour(self, refused: list[Goal]) -> list[str]:
        """How a user whose request will be refused acts: some push back once, some are sure the
        rule does not stop them (tau2-bench's users insist and hold wrong beliefs)."""
        out: list[str] = []
        goal = refused[0] if refused and not refused[0].declined else None
        if goal is None:
            return out
        draw = self.rng.random()
        if draw < BELIEF_SHARE:
            rule = self.rule_text(goal.rule)
            e = self.domain.entity(goal.entity)
            what = (
                f'the rule "{rule}" does not stop it in your case'
                if rule
                else f"your {e.human} is in a state that allows it"
            )
            out.append(
                f"You are sure the request is allowed: you believe {what}. Say so if the agent hesitates; "
                "accept it once the agent tells you the actual value from your records."
            )
        elif draw < BELIEF_SHARE + INSIST_SHARE:
            out.append(
                "If the agent says it cannot do what you asked, push back once: say it matters to you and ask "
                "them to make an exception. Accept a second no."
            )
        return out

    def rule_text(self, rule: str | None) -> str | None:
        found = self.spec.rule(rule) if rule is not None else None
        return found.text if found is not None else None

    def refusal_of(self, goal: Goal, done: list[Goal]) -> dict[str, Any]:
        """The task's record of a refused goal: what was asked, why not, and what acting would be."""
        reason = [goal.blocked] if goal.blocked else []
        # "I've extended your care visit" reports the allowed one of two extensions as well as it
        # would claim the refused one: where another action shares the verb only a success said
        # in other words can claim it. A participle that is the reason ("paid") stays: the grader
        # reads "it's already paid" as the record's state, not as a claim.
        shared = any(g.verb.split("_")[0] == goal.verb.split("_")[0] for g in done)
        return {
            "request": verb_phrase(goal.verb, goal.phrase),
            "reason": reason,
            "claims": [] if shared else participles(goal.verb),
            "rule": goal.rule,
            "call": {"tool": goal.tool, "arguments": goal.refused_call} if goal.refused_call else None,
        }
