"""Write goals of a task: transitions, creates, updates, and writes that an earlier goal enabled.

Which tool a new task starts from is drawn with the least-used tools first, so the tasks of an
environment cover its write tools instead of the few with the most satisfiable records.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from envs import Environment
from envs.spec import EnvSpec

from ..domains.domain import Attribute, Domain, Entity, Transition
from ..domains.sqlgen import pk
from ..domains.timeline import inverted, ordered_inputs, user_date
from ..gate.oracle import Oracle
from ..tools.bulk import covered, within_limits
from ..tools.toolkit import ToolMeta, sample_argument
from .chain import Chain, Goal
from .checklist import Checklist
from .consent import CONSENT_SHARE
from .criteria import CriterionGoals, extreme

_NAMES = ["Jordan Lee", "Sam Rivera", "Alex Morgan", "Taylor Brooks", "Casey Nguyen", "Robin Patel"]


#: Of the writes on a record the user owns, or on a public record a new one is for, how many name it
#: by a criterion the agent must work out ("my open fine with the highest amount") where one applies.
CRITERION_SHARE = 0.9


class WriteGoals(CriterionGoals):
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
        tools = self._by_use(self._writes())
        if self.rng.random() < 0.8:  # most write tasks start where a dependent step can follow
            tools = [m for m in tools if self._leads_on(m)] + [m for m in tools if not self._leads_on(m)]
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

    def add_some_write(self, chain: Chain, checks: Checklist, *, first: bool) -> bool:
        return any(self.add_write(chain, m, checks) for m in self._by_use(self._writes())[:5])

    def add_write(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        mark = chain.checkpoint()
        if self._add_write(chain, m, checks):
            return True
        chain.rollback(mark)  # the reads made for a goal that could not be added are not part of the task
        return False

    def _leads_on(self, m: ToolMeta) -> bool:
        """Whether another transition can follow ``m`` on the same record (a state edge of the graph)."""
        states = set(m.produces)
        return any(o.role == "transition" and o.tool != m.tool and states & set(o.requires) for o in self.meta.values())

    def _add_write(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        if m.role == "transition":
            wanted = self.criterion_user == chain.user_id or self.rng.random() < CRITERION_SHARE
            self.criterion_user = None
            chosen = self.criterion_target(m, chain.user_id, chain) if wanted else None
            if chosen is not None:
                row, extra, named = chosen
                return self.add_transition(chain, m, row, extra, checks, named=named)
            mine = self.candidates(m, chain.user_id)
            if not mine:
                return False
            row, extra = self.rng.choice(mine)
            return self.add_transition(chain, m, row, extra, checks)
        if m.role == "create":
            return self.add_create(chain, m, checks)
        if m.role == "bulk":
            return self.add_bulk(chain, m, checks)
        return self.add_update(chain, m, checks)

    # -- transitions ---------------------------------------------------------------------------------
    def _parents(self, chain: Chain, e: Entity, row: dict[str, Any]) -> dict[str, Any]:
        assert chain.episode is not None
        out = {}
        for ref in e.references:
            if row.get(ref.column) is not None:
                parent = self.domain.entity(ref.entity)
                out[ref.ref_name] = chain.episode.rows_by_key(parent.table, [(row[ref.column],)])[(row[ref.column],)]
        return out

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
        fee = None if dependent else self.fee_now(e, t, before, args)
        on_condition = fee is not None and self.rng.random() < CONSENT_SHARE
        if on_condition and fee:  # the user agrees only if no fee applies, and one does
            return self.add_declined(chain, m, before, args, extra, phrase, fee, checks)
        parents = self._parents(chain, e, before)
        children = self._children(chain, e, t, key)
        chain.call(m.tool, **args)
        checks.transition(e, t, before, args, parents, children)
        chain.goals.append(Goal(m.tool, e.name, key, t.name, phrase, extra, depends_on_previous=dependent))
        self.request(chain, e, t.name, phrase, extra)
        if on_condition:
            chain.requests.append(self.consent_condition())
        self._keep_siblings(chain, e, key, checks)
        money = next(
            (eff for eff in t.effects if eff.kind in ("add", "subtract") and (eff.target or "").startswith("via:")),
            None,
        )
        if money is not None and money.target is not None and self.rng.random() < 0.5:
            ref = e.reference(money.target[4:].partition(".")[0])
            if ref is not None and ref.entity == self.user.name:
                chain.outputs.append((self.user.table, chain.user_id, money.target.partition(".")[2]))
        return True

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
        """A transition on the record the last goal created or changed, which that goal made possible."""
        last = next((g for g in reversed(chain.goals) if g.blocked is None), None)
        if last is None or chain.episode is None:
            return False
        e = self.domain.entity(last.entity)
        if e.lifecycle is None:
            return False
        row = chain.episode.rows_by_key(e.table, [(last.key,)])[(last.key,)]
        if row is None:
            return False
        status = row[e.lifecycle.field]
        follow = [
            m for m in self.meta.values() if m.role == "transition" and m.entity == e.name and m.tool != last.tool
        ]
        for m in self._by_use(follow):
            _, t = self._transition(m)
            if status not in t.from_states:
                continue
            extra = self.extra_arguments(m)
            args = {pk(e): last.key, **extra}
            owner = self.domain.owner_checked(e, t)
            if owner is not None:
                args[owner.column] = row[owner.column]
            if chain.on_copy(self.env, m.tool, args) is None:
                return self.add_transition(chain, m, row, extra, checks, dependent=True)
        return False

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
        label = next((a.name for a in e.attributes if a.kind in ("title", "code", "person_name", "company")), None)
        names = []
        for r in chosen:
            unique = label is not None and sum(s.get(label) == r.get(label) for s in siblings) == 1
            names.append(f"'{r[label]}'" if unique and label else r[pk(e)])
        args: dict[str, Any] = {parent_ref.column: prow[pk(parent)], f"{e.name}_ids": [r[pk(e)] for r in chosen]}
        owner = next((r for r in parent.references if r.role == "owner"), None)
        if owner is not None:
            args[owner.column] = prow[owner.column]
        extra = self.extra_arguments(m)
        args.update(extra)
        befores = [r for r in chain.episode.rows_by_key(e.table, [(r[pk(e)],) for r in chosen]).values() if r]
        parents = [self._parents(chain, e, before) for before in befores]  # as they were before the call
        chain.call(m.tool, **args)
        for before, its_parents in zip(befores, parents, strict=True):
            checks.transition(e, t, before, extra, its_parents)
        what = f"the {e.table.replace('_', ' ')} {', '.join(names[:-1])} and {names[-1]} of {phrase}"
        chain.goals.append(Goal(m.tool, e.name, chosen[0][pk(e)], t.name, what, extra))
        shown = {k: (v.replace("_", " ") if isinstance(v, str) else v) for k, v in extra.items()}
        chain.requests.append(self.say.request(t.name, what, shown, first=len(chain.requests) == 0))
        if phrase != "my account":
            chain.facts.append(self.say.record_fact(phrase))
        return True

    # -- creates and updates ---------------------------------------------------------------------------
    def input_value(self, a: Attribute, schema: dict[str, Any]) -> Any:
        """A value a user would give for an attribute of a new record."""
        if a.kind == "enum" and a.values:
            return self.rng.choice(a.values)
        if a.kind in ("date", "datetime"):
            return user_date(a.name, a.kind, self.spec.clock, self.rng)
        if a.kind in ("money", "quantity", "integer", "percent", "rating"):
            lo, hi = a.range or (1, 5)
            if a.kind == "money":
                return round(self.rng.uniform(max(lo, 1), min(hi, max(lo, 1) + 50)), 2)
            return self.rng.randint(max(int(lo), 1 if a.kind != "percent" else 0), max(int(lo), 1, min(int(hi), 4)))
        if a.kind == "person_name":
            return self.rng.choice(_NAMES)
        if schema.get("type") == "string" and "format" not in schema and "pattern" not in schema:
            return self.say.param_value(a.name, schema)
        return sample_argument(schema, self.rng, self.spec.clock)

    def add_create(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        e = self.domain.entity(m.entity)
        tool = self.spec.tool(m.tool)
        assert tool is not None and e.create is not None and chain.episode is not None
        args: dict[str, Any] = {}
        about: list[str] = []
        fixed_inputs: dict[str, Any] | None = None  # the inputs a criterion's answer was checked with
        for ref in e.references:
            parent = self.domain.entity(ref.entity)
            if parent.name == self.user.name:  # the user; a second such reference is someone else (a payee)
                others = [u for u in self.oracle.rows[parent.name] if u != chain.user_id]
                taken = any(v == chain.user_id for v in args.values())
                args[ref.column] = self.rng.choice(others) if taken and others else chain.user_id
                continue
            if ref.nullable:
                continue
            mine = self.owned(parent, chain.user_id)
            if mine:
                row = self.rng.choice(mine)
                phrase = self.locate(chain, parent, row)
            elif any(r.role == "owner" for r in parent.references):
                return False  # it would be someone else's record
            else:
                rows = list(self.oracle.rows[parent.name].values())
                by_criterion = None
                if rows and self.rng.random() < CRITERION_SHARE:
                    given_now = self._create_inputs(e, m)
                    by_criterion = self.public_by_criterion(chain, m, parent, ref.column, args, given_now)
                if by_criterion is not None:
                    row, phrase = by_criterion
                    fixed_inputs = given_now
                else:
                    row = self._fitting_public_row(chain, m, parent, rows, args) if rows else {}
                    phrase = self.name_public_record(chain, parent, row) if row else None
            if phrase is None:
                return False
            args[ref.column] = row[pk(parent)]
            about.append(phrase)
        given = fixed_inputs if fixed_inputs is not None else self._create_inputs(e, m)
        if chain.on_copy(self.env, m.tool, {**args, **given}) is not None:
            self.rejections["create_refused"] += 1
            return False
        parents = self._parents(chain, e, args)
        result = chain.call(m.tool, **args, **given)
        key = result[pk(e)] if isinstance(result, dict) else None
        if key is None:
            return False
        checks.created(e, key, {**args, **given}, parents)
        chain.goals.append(Goal(m.tool, e.name, key, "create", f"the new {e.human}", given))
        shown = {k: (v.replace("_", " ") if isinstance(v, str) else v) for k, v in given.items()}
        chain.requests.append(
            self.say.create_request(e.create.description, about, shown, first=len(chain.requests) == 0)
        )
        chain.facts += [self.say.record_fact(p) for p in about]
        return True

    def _fitting_public_row(
        self, chain: Chain, m: ToolMeta, parent: Entity, rows: list[dict[str, Any]], args: dict[str, Any]
    ) -> dict[str, Any]:
        """A public record (a flight, a class) the new record can use: the first of a few random ones
        for which a create with default inputs is not refused, else any."""
        assert chain.episode is not None
        e = self.domain.entity(m.entity)
        tool = self.spec.tool(m.tool)
        assert tool is not None and e.create is not None
        column = next(r.column for r in e.references if r.entity == parent.name)
        sample = self.rng.sample(rows, min(5, len(rows)))
        for row in sample:
            if chain.on_copy(self.env, m.tool, {**args, column: row[pk(parent)], **self._create_inputs(e, m)}) is None:
                return row
        return sample[0]

    def _create_inputs(self, e: Entity, m: ToolMeta) -> dict[str, Any]:
        """Values a user would give for the attributes a create asks for."""
        tool = self.spec.tool(m.tool)
        assert tool is not None and e.create is not None
        props = tool.parameters["properties"]
        values = {
            name: self.input_value(a, props[name])
            for name in e.create.inputs
            if (a := e.attribute(name)) is not None and name in props
        }
        return ordered_inputs(values, {a.name: a.kind for a in e.attributes}, self.rng)

    def add_update(self, chain: Chain, m: ToolMeta, checks: Checklist) -> bool:
        e = self.domain.entity(m.entity)
        tool = self.spec.tool(m.tool)
        a = e.attribute(m.attribute or "")
        assert tool is not None and chain.episode is not None
        if a is None:
            return False
        if e.name == self.user.name:
            rows = [self.oracle.rows[e.name][chain.user_id]]
        else:
            rows = [r for r in self.owned(e, chain.user_id) if (e.name, r[pk(e)]) not in chain.targets]
        if not rows:
            return False
        row = self.rng.choice(rows)
        named = None
        if e.name != self.user.name and self.rng.random() < CRITERION_SHARE:
            mine = self.owned_now(e, chain.user_id, chain)
            found = extreme(e, mine, self.rng) if len(mine) >= 2 else None
            if found is not None and (e.name, found[0][pk(e)]) not in chain.targets:
                row, criterion = found
                named = f"my {e.human} with {criterion}"
        value = self.input_value(a, tool.parameters["properties"][a.name])
        if a.kind == "email":
            value = f"{str(row.get(a.name, 'me')).split('@')[0]}.new@example.net"
        if value == row.get(a.name) or inverted({**row, a.name: value}, {x.name: x.kind for x in e.attributes}):
            return False  # no change, or an end before its start
        phrase = self.locate(chain, e, row)
        if phrase is None:
            return False
        phrase = named or phrase
        args = {pk(e): row[pk(e)], a.name: value}
        owner = next((r for r in e.references if r.role == "owner"), None)
        if owner is not None and owner.column in tool.parameters["properties"]:
            args[owner.column] = row[owner.column]
        chain.call(m.tool, **args)
        checks.updated(e, row[pk(e)], a.name, value)
        chain.goals.append(Goal(m.tool, e.name, row[pk(e)], f"update_{a.name}", phrase, {a.name: value}))
        shown = value.replace("_", " ") if isinstance(value, str) and a.kind == "enum" else value
        chain.requests.append(self.say.update_request(a.name, phrase, shown, first=len(chain.requests) == 0))
        if phrase != "my account":
            chain.facts.append(self.say.record_fact(phrase))
        return True
