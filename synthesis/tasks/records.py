"""Creates and updates in task goals: the values a user gives for a new or changed record.

Both may also be *dependent* writes, on the record the previous goal made or moved: a create for it
(a document added to the claim just opened) or a change of one of its fields (the seat of the
booking just made). Every write is tried on a copy of the episode first (:meth:`clean_write`). A
title a write sets names no time of year the record's date is outside, and a date a write sets keeps
the record inside the time of year its title names (:mod:`..domains.seasons`: the seed's rules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs import Environment
from envs.formats.spec import EnvSpec
from envs.quality.chains import WriteVerdict

from ..domains.domain import Attribute, Domain, Entity
from ..domains.labels import fit_inputs, keeps_dependents
from ..domains.money_bands import fit_new_amounts
from ..domains.seasons import fits, when_column
from ..domains.sqlgen import pk
from ..domains.timeline import inverted, ordered_inputs, user_date
from ..gate.oracle import Oracle
from ..tools.toolkit import ToolMeta, sample_argument
from .amounts import proportionate_inputs
from .chain import Chain, Goal
from .checklist import Checklist
from .criteria import CRITERION_SHARE, CriterionGoals, extreme, own_rank_phrase
from .landing import holds_amount, nearby_amount
from .record_motives import create_motive, update_motive
from .relatives import fit_new_relative
from .tells import policy_tells


class RecordGoals(CriterionGoals):
    """Adds creates and updates to a chain (mixed into the task generator)."""

    env: Environment
    spec: EnvSpec
    domain: Domain
    oracle: Oracle

    @staticmethod
    def is_final(e: Entity, row: dict[str, Any]) -> bool:
        """Whether ``row`` is in a state no transition leaves (collected, closed): a record nobody
        changes any more, so no task asks to change its fields or add to it."""
        if e.lifecycle is None:
            return False
        return row.get(e.lifecycle.field) not in {s for t in e.lifecycle.transitions for s in t.from_states}

    @staticmethod
    def editable(e: Entity, a: Attribute, row: dict[str, Any]) -> bool:
        """Whether the user may change ``a`` of ``row`` in its state (its update tool allows it)."""
        states = e.editable_states(a)
        return states is None or (e.lifecycle is not None and row.get(e.lifecycle.field) in states)

    def clean_write(self, chain: Chain, tool: str, args: dict[str, Any]) -> bool:
        """Whether ``tool`` would succeed on a copy of the episode and be clean: not undo an earlier
        write of the task, set a field an earlier write set, or write filler into a structured field."""
        outcome = chain.trial(self.env, tool, args)
        if isinstance(outcome, WriteVerdict) and not outcome.clean:
            self.rejections["undoes_or_repeats"] += 1
        return isinstance(outcome, WriteVerdict) and outcome.clean

    def in_season(self, e: Entity, row: dict[str, Any]) -> bool:
        """Whether every title of ``row`` fits the date it is held on (see :mod:`..domains.seasons`)."""
        when = when_column(e)
        return when is None or all(fits(row.get(a.name), row.get(when)) for a in e.attributes if a.kind == "title")

    def created_today(self, e: Entity) -> dict[str, Any]:
        """The date a new record is held on when the user gives none: a create dates it today."""
        when = when_column(e)
        return {} if when is None else {when: self.spec.clock.strftime("%Y-%m-%d")}

    def seasonal(self, e: Entity, row: dict[str, Any], draw: Callable[[], dict[str, Any]]) -> dict[str, Any] | None:
        """Values from ``draw`` that leave ``row`` (its values before the write) in season when they set
        a title or the date it is held on: drawn again a few times, None when none do."""
        values = draw()
        when = when_column(e)
        titles = {a.name for a in e.attributes if a.kind == "title"}
        if when is None or not (set(values) & (titles | {when})):
            return values
        for _ in range(8):
            if self.in_season(e, {**row, **values}):
                return values
            values = draw()
        return None

    def _parents(self, chain: Chain, e: Entity, row: dict[str, Any]) -> dict[str, Any]:
        assert chain.episode is not None
        out = {}
        for ref in e.references:
            if row.get(ref.column) is not None:
                parent = self.domain.entity(ref.entity)
                out[ref.ref_name] = chain.episode.rows_by_key(parent.table, [(row[ref.column],)])[(row[ref.column],)]
        return out

    def input_value(self, a: Attribute, schema: dict[str, Any]) -> Any:
        """A value a user would give for an attribute of a new record."""
        if a.kind == "enum" and a.values:
            return self.rng.choice(a.values)
        if a.kind in ("date", "datetime"):
            return user_date(a.name, a.kind, self.spec.clock, self.rng)
        if a.kind == "email":
            return self.values.email()
        if a.kind in ("money", "quantity", "integer", "percent", "rating"):
            lo, hi = a.range or (1, 5)
            if a.kind == "money":
                return round(self.rng.uniform(max(lo, 1), min(hi, max(lo, 1) + 50)), 2)
            return self.rng.randint(max(int(lo), 1 if a.kind != "percent" else 0), max(int(lo), 1, min(int(hi), 4)))
        if schema.get("type") == "string" and "format" not in schema and "pattern" not in schema:
            return self.values.text(a.name, a.kind, schema, a)  # a structured kind's value, or free text
        return sample_argument(schema, self.rng, self.spec.clock)

    def add_create(self, chain: Chain, m: ToolMeta, checks: Checklist, *, onto: Goal | None = None) -> bool:
        """A new record of the user's; ``onto``: a goal whose record the new one is for (a dependent
        write: a document added to the claim just opened)."""
        e = self.domain.entity(m.entity)
        tool = self.spec.tool(m.tool)
        assert tool is not None and e.create is not None and chain.episode is not None
        args: dict[str, Any] = {}
        about: list[str] = []
        fixed_inputs: dict[str, Any] | None = None  # the inputs a criterion's answer was checked with
        for ref in e.references:
            parent = self.domain.entity(ref.entity)
            if onto is not None and parent.name == onto.entity and onto.key not in args.values():
                args[ref.column] = onto.key
                about.append(f"the same {parent.human}")
                continue
            if parent.name == self.user.name:  # the user; a second such reference is someone else (a payee)
                others = [u for u in self.oracle.rows[parent.name] if u != chain.user_id]
                taken = any(v == chain.user_id for v in args.values())
                args[ref.column] = self.rng.choice(others) if taken and others else chain.user_id
                continue
            if ref.nullable:
                continue
            mine = self.owned(parent, chain.user_id)
            if mine and chain.one_off is not None and (read := chain.one_off.read_tables({e.table})):
                # a purchase returned already has no room for another return: one that has
                full = chain.one_off.full(e.table, ref.column, {t: chain.episode.dump(t) for t in read})
                if full and not (mine := [r for r in mine if r[pk(parent)] not in full]):
                    return False
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
                    if phrase is None and rows:  # no lookup finds it: what it is and its name
                        given_now = self._create_inputs(e, m)
                        if labelled := self.public_by_label(chain, m, parent, ref.column, args, given_now):
                            (row, phrase), fixed_inputs = labelled, given_now
            if phrase is None:
                return False
            args[ref.column] = row[pk(parent)]
            about.append(phrase)
        given = fixed_inputs if fixed_inputs is not None else self._create_inputs(e, m)
        given = proportionate_inputs(self.spec, chain, e.table, args, given)
        if fixed_inputs is None:  # a relative the user adds fits their family (birth date, surname)
            episode = chain.episode
            given = fit_new_relative(self.spec, e.table, args, given, lambda t, v: episode.rows_by_key(t, [(v,)])[(v,)])
        episode = chain.episode
        tables = {x.name: x.table for x in self.domain.entities}
        given = fit_inputs(  # a topic the tutor teaches, a menu that fits the event (a record named by criterion too)
            self.domain, e, args, given, lambda n, v: episode.rows_by_key(tables[n], [(v,)]).get((v,)), self.rng
        )
        given = fit_new_amounts(  # a basic plan at a basic plan's fee, a tip a share of its basket
            self.domain, e, args, given, lambda n, v: episode.rows_by_key(tables[n], [(v,)]).get((v,))
        )
        if not self.in_season(e, {**self.created_today(e), **given}):
            return False
        if not self.clean_write(chain, m.tool, {**args, **given}):
            self.rejections["create_refused"] += 1
            return False
        parents = self._parents(chain, e, args)
        result = chain.call(m.tool, **args, **given)
        key = result[pk(e)] if isinstance(result, dict) else None
        if key is None:
            return False
        checks.created(e, key, {**args, **given}, parents)
        self._tell_after_create(chain, e, m.tool)
        goal = Goal(m.tool, e.name, key, "create", f"the new {e.human}", given, depends_on_previous=onto is not None)
        chain.goals.append(goal)
        shown = {k: (v.replace("_", " ") if isinstance(v, str) else v) for k, v in given.items()}
        motive = create_motive(e.create.description, f"{chain.user_id}|{about}", follows=onto is not None)
        if motive is not None:
            chain.facts.append(f"Why I'm asking for a new {e.human}: {motive}")
        chain.requests.append(
            self.say.create_request(e.create.description, about, shown, first=len(chain.requests) == 0, motive=motive)
        )
        chain.facts += [self.say.record_fact(p) for p in about if not p.startswith("the same ")]
        return True

    def _tell_after_create(self, chain: Chain, e: Entity, tool: str) -> None:
        """The amount the policy says to tell after this create, where it moves one of the user's
        ("Tell the member their new points balance after every change": a redemption takes points)."""
        for effect in e.create.effects if e.create is not None else []:
            via, _, column = (effect.target or "").removeprefix("via:").partition(".")
            ref = e.reference(via) if (effect.target or "").startswith("via:") else None
            mine = effect.kind in ("add", "subtract") and ref is not None and ref.entity == self.user.name
            if mine and policy_tells(self.domain.rules, column, tool):
                chain.outputs.append((self.user.table, chain.user_id, column))
                return

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
            tried = {**args, column: row[pk(parent)]}
            given = proportionate_inputs(self.spec, chain, e.table, tried, self._create_inputs(e, m))
            if chain.on_copy(self.env, m.tool, {**tried, **given}) is None:
                return row
        return sample[0]

    def _create_inputs(self, e: Entity, m: ToolMeta) -> dict[str, Any]:
        """Values a user would give for the attributes a create asks for."""
        tool = self.spec.tool(m.tool)
        assert tool is not None and e.create is not None
        props = tool.parameters["properties"]
        kinds = {a.name: a.kind for a in e.attributes}
        inputs = e.create.inputs

        def draw() -> dict[str, Any]:
            values = {
                name: self.input_value(a, props[name])
                for name in inputs
                if (a := e.attribute(name)) is not None and name in props
            }
            person = next((v for n, v in values.items() if kinds.get(n) == "person_name" and isinstance(v, str)), None)
            for name in values:  # the recommender's address is the recommender's name's
                if kinds.get(name) == "email" and person is not None:
                    values[name] = self.values.email(person)
            return ordered_inputs(values, kinds, self.rng)

        return self.seasonal(e, self.created_today(e), draw) or draw()  # out of season still: add_create drops it

    def add_update(self, chain: Chain, m: ToolMeta, checks: Checklist, *, row: dict[str, Any] | None = None) -> bool:
        """A change of one field of one of the user's records; ``row``: the record the previous goal
        made or moved, as it is now (a dependent write: the seat of the booking just made)."""
        e = self.domain.entity(m.entity)
        tool = self.spec.tool(m.tool)
        a = e.attribute(m.attribute or "")
        assert tool is not None and chain.episode is not None
        if a is None:
            return False
        if row is not None:
            rows = [row]
        elif e.name == self.user.name:
            rows = [self.oracle.rows[e.name][chain.user_id]]
        else:
            rows = [r for r in self.owned(e, chain.user_id) if (e.name, r[pk(e)]) not in chain.targets]
        rows = [r for r in rows if self.editable(e, a, r)]
        if not rows:
            return False
        dependent = row is not None
        row = self.rng.choice(rows)
        named = None
        if not dependent and e.name != self.user.name and self.rng.random() < CRITERION_SHARE:
            mine = self.owned_now(e, chain.user_id, chain)
            found = extreme(e, mine, self.rng, own=True) if len(mine) >= 2 else None
            # a rank over all their records may pick one nobody changes any more (the earliest order, cancelled)
            if found is not None and (e.name, found[0][pk(e)]) not in chain.targets and self.editable(e, a, found[0]):
                row, rank = found
                named = own_rank_phrase(e, rank, mine, self.spec.clock.date())
        if any(g.entity == e.name and g.key == row[pk(e)] and g.verb == f"update_{a.name}" for g in chain.goals):
            return False  # the user asked to change this field of this record already
        now = chain.episode.rows_by_key(e.table, [(row[pk(e)],)])[(row[pk(e)],)] or row
        schema = tool.parameters["properties"][a.name]

        def draw() -> dict[str, Any]:  # an amount is changed by a little, never drawn anew (measure 80)
            old = now.get(a.name)
            if holds_amount(old, a):  # on its bound, with nowhere to go: unchanged, so no goal
                return {a.name: nearby_amount(old, a, schema, self.rng) or old}
            return {a.name: self.input_value(a, schema)}

        drawn = self.seasonal(e, now, draw)
        if drawn is None:
            return False  # a title or a date this record's date or title contradicts (no Back to School in March)
        episode = chain.episode
        if not keeps_dependents(self.domain, e, now, drawn, lambda x: episode.dump(x.table)):
            return False  # a dinner renamed a brunch party while its catering stays plated
        tables = {x.name: x.table for x in self.domain.entities}
        value = fit_inputs(  # a new value still fits what it is keyed by
            self.domain, e, now, drawn, lambda n, v: episode.rows_by_key(tables[n], [(v,)]).get((v,)), self.rng
        )[a.name]
        if a.kind == "email":
            value = f"{str(row.get(a.name, 'me')).split('@')[0]}.new@example.net"
        if value == row.get(a.name) or inverted({**row, a.name: value}, {x.name: x.kind for x in e.attributes}):
            return False  # no change, or an end before its start
        phrase = f"the same {e.human}" if dependent else self.locate(chain, e, row)
        if phrase is None:
            return False
        phrase = named or phrase
        args = {pk(e): row[pk(e)], a.name: value}
        owner = next((r for r in e.references if r.role == "owner"), None)
        if owner is not None and owner.column in tool.parameters["properties"]:
            args[owner.column] = row[owner.column]
        if not self.clean_write(chain, m.tool, args):
            return False
        chain.call(m.tool, **args)
        checks.updated(e, row[pk(e)], a.name, value)
        verb = f"update_{a.name}"
        chain.goals.append(
            Goal(m.tool, e.name, row[pk(e)], verb, phrase, {a.name: value}, depends_on_previous=dependent)
        )
        shown = value.replace("_", " ") if isinstance(value, str) and a.kind == "enum" else value
        # a change to a record the task just made needs no reason; one to "the same" record still does
        motive = None if phrase.startswith("the new ") else update_motive(a.name, f"{chain.user_id}|{phrase}")
        if motive is not None:
            chain.facts.append(f"Why I want the {a.name.replace('_', ' ')} changed: {motive}")
        said = self.say.update_request(a.name, phrase, shown, first=len(chain.requests) == 0, motive=motive)
        chain.requests.append(said)
        if phrase != "my account" and not dependent:
            chain.facts.append(self.say.record_fact(phrase))
        return True
