"""Write tools of a generated environment: one per lifecycle transition, creates and updates.

Every guard becomes a ``require`` step whose message names the offending value; every effect an
``exec`` step; the status change comes last, after all guards held.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from envs.engine.compile import quote_ident
from envs.quality.written_dates import names_date_to_come

from ..domains.coherence import agreement_sql, agreements
from ..domains.domain import Attribute, Creation, Effect, Entity, Guard, Param, Transition
from ..domains.enforcement import rule_guards
from ..domains.filled_dates import transition_dates
from ..domains.sqlgen import DomainError, Scope, binding, expr, literal, pk, via_refs
from ..domains.timeline import period_starts, shifted_sql
from .coherence_rules import creation_guards
from .confirm import CONFIRM, confirm_schema, confirm_steps
from .guards import describe_guard, guard_step
from .toolkit import ToolBuilderBase, ToolMeta, a_, id_schema, object_schema, owner_step, param_schema, upper_first


def record_select(e: Entity, key: str | None = None) -> str:
    """SELECT of one record by its id (the ``key`` parameter, default the id parameter)."""
    return f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = {key or ':' + pk(e)}"


def insert_step(e: Entity, cols: list[str], vals: list[str]) -> dict[str, Any]:
    """An INSERT of a new ``e`` row; a record with a lifecycle starts in its initial state."""
    if e.lifecycle:
        cols, vals = [*cols, e.lifecycle.field], [*vals, literal(e.lifecycle.initial)]
    return {"kind": "exec", "sql": f"INSERT INTO {quote_ident(e.table)} ({', '.join(cols)}) VALUES ({', '.join(vals)})"}


def record_return(e: Entity, key: str | None = None) -> dict[str, Any]:
    """The return step of a tool that acted on one record: that record, always an object (the
    record exists, so the message is a guard, and the tool can declare its output schema)."""
    return {
        "kind": "return",
        "shape": "one",
        "sql": record_select(e, key),
        "message": f"No {e.human} with id {{{(key or ':' + pk(e))[1:]}}}",
    }


def record_query(e: Entity) -> dict[str, Any]:
    """The step that binds the acted-on record as ``rec``, or fails naming the id."""
    return {"kind": "query", "bind": "rec", "sql": record_select(e), "message": f"No {e.human} with id {{{pk(e)}}}"}


def _conditional(step: dict[str, Any], only_if: str) -> dict[str, Any]:
    """An effect's step that changes nothing unless ``only_if`` holds."""
    sql = step["sql"]
    if sql.startswith("INSERT"):
        head, _, values = sql.partition(" VALUES (")
        sql = f"{head} SELECT {values[:-1]} WHERE {only_if}"
    else:
        sql = f"{sql} AND ({only_if})"
    return {**{k: v for k, v in step.items() if k != "min_changes"}, "sql": sql}


