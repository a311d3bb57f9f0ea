"""Goals where the user's consent depends on what the action costs ("only if there is no fee").

For an action that needs the customer's confirmation and keeps a fee under a condition (a
cancellation within 24 hours of departure), the user may say they agree only if no fee applies.
When the fee applies, the agent must not act and must tell them the amount (a refusal whose stated
fact is the fee); when it does not, the agent confirms and acts. Both read the same to the agent:
it has to find out which.
"""

from __future__ import annotations

from typing import Any

from ..domains.domain import Entity, Transition
from ..domains.sqlgen import pk
from ..tools.confirm import CONFIRM, NOT_YET
from ..tools.toolkit import ToolMeta
from .chain import Chain, Goal
from .checklist import Checklist
from .rules import RuleGoals

CONSENT_SHARE = 0.5  # of goals on such actions, the user agrees only if no fee applies


class ConsentGoals(RuleGoals):
    def fee_now(self, e: Entity, t: Transition, row: dict[str, Any], args: dict[str, Any]) -> float | None:
        """What the conditional fees of a confirmed action on ``row`` come to now (0.0 when none
        applies), or None when the action has no conditional fee."""
        fees = [x for x in t.effects if t.confirm and x.when is not None and x.kind == "subtract"]
        if not fees:
            return None
        total = 0.0
        for x in fees:
            assert x.when is not None
            value = self.oracle.value(x.amount, e, row, args)
            if self.oracle.holds(x.when, e, row, args) and isinstance(value, int | float):
                total += value
        return round(total, 2)

    def declinable(self) -> list[tuple[ToolMeta, dict[str, Any], dict[str, Any]]]:
        """(tool, row, arguments): users' records a confirmed action would charge a fee on now, every
        rule allowing it."""
        out = []
        for m in self.meta.values():
            if m.role != "transition":
                continue
            e, t = self._transition(m)
            if not t.confirm:
                continue
            for row, extra in self.candidates(m):
                args = {pk(e): row[pk(e)], **extra}
                if self.fee_now(e, t, row, args):
                    out.append((m, row, extra))
        return out

    def consent_condition(self) -> str:
        return self.rng.choice(
            [
                "But only if that costs me no fee; if there is one, leave it as it is and tell me how much it is.",
                "If there's a fee for that, don't go ahead, just tell me the amount.",
            ]
        )

    def add_declined(
        self,
        chain: Chain,
        m: ToolMeta,
        row: dict[str, Any],
        args: dict[str, Any],
        extra: dict[str, Any],
        phrase: str,
        fee: float,
        checks: Checklist,
    ) -> bool:
        """The user's request, declined once the fee is known: nothing changes, the agent states the fee."""
        e, t = self._transition(m)
        assert e.lifecycle is not None
        for x in t.effects:  # the agent reads what the fee depends on (the flight's departure)
            field = x.when.field if x.when is not None else None
            if field and field.startswith("via:"):
                ref = e.reference(field[4:].partition(".")[0])
                reader = self._tool("details", ref.entity) if ref else None
                if ref is not None and reader is not None and row.get(ref.column) is not None:
                    read = {pk(self.domain.entity(ref.entity)): row[ref.column]}
                    if {"tool": reader.tool, "arguments": read} not in chain.calls:
                        chain.call(reader.tool, **read)
        error = chain.on_copy(self.env, m.tool, {**args, CONFIRM: False})
        if error is None or NOT_YET not in str(error):
            self.rejections["confirmation_not_enforced"] += 1
            return False
        chain.goals.append(Goal(m.tool, e.name, row[pk(e)], t.name, phrase, extra, blocked=f"{fee:g}", declined=True))
        self.request(chain, e, t.name, phrase, extra, refused=True, row=row)
        chain.requests.append(self.consent_condition())
        status = str(row[e.lifecycle.field]).replace("_", " ")
        checks.keep(e, row, e.lifecycle.field, f"{e.human} {row[pk(e)]} is still {status}")
        return True
