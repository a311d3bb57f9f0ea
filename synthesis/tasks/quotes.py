"""What-if questions: the user asks what an action would leave them with, without asking for it.

"If I paid my open fine from March 3, what would my fine balance be afterwards? Don't pay it yet."
The answer is worked out from the policy (what the action does) and two records (the amount and the
balance now); no tool shows it, the agent must not act (the expected state is the initial one), and
the balance as it is now is a distractor: an answer that only reads it back fails. The question is
decidable: the action takes no amount the user would have to name, and the amount it moves is in
what the gold calls read (the reward's points cost beside a redemption) or in the policy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from envs import Task
from envs.errors import ToolError
from envs.grading.outputs import numbers_in

from ..domains.sqlgen import pk
from ..tools.confirm import confirmed
from ..tools.toolkit import ToolMeta
from .answers import told_value
from .chain import Chain, ChainBroken
from .checklist import Checklist
from .phrasing import column_noun, verb_phrase
from .writes import WriteGoals

Row = dict[str, Any]


class QuoteGoals(WriteGoals):
    """What-if questions (mixed into the task generator, which assembles the task)."""

    finish: Callable[..., Task | None]

    def _money_moves(self) -> list[tuple[ToolMeta, str]]:
        """(transition, user column) pairs: actions that add to or take from a column of the user's
        record unconditionally (a payment from the balance, points for a booking)."""
        out = []
        for m in self.meta.values():
            if m.role != "transition":
                continue
            e, t = self._transition(m)
            for x in t.effects:
                target = x.target or ""
                if x.kind not in ("add", "subtract") or x.when is not None or not target.startswith("via:"):
                    continue
                ref = e.reference(target[4:].partition(".")[0])
                if ref is not None and ref.entity == self.user.name:
                    out.append((m, target.partition(".")[2]))
        return out

    def what_if_task(self, task_id: str) -> Task | None:
        moves = self._money_moves()
        if not moves:
            self.rejections["no_what_if"] += 1
            return None
        m, column = self.rng.choice(moves)
        # "if I applied my shop credit" cannot say how much of it: an amount the user picks leaves the
        # question open
        options = [(row, extra) for row, extra in self.candidates(m) if not any(_is_amount(v) for v in extra.values())]
        if not options:
            return None
        row, extra = self.rng.choice(options)
        e, t = self._transition(m)
        user_id = str(self.oracle.owner_of(e, row))
        chain = Chain.start(self.env, user_id)
        try:
            phrase = self.locate(chain, e, row) if self.identify_user(chain) else None
            reader = self._tool("details", self.user.name)
            if phrase is None or reader is None or chain.episode is None:
                return None
            chain.call(reader.tool, **{pk(self.user): user_id})  # the value as it is now
            args = {pk(e): row[pk(e)], **extra}
            owner = self.domain.owner_checked(e, t)
            if owner is not None:
                args[owner.column] = row[owner.column]
            before, after = self._before_after(chain, m, args, column)
            if before is None or after is None or abs(after - before) < 0.005:
                self.rejections["what_if_no_change"] += 1
                return None
            if not self._amount_shown(chain, e, row, abs(after - before)):
                self.rejections["what_if_amount_unread"] += 1
                return None
            chain.requests.append(self.say.ask_what_if(verb_phrase(t.name, phrase), column_noun(column)))
            return self.finish(
                chain,
                task_id,
                Checklist(self.domain, self.spec.clock, self.oracle.holds),
                info=[f"{after:.2f}"],
                distractors=[f"{before:.2f}"],
                told=[told_value("my account", column_noun(column), would=True)],
            )
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            chain.close()

    def _amount_shown(self, chain: Chain, e: Any, row: Row, amount: float) -> bool:
        """Whether the amount the action moves is in the policy or in what the chain read, reading
        the details of the record's parents (the reward a redemption is for) where it is not yet."""

        def shown() -> bool:
            said = json.dumps(chain.results, default=str) + " " + self.spec.policy
            return any(math.isclose(n, amount, abs_tol=0.005) for n in numbers_in(said))

        if shown():
            return True
        for ref in e.references:
            reader = self._tool("details", ref.entity)
            key = row.get(ref.column)
            if reader is None or key is None or ref.entity == self.user.name:
                continue
            chain.call(reader.tool, **{pk(self.domain.entity(ref.entity)): key})
            if shown():
                return True
        return False

    def _before_after(
        self, chain: Chain, m: ToolMeta, args: dict[str, Any], column: str
    ) -> tuple[float | None, float | None]:
        """The user's ``column`` now, and after ``m`` with ``args`` on a copy of the live state (None
        where the action is refused or the value is not a number)."""
        assert chain.episode is not None
        key = (chain.user_id,)
        now = chain.episode.rows_by_key(self.user.table, [key])[key] or {}
        trial = self.env.restore(chain.episode.serialize())
        try:
            tool = self.spec.tool(m.tool)
            trial.call_tool(m.tool, confirmed(tool.parameters, args) if tool is not None else args)
            later = trial.rows_by_key(self.user.table, [key])[key] or {}
        except ToolError:
            return None, None
        finally:
            trial.close()
        before, after = now.get(column), later.get(column)
        if not isinstance(before, int | float) or not isinstance(after, int | float):
            return None, None
        return float(before), float(after)


def _is_amount(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
