"""Write goals of a task: transitions, creates, updates, and writes that an earlier goal enabled.

Which tool a new task starts from is drawn with the least-used tools first, so the tasks of an
environment cover its write tools instead of the few with the most satisfiable records. Every write
is tried on a copy of the episode first and joins the chain only if it is clean: it does not undo
an earlier write of the task (a record back in a state it had, a booking cancelled right after it
was made or moved), set a field an earlier write set, or write filler into a structured field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from envs import Environment
from envs.formats.spec import EnvSpec
from envs.quality.chains import called_off

from ..domains.domain import Domain, Entity, Transition
from ..domains.sqlgen import pk
from ..gate.oracle import Oracle
from ..tools.bulk import covered, within_limits
from ..tools.toolkit import ToolMeta
from .actionable import actionable_count
from .chain import Chain, Goal
from .checklist import Checklist
from .consent import CONSENT_SHARE
from .criteria import CRITERION_SHARE
from .landing import moved_without_need
from .naming import Handle, handles, single_out
from .phrasing import verb_phrase
from .records import RecordGoals
from .tells import policy_tells

#: Share of write goals that start with a tool a dependent write can follow (the rest keep the
#: least-used order, so tools nothing follows still start tasks of their own).
LEADING_SHARE = 0.75


#: Of single-record transitions, how many users first ask for another of their records, then change their mind.
CHANGE_OF_MIND = 0.1


class WriteGoals(RecordGoals):
    """Adds write goals to a chain (mixed into the task generator)."""

    env: Environment
    spec: EnvSpec
    domain: Domain
    oracle: Oracle
    used: Any  # Counter[str]
    criterion_user: str | None = None  # the user a chain starts with because they can name a record by a criterion

    # -- choosing tools ------------------------------------------------------------------------------
    def _by_use(self, tools: list[ToolMeta]) -> list[ToolMeta]:
        """Least-used first, ties in random order."""
        return sorted(tools, key=lambda m: (self.used[m.tool], self.rng.random()))

    def _writes(self) -> list[ToolMeta]:
        return [m for m in self.meta.values() if m.role in ("transition", "create", "update", "bulk")]

    def start_write_chain(self, checks: Checklist) -> Chain | None:
        """A chain for a user, started with the least-used write tool that can be satisfied."""
        tools = self._leading_first(self._by_use(self._writes()))
        for m in tools[:4]:
            user_id = self._user_for(m)
            if user_id is None:
                continue
            chain = Chain.start(self.env, user_id)
            if self.identify_user(chain) and self.add_write(chain, m, checks):
                return chain
            chain.close()
        self.rejections["no_satisfiable_record"] += 1
        return None

    def _user_for(self, m: ToolMeta) -> str | None:
        users = list(self.oracle.rows[self.user.name])
        if m.role == "transition":
            options = self.candidates(m)
            if not options:
                return None
            e, _ = self._transition(m)
            owners = sorted({str(self.oracle.owner_of(e, row)) for row, _ in options})
            if self.rng.random() < CRITERION_SHARE:  # someone who can name the record by a criterion
                self.rng.shuffle(owners)
                chosen = next((u for u in owners[:8] if self.criterion_target(m, u) is not None), None)
                if chosen is not None:
                    self.criterion_user = chosen
                    return chosen
            return str(self.oracle.owner_of(e, self.rng.choice(options)[0]))
        if m.role == "bulk":  # a user with a record holding two items the rules allow acting on
            e, t = self._transition(m)
            assert e.lifecycle is not None
            parent_col = next(r.column for r in e.references if r.role == "owner")
            counts: Counter[Any] = Counter(
                r[parent_col]
                for r in self.oracle.rows[e.name].values()
                if r.get(e.lifecycle.field) in t.from_states
                and all(self.oracle.holds(g, e, r, {}) for g in t.guards if g.kind != "owner")
            )
            rows = [r for r in self.oracle.rows[e.name].values() if counts[r[parent_col]] >= 2]
            owners = sorted({str(self.oracle.owner_of(e, r)) for r in rows if self.oracle.owner_of(e, r) is not None})
            return self.rng.choice(owners) if owners else None
        if m.role == "update":
            e = self.domain.entity(m.entity)
            if e.name == self.user.name:
                return self.rng.choice(users) if users else None
            rows = [r for r in self.oracle.rows[e.name].values() if self.oracle.owner_of(e, r) is not None]
            return self.oracle.owner_of(e, self.rng.choice(rows)) if rows else None
        return self.rng.choice(users) if users else None

    def _leading_first(self, tools: list[ToolMeta]) -> list[ToolMeta]:
        """``tools`` with those no task uses yet first (every tool gets its tasks), then, most of the
        time, those a dependent write can follow, each group in its former order."""
        leading = self.rng.random() < LEADING_SHARE
        return sorted(tools, key=lambda m: (self.used[m.tool] > 0, leading and not self._leads_on(m)))

    def add_some_write(self, chain: Chain, checks: Checklist, *, first: bool, besides: str = "") -> bool:
        """A write goal with one of the least-used tools (not ``besides``), one a dependent write can
        follow if one can."""
        tools = [m for m in self._writes() if m.tool != besides]
        return any(self.add_write(chain, m, checks) for m in self._leading_first(self._by_use(tools))[:8])

    def add_write(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        mark = chain.checkpoint()
        if self._add_write(chain, m, checks):
            return True
        chain.rollback(mark)  # the reads made for a goal that could not be added are not part of the task
        return False

    def _leads_on(self, m: ToolMeta) -> bool:
        """Whether a dependent write can follow ``m``: a transition that carries its record on from a
        state ``m`` leaves it in (a state edge of the graph that neither goes back to a state ``m``
        starts from, nor calls the record off, nor ends it where it could have been ended before
        ``m``), a change of another field of it, or a new record for it."""
        if m.role not in ("transition", "create", "update") or m.entity == self.user.name:
            return False
        e = self.domain.entity(m.entity)
        left = set(m.produces)
        if any(called_off(x.partition(":")[2]) for x in left):
            return False  # nothing follows a record called off
        started = set(m.requires)
        lc = e.lifecycle
        final = (
            {f"{e.name}:{x}" for x in lc.states if not any(x in t.from_states for t in lc.transitions)} if lc else set()
        )
        for o in self.meta.values():
            if o.tool == m.tool:
                continue
            if o.role == "transition" and left & set(o.requires):
                ends = set(o.produces)
                pointless = bool(ends & final and set(o.requires) & started)  # see _add_follow_on
                if not ends & started and not pointless and not any(called_off(x.partition(":")[2]) for x in ends):
                    return True
            if (o.role == "update" and o.entity == m.entity) or (
                o.role == "create" and any(r.entity == e.name for r in self.domain.entity(o.entity).references)
            ):
                return True
        return False

    def _add_write(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        if m.role == "transition":
            wanted = self.criterion_user == chain.user_id or self.rng.random() < CRITERION_SHARE
            self.criterion_user = None
            chosen = self.criterion_target(m, chain.user_id, chain) if wanted else None
            mine = self.candidates(m, chain.user_id)
            if chosen is not None:
                row, extra, named = chosen
                done = self.add_transition(chain, m, row, extra, checks, named=named)
            else:
                self.rng.shuffle(mine)
                done = False
                for row, extra in mine[:4]:  # a record the user cannot name, or a write that is not clean: the next
                    mark = chain.checkpoint()
                    if self.add_transition(chain, m, row, extra, checks):
                        done = True
                        break
                    chain.rollback(mark)
            if done and len(chain.goals) == 1 and self.rng.random() < CHANGE_OF_MIND:
                self.change_mind(chain, m, row, [r for r, _ in mine])
            return done
        if m.role == "create":
            return self.add_create(chain, m, checks)
        if m.role == "bulk":
            return self.add_bulk(chain, m, checks)
        return self.add_update(chain, m, checks)

    def change_mind(self, chain: Chain, m: ToolMeta, meant: dict[str, Any], options: list[dict[str, Any]]) -> None:
        """The user first asks for the same action on another of their records, then changes their mind
        before anything is done (told to the user simulator; the task is the record finally meant)."""
        e, t = self._transition(m)
        other = next((r for r in options if r[pk(e)] != meant[pk(e)]), None)
        phrase = self.locate(chain, e, other) if other is not None else None
        if other is None or phrase is None:
            return
        final = chain.goals[-1].phrase
        script = (
            f"Start by asking the agent to {verb_phrase(t.name, phrase)}. Once the agent has found it, and "
            f"before anything is done, change your mind: what you want is to {verb_phrase(t.name, final)}."
        )
        chain.behaviour.append(script)
        chain.decoys[script] = (e.name, str(other[pk(e)]))

    # -- transitions ---------------------------------------------------------------------------------
    def _children(self, chain: Chain, e: Entity, t: Transition, key: str) -> dict[str, list[dict[str, Any]]]:
        """Rows a transition's cascades act on, as they are before the call."""
        assert chain.episode is not None
        out = {}
        for eff in t.effects:
            if eff.kind == "cascade" and eff.entity:
                child = self.domain.entity(eff.entity)
                ref = next(r for r in child.references if r.entity == e.name)
                out[child.name] = chain.episode.query(
                    f"SELECT * FROM {child.table} WHERE {ref.column} = :key", {"key": key}
                )
        return out

    def add_transition(
        self,
        chain: Chain,
        m: ToolMeta,
        row: dict[str, Any],
        extra: dict[str, Any],
        checks: Checklist,
        *,
        dependent: bool = False,
        named: str | None = None,
    ) -> bool:
        """``named``: how the user names the record (a criterion) instead of a value that singles it out."""
        e, t = self._transition(m)
        assert chain.episode is not None
        key = row[pk(e)]
        if not dependent and (e.name, key) in chain.targets:
            return False
        phrase = f"the same {e.human}" if dependent else self.locate(chain, e, row)
        if phrase is None:
            return False
        phrase = named or phrase
        before = chain.episode.rows_by_key(e.table, [(key,)])[(key,)]
        assert before is not None
        args = {pk(e): key, **extra}
        owner = self.domain.owner_checked(e, t)
        if owner is not None:
            args[owner.column] = before[owner.column]
        if moved_without_need(e, t, before, args, self.spec.clock):
            return False  # the moved date still behind the clock, or the date weeks away: no one asks
        fee = None if dependent else self.fee_now(e, t, before, args)
        on_condition = fee is not None and self.rng.random() < CONSENT_SHARE
        if on_condition and fee:  # the user agrees only if no fee applies, and one does
            return self.add_declined(chain, m, before, args, extra, phrase, fee, checks)
        if not self.clean_write(chain, m.tool, args):
            return False
        parents = self._parents(chain, e, before)
        children = self._children(chain, e, t, key)
        image = chain.episode.serialize()  # the state the request is made on, for how many it could mean
        chain.call(m.tool, **args)
        checks.transition(e, t, before, args, parents, children)
        chain.goals.append(Goal(m.tool, e.name, key, t.name, phrase, extra, depends_on_previous=dependent))
        self.request(chain, e, t.name, phrase, extra, row=before, choices=self._choices(chain, e, image, m.tool, args))
        if on_condition:
            chain.requests.append(self.consent_condition())
        self._keep_siblings(chain, e, key, checks)
        moneys = [eff for eff in t.effects if eff.kind in ("add", "subtract") and (eff.target or "").startswith("via:")]
        # the amount the policy says to tell, where one of the write's amounts is it; else the first
        told_money = next(
            (eff for eff in moneys if policy_tells(self.domain.rules, (eff.target or "").partition(".")[2], t.name)),
            None,
        )
        money = told_money or next(iter(moneys), None)
        column = (money.target or "").partition(".")[2] if money is not None else ""
        told = told_money is not None
        if money is not None and money.target is not None and (told or self.rng.random() < 0.5):
            ref = e.reference(money.target[4:].partition(".")[0])
            if ref is not None and ref.entity == self.user.name:
                chain.outputs.append((self.user.table, chain.user_id, column))
            elif ref is not None and told and before.get(ref.column) is not None:
                # "Tell the owner the new estimate after approving additional work": the amount the
                # write leaves on the parent is part of a correct answer, asked or not
                chain.outputs.append((self.domain.entity(ref.entity).table, before[ref.column], column))
        if not told:
            # "Tell the renter the new balance after a payment" of the record's own balance
            own = next(
                (
                    (eff.target or "").removeprefix("field:")
                    for eff in t.effects
                    if eff.kind in ("add", "subtract")
                    and (eff.target or "").startswith("field:")
                    and policy_tells(self.domain.rules, (eff.target or "").removeprefix("field:"), t.name)
                ),
                None,
            )
            if own is not None:
                chain.outputs.append((e.table, key, own))
        return True

    def _choices(self, chain: Chain, e: Entity, image: bytes, tool: str, args: dict[str, Any]) -> Callable[[], int]:
        """How many of the user's records of ``e`` the call could act on at ``image``, worked out when asked."""

        def count() -> int:
            def owned(row: dict[str, Any]) -> bool:
                return bool(self.oracle.owner_of(e, row) == chain.user_id)

            return actionable_count(self.env, image, e.table, pk(e), owned, (tool, args))

        return count

    def _keep_siblings(self, chain: Chain, e: Entity, key: str, checks: Checklist) -> None:
        """One other record of the same user and kind must keep its status: the agent acted on the right one."""
        if e.lifecycle is None or e.name == self.user.name:
            return
        others = [
            r for r in self.owned(e, chain.user_id) if r[pk(e)] != key and (e.name, r[pk(e)]) not in chain.targets
        ]
        if others:
            other = self.rng.choice(others)
            status = str(other[e.lifecycle.field]).replace("_", " ")
            checks.keep(e, other, e.lifecycle.field, f"the user's other {e.human} {other[pk(e)]} is still {status}")

    def add_dependent(self, chain: Chain, checks: Checklist) -> bool:
        """A write on the record the last goal created or changed, or for it: a transition that goal
        made possible, a change of one of its fields, or a new record for it. Only clean ones: none
        that takes the record back, sets a field the last goal set, or calls off what it did."""
        last = next((g for g in reversed(chain.goals) if g.blocked is None), None)
        if last is None or chain.episode is None or last.entity == self.user.name:
            return False
        if (made := self.meta.get(last.tool)) is None or made.role == "bulk":
            return False  # several items: "the same one" would name none of them
        e = self.domain.entity(last.entity)
        row = chain.episode.rows_by_key(e.table, [(last.key,)])[(last.key,)]
        if row is None or (e.lifecycle is not None and called_off(row.get(e.lifecycle.field))):
            return False  # nobody changes or adds to what they just called off
        if self.is_final(e, row):
            return False  # nor to what is final now (collected, closed): nothing more is done to it
        for m in self._by_use([m for m in self.meta.values() if self._follows(m, e, last)]):
            mark = chain.checkpoint()
            if m.role == "transition":
                added = self._add_follow_on(chain, m, e, row, last, checks)
            elif m.role == "update":
                added = self.add_update(chain, m, checks, row=row)
            else:
                added = self.add_create(chain, m, checks, onto=last)
            if added:
                return True
            chain.rollback(mark)
        return False

    def _follows(self, m: ToolMeta, e: Entity, last: Goal) -> bool:
        """Whether ``m`` can act on (a transition, an update) or for (a create) ``last``'s record."""
        if m.tool == last.tool:
            return False
        made, given = self.meta.get(last.tool), self.spec.tool(last.tool)
        fields = given.parameters.get("properties", {}) if given is not None else {}
        if made is not None and made.role == "create" and self._changes(m) & set(fields):
            return False  # a field the user gave as they made the record is given right the first time
        if m.role in ("transition", "update"):
            return m.entity == e.name
        return m.role == "create" and any(r.entity == e.name for r in self.domain.entity(m.entity).references)

    def _changes(self, m: ToolMeta) -> set[str]:
        """The fields of its own record ``m`` changes from what they hold (an update's field; a
        transition's field set, added to or taken from: "add a passenger")."""
        if m.role == "update":
            return {m.attribute or ""}
        if m.role != "transition":
            return set()
        _, t = self._transition(m)
        return {
            (x.target or "")[6:]
            for x in t.effects
            if x.kind in ("set", "add", "subtract") and (x.target or "").startswith("field:")
        }

    def _add_follow_on(
        self, chain: Chain, m: ToolMeta, e: Entity, row: dict[str, Any], last: Goal, checks: Checklist
    ) -> bool:
        """A transition from the state the last goal left its record in, unless it could have been done
        before that goal and leaves the record where nothing follows: then the last goal was for
        nothing (extend a hold by a week, then end it today)."""
        assert e.lifecycle is not None
        _, t = self._transition(m)
        if row[e.lifecycle.field] not in t.from_states:
            return False
        earlier = next((x for x in e.lifecycle.transitions if x.name == last.verb), None)
        final = not any(t.to in x.from_states for x in e.lifecycle.transitions)
        if earlier is not None and final and set(t.from_states) & set(earlier.from_states):
            return False
        made = self.meta.get(last.tool)
        if made is not None and made.role == "update" and (final or called_off(t.to)):
            return False  # a claim's bag described anew, then the claim withdrawn: the edit was for nothing
        extra = self.extra_arguments(m, row)
        args = {pk(e): last.key, **extra}
        owner = self.domain.owner_checked(e, t)
        if owner is not None:
            args[owner.column] = row[owner.column]
        return self.clean_write(chain, m.tool, args) and self.add_transition(
            chain, m, row, extra, checks, dependent=True
        )

    # -- several items at once -------------------------------------------------------------------------
    def add_bulk(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        """Act on 2–3 items of one of the user's records with one list-argument call."""
        e, t = self._transition(m)
        assert e.lifecycle is not None and chain.episode is not None
        parent_ref = next(r for r in e.references if r.role == "owner")
        parent = self.domain.entity(parent_ref.entity)
        status = e.lifecycle.field
        options = []
        for prow in self.owned(parent, chain.user_id):
            items = [
                r
                for r in self.oracle.rows[e.name].values()
                if r[parent_ref.column] == prow[pk(parent)]
                and r.get(status) in t.from_states
                and (e.name, r[pk(e)]) not in chain.targets
                and all(self.oracle.holds(g, e, r, {}) for g in t.guards if g.kind != "owner")
            ]
            if len(items) >= 2:
                options.append((prow, items))
        if not options:
            return False
        prow, items = self.rng.choice(options)
        chosen = sorted(self.rng.sample(items, min(len(items), self.rng.choice((2, 2, 3)))), key=lambda r: r[pk(e)])
        siblings = [r for r in self.oracle.rows[e.name].values() if r[parent_ref.column] == prow[pk(parent)]]
        while len(chosen) > 1 and not (covered(e, t, prow, chosen) and within_limits(e, t, siblings, chosen)):
            chosen = chosen[:-1]  # the record's balance must cover them all, its item limits hold them all
        if len(chosen) < 2:
            return False
        phrase = self.locate(chain, parent, prow)
        listing = next(
            (
                x
                for x in self.meta.values()
                if x.role == "list" and x.entity == e.name and parent_ref.column in x.inputs
            ),
            None,
        )
        if phrase is None or listing is None:
            return False
        chain.call(listing.tool, **{parent_ref.column: prow[pk(parent)]})
        items_named = self._item_names(e, t, chosen, siblings, phrase)
        if items_named is None:
            return False
        args: dict[str, Any] = {parent_ref.column: prow[pk(parent)], f"{e.name}_ids": [r[pk(e)] for r in chosen]}
        owner = next((r for r in parent.references if r.role == "owner"), None)
        if owner is not None:
            args[owner.column] = prow[owner.column]
        extra = self.extra_arguments(m)
        args.update(extra)
        if not self.clean_write(chain, m.tool, args):
            return False
        befores = [r for r in chain.episode.rows_by_key(e.table, [(r[pk(e)],) for r in chosen]).values() if r]
        parents = [self._parents(chain, e, before) for before in befores]  # as they were before the call
        chain.call(m.tool, **args)
        for before, its_parents in zip(befores, parents, strict=True):
            checks.transition(e, t, before, extra, its_parents)
        what = items_named
        chain.goals.append(Goal(m.tool, e.name, chosen[0][pk(e)], t.name, what, extra))
        shown = {k: (v.replace("_", " ") if isinstance(v, str) else v) for k, v in extra.items()}
        motive = self.motive(chain, t.name, phrase, extra)
        chain.requests.append(self.say.request(t.name, what, shown, first=len(chain.requests) == 0, motive=motive))
        if phrase != "my account":
            chain.facts.append(self.say.record_fact(phrase))
        return True

    def _item_names(
        self, e: Entity, t: Transition, chosen: list[dict[str, Any]], siblings: list[dict[str, Any]], phrase: str
    ) -> str | None:
        """How the user names the items of one record they want acted on: each by a handle no other
        item of the record shares (:mod:`.naming`), else, when they are every item in the states the
        action starts from, as all of those; None when neither works."""
        assert e.lifecycle is not None
        plural = e.table.replace("_", " ")
        named: list[list[Handle]] = []
        for r in chosen:
            others = [s for s in siblings if s[pk(e)] != r[pk(e)]]
            options = handles(self.domain, e, r, self.oracle.rows, self.rng, today=self.spec.clock.date())
            found = single_out(options, others, self.oracle.rows, self.rng)
            if found is None:
                break
            named.append(found)
        else:
            if all(len(found) == 1 and found[0].prefix for found in named):  # "the adult and kids viewer profiles"
                kinds = [str(found[0].prefix) for found in named]
                return f"the {', '.join(kinds[:-1])} and {kinds[-1]} {plural} of {phrase}"
            names = [" ".join(h.fragment for h in found) for found in named]
            return f"the {plural} {', '.join(names[:-1])} and {names[-1]} of {phrase}"
        status = e.lifecycle.field
        startable = {s[pk(e)] for s in siblings if s.get(status) in t.from_states}
        if startable != {r[pk(e)] for r in chosen}:
            return None
        states = " or ".join(sorted({str(r[status]).replace("_", " ") for r in chosen}))
        return f"all the {states} {plural} of {phrase}"