class WriteTools(ToolBuilderBase):
    """Adds the write tools of each entity."""

    def _guard_steps(
        self, e: Entity, guards: list[Guard], where: str, self_id: str, scope: Scope
    ) -> list[dict[str, Any]]:
        return [
            guard_step(self.domain, e, g, f"{where} guards[{i}]", self_id, scope)
            for i, g in enumerate(guards)
            if g.kind != "owner"  # handled by the caller, which adds the owner parameter
        ]

    def _effect_steps(self, e: Entity, effects: list[Effect], where: str, scope: Scope) -> list[dict[str, Any]]:
        self_expr = scope.self_ref
        steps = []
        for i, eff in enumerate(effects):
            at = f"{where} effects[{i}]"
            if eff.when is not None:  # the condition, as a predicate over the call's bound values
                if eff.when.kind in ("owner", "count_max", "sum_max"):
                    raise DomainError(f"{at}: a '{eff.when.kind}' condition cannot decide an effect")
                only_if = guard_step(self.domain, e, eff.when, at, pk(e), scope)["sql"].removeprefix("SELECT ")
                for step in self._effect_steps(e, [eff.model_copy(update={"when": None})], where, scope):
                    steps.append(_conditional(step, only_if))
                continue
            if eff.kind == "cascade":
                steps.append(self._cascade_step(e, eff, at, self_expr))
                continue
            if eff.kind == "insert":
                if eff.entity is None:
                    raise DomainError(f"{at}: an insert effect needs 'entity'")
                other = self.domain.entity(eff.entity)
                cols, vals = [pk(other)], [f"new_id('{other.id_prefix}')"]
                for key, source in eff.values.items():
                    ref = other.reference(key)
                    col = ref.column if ref else key
                    if ref is None and other.attribute(key) is None:
                        raise DomainError(f"{at}: '{eff.entity}' has no attribute or reference '{key}'")
                    cols.append(col)
                    vals.append(expr(source, where=at, scope=scope))
                steps.append(insert_step(other, cols, vals))
                continue
            if eff.target is None:
                raise DomainError(f"{at}: a '{eff.kind}' effect needs 'target'")
            if eff.target.startswith("field:"):
                table, col, cond = e.table, eff.target[6:], f"{pk(e)} = {self_expr}"
                attr = e.attribute(col)
            elif eff.target.startswith("via:"):
                ref_name, _, col = eff.target[4:].partition(".")
                ref = e.reference(ref_name)
                if ref is None or not col:
                    raise DomainError(f"{at}: '{eff.target}' must be via:<reference>.<column>")
                other = self.domain.entity(ref.entity)
                table, cond, attr = other.table, f"{pk(other)} = :rec.{ref.column}", other.attribute(col)
                if scope.in_create:
                    cond = f"{pk(other)} = :{ref.column}"
            else:
                raise DomainError(f"{at}: target '{eff.target}' must start with field: or via:")
            c = quote_ident(col)
            if eff.kind == "set":
                value = expr(eff.value, where=at, scope=scope)
            elif eff.kind in ("add", "subtract"):
                sign = "+" if eff.kind == "add" else "-"
                value = f"{c} {sign} {expr(eff.amount, where=at, scope=scope)}"
                if attr is not None and attr.kind == "money":
                    value = f"round({value}, 2)"
            else:
                fn = "datetime" if attr is not None and attr.kind == "datetime" else "date"
                start = c
                if names_date_to_come(col):  # another 30 days from a lapsed date are counted from today
                    start = f"max({c}, {':now' if fn == 'datetime' else ':today'})"
                value = f"{fn}({start}, '+' || CAST({expr(eff.amount, where=at, scope=scope)} AS INTEGER) || ' days')"
            update: dict[str, Any] = {
                "kind": "exec",
                "min_changes": 1,
                "message": f"Could not update {table}",
                "sql": f"UPDATE {quote_ident(table)} SET {c} = {value} WHERE {cond}",
            }
            steps.append(update)
        return steps

    def _cascade_step(self, e: Entity, eff: Effect, at: str, self_expr: str) -> dict[str, Any]:
        """Move the acted-on record's children in ``states`` to ``value``, all in one UPDATE."""
        child = self.domain.entity(eff.entity) if eff.entity else None
        ref = next((r for r in child.references if r.entity == e.name), None) if child else None
        if child is None or child.lifecycle is None or ref is None:
            raise DomainError(f"{at}: a cascade needs 'entity', a child with a lifecycle that references '{e.name}'")
        known = set(child.lifecycle.states)
        if eff.value not in known or not eff.states or not set(eff.states) <= known:
            raise DomainError(f"{at}: 'value' and 'states' must be states of '{child.name}' ({sorted(known)})")
        status = quote_ident(child.lifecycle.field)
        return {
            "kind": "exec",
            "sql": f"UPDATE {quote_ident(child.table)} SET {status} = {literal(eff.value)} "
            f"WHERE {ref.column} = {self_expr} AND {status} IN ({', '.join(map(literal, eff.states))})",
        }

    def _via_queries(self, e: Entity, sources: list[Any], from_params: bool) -> list[dict[str, Any]]:
        steps = []
        for ref_name in via_refs(sources):
            ref = e.reference(ref_name)
            if ref is None:
                raise DomainError(f"entity '{e.name}' has no reference '{ref_name}'")
            other = self.domain.entity(ref.entity)
            key = f":{ref.column}" if from_params else f":rec.{ref.column}"
            steps.append(
                {
                    "kind": "query",
                    "bind": binding(ref_name),
                    "expect": "optional",
                    "sql": f"SELECT * FROM {quote_ident(other.table)} WHERE {pk(other)} = {key}",
                }
            )
        return steps

    def _params(self, params: list[Param]) -> tuple[dict[str, Any], list[str]]:
        props = {p.name: param_schema(p.kind, p.values, p.description) for p in params}
        return props, [p.name for p in params if p.required]

    def transition(self, e: Entity, t: Transition) -> None:
        assert e.lifecycle is not None
        name = t.name if t.name.endswith(e.name) else f"{t.name}_{e.name}"
        where = f"entity '{e.name}' transition '{t.name}'"
        props: dict[str, Any] = {pk(e): id_schema(e)}
        required = [pk(e)]
        steps: list[dict[str, Any]] = [record_query(e)]
        inputs = {pk(e): f"{e.name}.{pk(e)}"}
        owner = self.domain.owner_checked(e, t)
        if owner is None and any(g.kind == "owner" for g in t.guards):
            raise DomainError(f"{where}: an owner guard needs a reference with role 'owner'")
        if owner is not None:
            props[owner.column] = id_schema(self.domain.entity(owner.entity))
            required.append(owner.column)
            inputs[owner.column] = f"{owner.entity}.{owner.entity}_id"
        p_props, p_req = self._params(t.params)
        props.update(p_props)
        required += p_req
        inputs.update({p.name: f"param.{p.name}" for p in t.params})
        sources = (
            [g.field for g in t.guards]
            + [g.amount for g in t.guards]
            + [g.add for g in t.guards]
            + [x.when.field for x in t.effects if x.when]
            + [x.when.amount for x in t.effects if x.when]
            + [x.target for x in t.effects]
            + [x.amount for x in t.effects]
            + [x.value for x in t.effects]
            + [v for x in t.effects for v in x.values.values()]
        )
        steps += self._via_queries(e, sources, from_params=False)
        fs = t.from_states
        if owner is not None:  # ownership first: never reveal the state of someone else's record
            parent = self.domain.entity(owner.entity)
            steps.append(owner_step(e, pk(e), "rec", owner.column, parent))
        steps.append(
            {
                "kind": "require",
                "sql": f"SELECT :rec.{e.lifecycle.field} IN ({', '.join(map(literal, fs))})",
                "message": f"{upper_first(e.human)} {{{pk(e)}}} is {{rec.{e.lifecycle.field}}}; "
                f"{name.replace('_', ' ')} needs it to be {' or '.join(fs)}",
            }
        )
        scope = Scope(self_ref=f":{pk(e)}")
        steps += self._guard_steps(e, self.checked(t.guards), where, pk(e), scope)
        if t.confirm:  # after every rule: a refusal says why, a confirmation what would happen
            props[CONFIRM] = confirm_schema()
            required.append(CONFIRM)
            steps += confirm_steps(self.domain, e, t, scope)
        steps += self._effect_steps(e, t.effects, where, scope)
        if t.to not in fs or len(fs) > 1:
            steps.append(
                {
                    "kind": "exec",
                    "sql": f"UPDATE {quote_ident(e.table)} SET {e.lifecycle.field} = {literal(t.to)} "
                    f"WHERE {pk(e)} = :{pk(e)}",
                }
            )
        steps.append(record_return(e))
        confirm = " Tell the customer what it does and get their explicit confirmation first." if t.confirm else ""

        def allowed(rules: list[str]) -> str:
            when = f"Allowed only when the {e.human} is {' or '.join(fs)}"
            return f"{t.description.rstrip('.')}. {when}{''.join('; ' + r for r in rules)}.{confirm}"

        self.add(
            {
                "name": name,
                "kind": "write",
                "description": allowed(self.describe_guards(e, self.checked(t.guards), owner)),
                "parameters": object_schema(props, required),
                "steps": steps,
            },
            ToolMeta(
                name,
                "write",
                e.name,
                "transition",
                inputs=inputs,
                outputs=self.outputs(e),
                requires=[f"{e.name}:{s}" for s in fs],
                produces=[f"{e.name}:{t.to}"],
                transition=t.name,
                policy=allowed(self.describe_guards(e, t.guards, owner)),
            ),
            rules=[(g, describe_guard(self.domain, g, e.human) or g.kind) for g in rule_guards(t)],
        )

    def describe_guards(self, e: Entity, guards: list[Guard], owner: Any) -> list[str]:
        out = []
        for g in guards:
            if g.kind == "owner" and owner is not None:
                out.append(f"it must belong to the {self.domain.entity(owner.entity).human} given")
            elif (text := describe_guard(self.domain, g, e.human)) is not None:
                out.append(text)
        return list(dict.fromkeys(out))  # a rule the coherence checks add may repeat one the domain has

    def create(self, e: Entity, c: Creation) -> None:
        name = f"create_{e.name}"
        where = f"entity '{e.name}' create"
        props: dict[str, Any] = {}
        required: list[str] = []
        inputs: dict[str, str] = {}
        steps: list[dict[str, Any]] = []
        for ref in e.references:
            parent = self.domain.entity(ref.entity)
            props[ref.column] = id_schema(parent)
            inputs[ref.column] = f"{parent.name}.{pk(parent)}"
            if not ref.nullable:
                required.append(ref.column)
            steps.append(
                {
                    "kind": "query",
                    "bind": binding(ref.ref_name),
                    "expect": "optional" if ref.nullable else "one",
                    "sql": f"SELECT * FROM {quote_ident(parent.table)} WHERE {pk(parent)} = :{ref.column}",
                    "message": f"No {parent.human} with id {{{ref.column}}}",
                }
            )
        for attr_name in c.inputs:
            a = e.attribute(attr_name)
            if a is None:
                raise DomainError(f"{where}: input '{attr_name}' is not an attribute of '{e.name}'")
            props[a.name] = param_schema(a.kind, a.values, a.description)
            inputs[a.name] = f"{e.name}.{a.name}"
            if not a.nullable:
                required.append(a.name)
        steps += self._agreement_steps(e)
        guards = creation_guards(self.domain, e, c)
        scope = Scope(self_ref=":new.id", in_create=True, table=e.table, key=pk(e), inputs=frozenset(c.inputs))
        steps += self._guard_steps(e, self.checked(guards), where, pk(e), scope)
        steps.append({"kind": "query", "bind": "new", "sql": f"SELECT new_id('{e.id_prefix}') AS id"})
        cols, vals = [pk(e)], [":new.id"]
        for ref in e.references:
            cols.append(ref.column)
            vals.append(f":{ref.column}")
        given = {a.name: f":{a.name}" if a.name in c.inputs else self.default(a) for a in e.attributes}
        moved = {x.target.removeprefix("field:") for x in c.effects if x.target and x.target.startswith("field:")}
        later = transition_dates(e)
        for a in e.attributes:  # a date the create's own effects move (a loan due 21 days on) starts today
            if a.name not in c.inputs and a.name not in moved and a.kind in ("date", "datetime"):
                given[a.name] = self.default_to_come(a) if names_date_to_come(a.name) else given[a.name]
                if a.name in later and a.nullable:  # a draft has no submission day until it is submitted
                    given[a.name] = "NULL"
        for end, (start, gap) in period_starts(e).items():
            a = e.attribute(end)
            if end not in c.inputs and a is not None:  # a period's end starts after its start, not today
                given[end] = "NULL" if a.nullable else shifted_sql(given[start], gap, a.kind)
        for a in e.attributes:
            cols.append(a.name)
            vals.append(given[a.name])
        steps.append(insert_step(e, cols, vals))
        steps += self._effect_steps(e, c.effects, where, scope)
        steps.append(record_return(e, ":new.id"))
        agreed = []
        for ag in agreements(self.domain, e):
            source, target = self.domain.entity(ag.source.entity), self.domain.entity(ag.target.entity)
            verb = "belong to" if ag.path[-1].role == "owner" else "be for"
            agreed.append(f"the {source.human} must {verb} the {target.human} given")

        def requires(rules: list[str]) -> str:
            rules = rules + agreed
            return f"{c.description.rstrip('.')}{'. Requires: ' + '; '.join(rules) if rules else ''}."

        self.add(
            {
                "name": name,
                "kind": "write",
                "description": requires(self.describe_guards(e, self.checked(guards), None)),
                "parameters": object_schema(props, required),
                "steps": steps,
            },
            ToolMeta(
                name,
                "write",
                e.name,
                "create",
                inputs=inputs,
                outputs=self.outputs(e),
                produces=[f"{e.name}:{e.lifecycle.initial}"] if e.lifecycle else [],
                policy=requires(self.describe_guards(e, guards, None)),
            ),
            rules=[(g, describe_guard(self.domain, g, e.human) or g.kind) for g in guards if g.kind != "owner"],
        )

    def _agreement_steps(self, e: Entity) -> list[dict[str, Any]]:
        """A new record's references must agree: a credit entry's passenger is its booking's passenger."""
        steps = []
        for ag in agreements(self.domain, e):
            source, target = self.domain.entity(ag.source.entity), self.domain.entity(ag.target.entity)
            leads = agreement_sql(self.domain, ag, f":{ag.source.column}")
            verb = "belongs to" if ag.path[-1].role == "owner" else "is for"
            steps.append(
                {
                    "kind": "require",
                    "mode": "empty",
                    "sql": f"SELECT {leads} AS expected WHERE :{ag.target.column} != {leads}",
                    "message": f"{upper_first(source.human)} {{{ag.source.column}}} {verb} {target.human} "
                    f"{{expected}}, not {target.human} {{{ag.target.column}}}",
                }
            )
        return steps

    @staticmethod
    def default_to_come(a: Attribute) -> str:
        """A new record's date to come that the user does not give: none yet where it may be empty
        (an application is not issued, so it has no expiry), else a month ahead (a first bill)."""
        if a.nullable:
            return "NULL"
        return shifted_sql(":today" if a.kind == "date" else ":now", timedelta(days=30), a.kind)

    def default(self, a: Attribute) -> str:
        if a.kind == "date":
            return ":today"
        if a.kind == "datetime":
            return ":now"
        if a.kind in ("money", "quantity", "integer", "percent", "rating"):
            return literal(int(a.range[0]) if a.range and a.kind != "money" else (a.range[0] if a.range else 0))
        if a.kind == "enum":
            return literal((a.values or [""])[0])
        if a.kind == "boolean":
            return "0"
        if a.kind == "code":
            return f"{literal(a.prefix or '')} || :new.id"
        return "NULL" if a.nullable else "''"

    def update(self, e: Entity, a: Attribute) -> None:
        name = f"update_{e.name}_{a.name}"
        steps: list[dict[str, Any]] = [record_query(e)]
        props: dict[str, Any] = {pk(e): id_schema(e)}
        inputs = {pk(e): f"{e.name}.{pk(e)}"}
        owner = next((r for r in e.references if r.role == "owner"), None)
        if owner is not None:  # the agent changes only the customer's own records
            parent = self.domain.entity(owner.entity)
            props[owner.column] = id_schema(parent)
            inputs[owner.column] = f"{owner.entity}.{owner.entity}_id"
            steps.append(owner_step(e, pk(e), "rec", owner.column, parent))
        props[a.name] = param_schema(a.kind, a.values, "The new value")
        states = e.editable_states(a)
        life = e.lifecycle
        while_ = ""
        if life is not None and states is not None and set(states) != set(life.states):
            # owner first, as for a transition: never reveal the state of someone else's record
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT :rec.{life.field} IN ({', '.join(map(literal, states))})",
                    "message": f"{upper_first(e.human)} {{{pk(e)}}} is {{rec.{life.field}}}; its "
                    f"{a.name.replace('_', ' ')} can be changed only while it is {' or '.join(states)}",
                }
            )
            while_ = f" Allowed only when the {e.human} is {' or '.join(states)}."
        if a.unique:
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT NOT EXISTS (SELECT 1 FROM {quote_ident(e.table)} WHERE {a.name} = :{a.name} "
                    f"AND {pk(e)} != :{pk(e)})",
                    "message": f"{upper_first(a.name.replace('_', ' '))} {{{a.name}}} is already used "
                    f"by another {e.human}",
                }
            )
        steps.append(
            {"kind": "exec", "sql": f"UPDATE {quote_ident(e.table)} SET {a.name} = :{a.name} WHERE {pk(e)} = :{pk(e)}"}
        )
        steps.append(record_return(e))
        self.add(
            {
                "name": name,
                "kind": "write",
                "description": f"Change the {a.name.replace('_', ' ')} of {a_(e.human)}"
                f"{' (must not be used by another ' + e.human + ')' if a.unique else ''}.{while_}",
                "parameters": object_schema(props, list(props)),
                "steps": steps,
            },
            ToolMeta(
                name,
                "write",
                e.name,
                "update",
                inputs={**inputs, a.name: f"param.{a.name}"},
                outputs=self.outputs(e),
                requires=[f"{e.name}:{s}" for s in states or []] if while_ else [],
                attribute=a.name,
            ),
        )
