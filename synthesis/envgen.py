"""Domain -> environment spec: tables with constraints, tools with SQL guards, policy, invariants.

Per entity: a details lookup by id, lookups by each natural key a user would know, listings per
reference and a filtered search (reads); one write tool per lifecycle transition, a create tool
and update tools where the domain allows them. Every guard becomes a ``require`` step whose
message names the offending value, so the procedural tests can check that each guard, violated
alone, gives its own error. Alongside the spec, each tool gets a :class:`ToolMeta` describing
what it consumes, produces, requires and changes — the raw material of the dependency graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from envs.compile import quote_ident
from envs.spec import EnvSpec

from .domain import Attribute, Creation, Domain, Effect, Entity, Guard, Param, Transition
from .seedgen import DEFAULT_ROWS, generate_seed
from .sqlgen import DomainError, binding, expr, literal, pk, via_refs

TEXT_KINDS = {
    "person_name",
    "first_name",
    "last_name",
    "company",
    "email",
    "phone",
    "street_address",
    "city",
    "zip",
    "country",
    "code",
    "title",
    "text",
    "url",
    "enum",
}
_COLUMN_TYPES = {
    "money": "real",
    "quantity": "integer",
    "integer": "integer",
    "percent": "integer",
    "rating": "integer",
    "date": "date",
    "datetime": "datetime",
    "boolean": "boolean",
}


@dataclass
class ToolMeta:
    """What a generated tool needs and does, for the dependency graph and the task generator.

    ``inputs`` / ``outputs`` are semantic keys: ``entity.column`` (ids are ``entity.<entity>_id``).
    ``requires`` / ``produces`` are ``entity:state`` pairs a transition needs and leaves.
    """

    tool: str
    kind: str
    entity: str
    role: str  # details | lookup | list | search | transition | create | update
    inputs: dict[str, str] = field(default_factory=dict)  # parameter -> semantic key
    outputs: list[str] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)
    produces: list[str] = field(default_factory=list)
    transition: str | None = None
    attribute: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class GeneratedEnv:
    spec: EnvSpec
    meta: list[ToolMeta]


def column_type(attr: Attribute) -> str:
    return _COLUMN_TYPES.get(attr.kind, "text")


def param_schema(kind: str, values: list[str] | None, description: str) -> dict[str, Any]:
    """The JSON Schema of an argument of a semantic kind."""
    schema: dict[str, Any] = {
        "email": {"type": "string", "format": "email"},
        "phone": {"type": "string", "pattern": r"^\+?[0-9]{7,15}$"},
        "date": {"type": "string", "format": "date"},
        "datetime": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"},
        "money": {"type": "number", "minimum": 0},
        "quantity": {"type": "integer", "minimum": 0},
        "integer": {"type": "integer"},
        "percent": {"type": "integer", "minimum": 0, "maximum": 100},
        "rating": {"type": "integer", "minimum": 1, "maximum": 5},
        "boolean": {"type": "boolean"},
    }.get(kind, {"type": "string", "minLength": 1, "maxLength": 200})
    schema = dict(schema)
    if kind == "enum":
        schema = {"type": "string", "enum": list(values or [])}
    if description:
        schema["description"] = description
    return schema


def id_schema(entity: Entity) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": f"^{entity.id_prefix}[0-9]+$",
        "description": f"The {entity.human} id, e.g. '{entity.id_prefix}0001'",
    }


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _table(entity: Entity, domain: Domain) -> dict[str, Any]:
    cols: list[dict[str, Any]] = [{"name": pk(entity), "type": "text", "description": f"{entity.human} id"}]
    fks = []
    for ref in entity.references:
        cols.append({"name": ref.column, "type": "text", "nullable": ref.nullable})
        fks.append(
            {"columns": [ref.column], "table": domain.entity(ref.entity).table, "references": [f"{ref.entity}_id"]}
        )
    for a in entity.attributes:
        col: dict[str, Any] = {
            "name": a.name,
            "type": column_type(a),
            "nullable": a.nullable,
            "unique": a.unique,
            "description": a.description,
        }
        if a.kind == "enum":
            col["enum"] = a.values
        lo = a.range[0] if a.range else 0
        if a.kind in ("money", "quantity") and lo >= 0:
            col["check"] = f"{quote_ident(a.name)} >= 0"
        cols.append(col)
    if entity.lifecycle:
        cols.append({"name": entity.lifecycle.field, "type": "text", "enum": entity.lifecycle.states})
    return {
        "name": entity.table,
        "description": entity.description,
        "primary_key": [pk(entity)],
        "columns": cols,
        "foreign_keys": fks,
    }


class _ToolBuilder:
    """Builds the tools of one domain."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.tools: list[dict[str, Any]] = []
        self.meta: list[ToolMeta] = []

    def add(self, tool: dict[str, Any], meta: ToolMeta) -> None:
        if any(t["name"] == tool["name"] for t in self.tools):
            raise DomainError(f"two generated tools are called '{tool['name']}'")
        self.tools.append(tool)
        self.meta.append(meta)

    def outputs(self, e: Entity) -> list[str]:
        cols = [pk(e)] + [r.column for r in e.references] + [a.name for a in e.attributes]
        return [f"{e.name}.{c}" for c in cols]

    def ref_key(self, e: Entity, column: str) -> str:
        ref = next((r for r in e.references if r.column == column), None)
        return f"{ref.entity}.{ref.entity}_id" if ref else f"{e.name}.{column}"

    # -- reads ----------------------------------------------------------------------------------------
    def details(self, e: Entity) -> None:
        children = [
            (c, r) for c in self.domain.entities for r in c.references if r.entity == e.name and r.role == "owner"
        ]
        extra = "".join(
            f", (SELECT json_group_array({quote_ident(pk(c))}) FROM {quote_ident(c.table)} "
            f"WHERE {quote_ident(r.column)} = t.{quote_ident(pk(e))}) AS {quote_ident(c.table)}"
            for c, r in children
        )
        name = f"get_{e.name}_details"
        owned = f", with the ids of its {', '.join(c.table.replace('_', ' ') for c, _ in children)}" if children else ""
        self.add(
            {
                "name": name,
                "kind": "read",
                "description": f"Get the full record of a {e.human} by its id{owned}.",
                "parameters": _object({pk(e): id_schema(e)}, [pk(e)]),
                "steps": [
                    {
                        "kind": "query",
                        "bind": "rec",
                        "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :{pk(e)}",
                        "message": f"No {e.human} with id {{{pk(e)}}}",
                    },
                    {
                        "kind": "return",
                        "shape": "one",
                        "json_columns": [c.table for c, _ in children],
                        "sql": f"SELECT t.*{extra} FROM {quote_ident(e.table)} t WHERE t.{pk(e)} = :{pk(e)}",
                    },
                ],
            },
            ToolMeta(
                name,
                "read",
                e.name,
                "details",
                inputs={pk(e): f"{e.name}.{pk(e)}"},
                outputs=self.outputs(e) + [f"{c.name}.{pk(c)}" for c, _ in children],
            ),
        )

    def lookups(self, e: Entity) -> None:
        for a in e.attributes:
            if not a.lookup:
                continue
            name = f"find_{e.name}_by_{a.name}"
            match = (
                f"lower(trim({a.name})) = lower(trim(:{a.name}))" if a.kind in TEXT_KINDS else f"{a.name} = :{a.name}"
            )
            steps: list[dict[str, Any]] = [
                {
                    "kind": "require",
                    "sql": f"SELECT EXISTS (SELECT 1 FROM {quote_ident(e.table)} WHERE {match})",
                    "message": f"No {e.human} with {a.name.replace('_', ' ')} {{{a.name}}}",
                },
                {
                    "kind": "return",
                    "shape": "one" if a.unique else "many",
                    "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {match} ORDER BY {pk(e)}",
                },
            ]
            what = "the" if a.unique else "every"
            self.add(
                {
                    "name": name,
                    "kind": "read",
                    "description": f"Find {what} {e.human} with the given {a.name.replace('_', ' ')} "
                    f"(case-insensitive).",
                    "parameters": _object({a.name: param_schema(a.kind, a.values, "")}, [a.name]),
                    "steps": steps,
                },
                ToolMeta(
                    name,
                    "read",
                    e.name,
                    "lookup",
                    inputs={a.name: f"{e.name}.{a.name}"},
                    outputs=self.outputs(e),
                    attribute=a.name,
                ),
            )
        names = [a for a in e.attributes if a.kind == "person_name"]
        dated = [a for a in e.attributes if a.kind == "date" or a.kind == "zip"]
        if e.name == self.domain.user_entity and names and dated:
            n, d = names[0], dated[0]
            name = f"find_{e.name}_by_name_and_{d.name}"
            match = f"lower({n.name}) = lower(trim(:{n.name})) AND {d.name} = :{d.name}"
            self.add(
                {
                    "name": name,
                    "kind": "read",
                    "description": f"Find {e.human}s by full name and {d.name.replace('_', ' ')}.",
                    "parameters": _object(
                        {n.name: param_schema(n.kind, None, "Full name"), d.name: param_schema(d.kind, None, "")},
                        [n.name, d.name],
                    ),
                    "steps": [
                        {
                            "kind": "require",
                            "sql": f"SELECT EXISTS (SELECT 1 FROM {quote_ident(e.table)} WHERE {match})",
                            "message": f"No {e.human} named {{{n.name}}} with {d.name.replace('_', ' ')} {{{d.name}}}",
                        },
                        {
                            "kind": "return",
                            "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {match} ORDER BY {pk(e)}",
                        },
                    ],
                },
                ToolMeta(
                    name,
                    "read",
                    e.name,
                    "lookup",
                    inputs={n.name: f"{e.name}.{n.name}", d.name: f"{e.name}.{d.name}"},
                    outputs=self.outputs(e),
                    attribute=f"{n.name}+{d.name}",
                ),
            )

    def listings(self, e: Entity) -> None:
        status = e.lifecycle.field if e.lifecycle else None
        for ref in e.references:
            parent = self.domain.entity(ref.entity)
            name = f"list_{e.table}_for_{ref.ref_name}"
            props: dict[str, Any] = {ref.column: id_schema(parent)}
            cond = f"{ref.column} = :{ref.column}"
            if status and e.lifecycle:
                props[status] = {
                    **param_schema("enum", e.lifecycle.states, f"Only {e.table.replace('_', ' ')} in this {status}")
                }
                cond += f" AND (:{status} IS NULL OR {status} = :{status})"
            self.add(
                {
                    "name": name,
                    "kind": "read",
                    "description": f"List the {e.table.replace('_', ' ')} of a {parent.human}"
                    f"{', optionally only those with a given ' + status if status else ''}.",
                    "parameters": _object(props, [ref.column]),
                    "steps": [
                        {
                            "kind": "query",
                            "bind": "parent",
                            "sql": f"SELECT * FROM {quote_ident(parent.table)} WHERE {pk(parent)} = :{ref.column}",
                            "message": f"No {parent.human} with id {{{ref.column}}}",
                        },
                        {
                            "kind": "return",
                            "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {cond} ORDER BY {pk(e)}",
                        },
                    ],
                },
                ToolMeta(
                    name,
                    "read",
                    e.name,
                    "list",
                    inputs={ref.column: f"{parent.name}.{pk(parent)}"},
                    outputs=self.outputs(e),
                ),
            )

    def search(self, e: Entity) -> None:
        filters = [a for a in e.attributes if a.kind == "enum"]
        if not e.lifecycle and not filters:
            return
        props: dict[str, Any] = {}
        conds = []
        if e.lifecycle:
            props[e.lifecycle.field] = param_schema("enum", e.lifecycle.states, "")
            conds.append(f"(:{e.lifecycle.field} IS NULL OR {e.lifecycle.field} = :{e.lifecycle.field})")
        for a in filters:
            props[a.name] = param_schema("enum", a.values, "")
            conds.append(f"(:{a.name} IS NULL OR {a.name} = :{a.name})")
        props["limit"] = {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "description": "At most this many (default 20)",
        }
        name = f"search_{e.table}"
        self.add(
            {
                "name": name,
                "kind": "read",
                "description": f"Search {e.table.replace('_', ' ')} by {', '.join(props).replace(', limit', '')}; "
                "every filter is optional.",
                "parameters": _object(props, []),
                "steps": [
                    {
                        "kind": "return",
                        "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {' AND '.join(conds)} "
                        f"ORDER BY {pk(e)} LIMIT coalesce(:limit, 20)",
                    }
                ],
            },
            ToolMeta(name, "read", e.name, "search", outputs=self.outputs(e)),
        )

    # -- writes ---------------------------------------------------------------------------------------
    def _guard_steps(self, e: Entity, guards: list[Guard], where: str, self_id: str) -> list[dict[str, Any]]:
        steps = []
        for i, g in enumerate(guards):
            at = f"{where} guards[{i}]"
            if g.kind == "owner":
                continue  # handled by the caller, which adds the owner parameter
            if g.field is None:
                raise DomainError(f"{at}: a '{g.kind}' guard needs 'field'")
            f = expr(g.field, where=at)
            label = g.field.split(":", 1)[1].replace(".", " ").replace("_", " ")
            if g.kind == "min":
                amount = expr(g.amount, where=at)
                sql = f"SELECT {f} >= {amount}"
                msg = (
                    g.message or f"The {label} of {e.human} {{{self_id}}} is {{{f[1:]}}}, below the required {{AMOUNT}}"
                )
                msg = msg.replace("{AMOUNT}", "{" + amount[1:] + "}" if amount.startswith(":") else amount.strip("'"))
            elif g.kind in ("future", "past"):
                ref_time = f"datetime(:now, '+{g.hours} hours')" if g.hours else ":now"
                op = ">" if g.kind == "future" else "<="
                sql = f"SELECT {f} {op} {ref_time}"
                when = (
                    f"more than {g.hours} hours from now"
                    if g.hours and g.kind == "future"
                    else ("in the future" if g.kind == "future" else "in the past")
                )
                msg = g.message or f"The {label} of {e.human} {{{self_id}}} ({{{f[1:]}}}) must be {when}"
            else:
                sql = f"SELECT {f} IS {literal(g.value)}"
                msg = g.message or f"The {label} of {e.human} {{{self_id}}} is {{{f[1:]}}}; it must be {g.value}"
            steps.append({"kind": "require", "sql": sql, "message": msg})
        return steps

    def _effect_steps(self, e: Entity, effects: list[Effect], where: str, self_expr: str) -> list[dict[str, Any]]:
        steps = []
        for i, eff in enumerate(effects):
            at = f"{where} effects[{i}]"
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
                    vals.append(self_expr if source == "self" else expr(source, where=at))
                if other.lifecycle:
                    cols.append(other.lifecycle.field)
                    vals.append(literal(other.lifecycle.initial))
                steps.append(
                    {
                        "kind": "exec",
                        "sql": f"INSERT INTO {quote_ident(other.table)} ({', '.join(cols)}) VALUES ({', '.join(vals)})",
                    }
                )
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
                if self_expr != ":rec." + pk(e) and self_expr.startswith(":new"):
                    cond = f"{pk(other)} = :{ref.column}"
            else:
                raise DomainError(f"{at}: target '{eff.target}' must start with field: or via:")
            c = quote_ident(col)
            if eff.kind == "set":
                value = expr(eff.value, where=at)
            elif eff.kind in ("add", "subtract"):
                sign = "+" if eff.kind == "add" else "-"
                value = f"{c} {sign} {expr(eff.amount, where=at)}"
                if attr is not None and attr.kind == "money":
                    value = f"round({value}, 2)"
            else:
                fn = "datetime" if attr is not None and attr.kind == "datetime" else "date"
                value = f"{fn}({c}, '+' || CAST({expr(eff.amount, where=at)} AS INTEGER) || ' days')"
            steps.append(
                {
                    "kind": "exec",
                    "min_changes": 1,
                    "message": f"Could not update {table}",
                    "sql": f"UPDATE {quote_ident(table)} SET {c} = {value} WHERE {cond}",
                }
            )
        return steps

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

    def _owner(self, e: Entity) -> Any:
        return next((r for r in e.references if r.role == "owner"), None)

    def transition(self, e: Entity, t: Transition) -> None:
        assert e.lifecycle is not None
        name = t.name if t.name.endswith(e.name) else f"{t.name}_{e.name}"
        where = f"entity '{e.name}' transition '{t.name}'"
        props: dict[str, Any] = {pk(e): id_schema(e)}
        required = [pk(e)]
        steps: list[dict[str, Any]] = [
            {
                "kind": "query",
                "bind": "rec",
                "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :{pk(e)}",
                "message": f"No {e.human} with id {{{pk(e)}}}",
            }
        ]
        inputs = {pk(e): f"{e.name}.{pk(e)}"}
        owner = self._owner(e) if any(g.kind == "owner" for g in t.guards) else None
        if any(g.kind == "owner" for g in t.guards):
            if owner is None:
                raise DomainError(f"{where}: an owner guard needs a reference with role 'owner'")
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
            + [x.target for x in t.effects]
            + [x.amount for x in t.effects]
            + [x.value for x in t.effects]
            + [v for x in t.effects for v in x.values.values()]
        )
        steps += self._via_queries(e, sources, from_params=False)
        fs = t.from_states
        if owner is not None:  # ownership first: never reveal the state of someone else's record
            parent = self.domain.entity(owner.entity)
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT :rec.{owner.column} IS :{owner.column}",
                    "message": f"{e.human.capitalize()} {{{pk(e)}}} does not belong to {parent.human} {{{owner.column}}}",
                }
            )
        steps.append(
            {
                "kind": "require",
                "sql": f"SELECT :rec.{e.lifecycle.field} IN ({', '.join(map(literal, fs))})",
                "message": f"{e.human.capitalize()} {{{pk(e)}}} is {{rec.{e.lifecycle.field}}}; "
                f"{name.replace('_', ' ')} needs it to be {' or '.join(fs)}",
            }
        )
        steps += self._guard_steps(e, t.guards, where, pk(e))
        steps += self._effect_steps(e, t.effects, where, f":{pk(e)}")
        if t.to not in fs or len(fs) > 1:
            steps.append(
                {
                    "kind": "exec",
                    "sql": f"UPDATE {quote_ident(e.table)} SET {e.lifecycle.field} = {literal(t.to)} "
                    f"WHERE {pk(e)} = :{pk(e)}",
                }
            )
        steps.append(
            {"kind": "return", "shape": "one", "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :{pk(e)}"}
        )
        rules = self.describe_guards(e, t.guards, owner)
        self.add(
            {
                "name": name,
                "kind": "write",
                "description": f"{t.description.rstrip('.')}. Allowed only when the {e.human} is {' or '.join(fs)}"
                f"{'; ' + '; '.join(rules) if rules else ''}.",
                "parameters": _object(props, required),
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
            ),
        )

    def describe_guards(self, e: Entity, guards: list[Guard], owner: Any) -> list[str]:
        out = []
        for g in guards:
            if g.kind == "owner" and owner is not None:
                out.append(f"it must belong to the {self.domain.entity(owner.entity).human} given")
            elif g.field:
                label = g.field.split(":", 1)[1].replace(".", "'s ").replace("_", " ")
                if g.kind == "min":
                    amt = str(g.amount).split(":", 1)[-1].replace(".", "'s ").replace("_", " ")
                    out.append(
                        f"the {label} must be at least the {amt}"
                        if isinstance(g.amount, str)
                        else f"the {label} must be at least {g.amount}"
                    )
                elif g.kind == "future":
                    out.append(
                        f"the {label} must be more than {g.hours} hours away"
                        if g.hours
                        else f"the {label} must be in the future"
                    )
                elif g.kind == "past":
                    out.append(f"the {label} must have passed")
                else:
                    out.append(f"the {label} must be {g.value}")
        return out

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
        steps += self._guard_steps(e, c.guards, where, pk(e))
        steps.append({"kind": "query", "bind": "new", "sql": f"SELECT new_id('{e.id_prefix}') AS id"})
        cols, vals = [pk(e)], [":new.id"]
        for ref in e.references:
            cols.append(ref.column)
            vals.append(f":{ref.column}")
        for a in e.attributes:
            cols.append(a.name)
            vals.append(f":{a.name}" if a.name in c.inputs else self.default(a))
        if e.lifecycle:
            cols.append(e.lifecycle.field)
            vals.append(literal(e.lifecycle.initial))
        steps.append(
            {
                "kind": "exec",
                "sql": f"INSERT INTO {quote_ident(e.table)} ({', '.join(cols)}) VALUES ({', '.join(vals)})",
            }
        )
        steps += self._effect_steps(e, c.effects, where, ":new.id")
        steps.append(
            {"kind": "return", "shape": "one", "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :new.id"}
        )
        rules = self.describe_guards(e, c.guards, None)
        self.add(
            {
                "name": name,
                "kind": "write",
                "description": f"{c.description.rstrip('.')}{'. Requires: ' + '; '.join(rules) if rules else ''}.",
                "parameters": _object(props, required),
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
            ),
        )

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
        steps: list[dict[str, Any]] = [
            {
                "kind": "query",
                "bind": "rec",
                "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :{pk(e)}",
                "message": f"No {e.human} with id {{{pk(e)}}}",
            }
        ]
        if a.unique:
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT NOT EXISTS (SELECT 1 FROM {quote_ident(e.table)} WHERE {a.name} = :{a.name} "
                    f"AND {pk(e)} != :{pk(e)})",
                    "message": f"{a.name.replace('_', ' ').capitalize()} {{{a.name}}} is already used by another {e.human}",
                }
            )
        steps.append(
            {"kind": "exec", "sql": f"UPDATE {quote_ident(e.table)} SET {a.name} = :{a.name} WHERE {pk(e)} = :{pk(e)}"}
        )
        steps.append(
            {"kind": "return", "shape": "one", "sql": f"SELECT * FROM {quote_ident(e.table)} WHERE {pk(e)} = :{pk(e)}"}
        )
        self.add(
            {
                "name": name,
                "kind": "write",
                "description": f"Change the {a.name.replace('_', ' ')} of a {e.human}"
                f"{' (must not be used by another ' + e.human + ')' if a.unique else ''}.",
                "parameters": _object(
                    {pk(e): id_schema(e), a.name: param_schema(a.kind, a.values, "The new value")}, [pk(e), a.name]
                ),
                "steps": steps,
            },
            ToolMeta(
                name,
                "write",
                e.name,
                "update",
                inputs={pk(e): f"{e.name}.{pk(e)}", a.name: f"param.{a.name}"},
                outputs=self.outputs(e),
                attribute=a.name,
            ),
        )


def _policy(domain: Domain, builder: _ToolBuilder) -> str:
    user = domain.entity(domain.user_entity)
    keys = [a.name.replace("_", " ") for a in user.attributes if a.lookup]
    lines = [
        f"# {domain.name}: agent policy",
        "",
        domain.description,
        "",
        "## Identity",
        f"Before you change anything, identify the {user.human} you are helping"
        f"{' by their ' + ' or '.join(keys) if keys else ''}. Act only on records that belong to them.",
        "",
        "## What each action allows",
    ]
    for t in builder.tools:
        if t["kind"] == "write":
            lines.append(f"- `{t['name']}`: {t['description']}")
    lines += [
        "",
        "## Always",
        "- Use only information from the tools or from the user. Never guess an id, a date or an amount.",
        "- Make one change per tool call, and tell the user the outcome, including any amount involved.",
        "- If an action is refused, explain the reason the tool gave; do not try to work around a rule.",
    ]
    lines += [f"- {r}" for r in domain.rules]
    return "\n".join(lines) + "\n"


def _invariants(domain: Domain) -> list[dict[str, Any]]:
    out = []
    for e in domain.entities:
        for a in e.attributes:
            if a.kind in ("money", "quantity") and (a.range is None or a.range[0] >= 0):
                out.append(
                    {
                        "name": f"{e.table}_{a.name}_not_negative",
                        "description": f"The {a.name.replace('_', ' ')} of a {e.human} is never negative",
                        "violations": f"SELECT {pk(e)}, {a.name} FROM {quote_ident(e.table)} WHERE {a.name} < 0",
                    }
                )
        for r in e.references:
            if not r.nullable:
                parent = domain.entity(r.entity)
                out.append(
                    {
                        "name": f"{e.table}_{r.column}_exists",
                        "description": f"Every {e.human} points to an existing {parent.human}",
                        "violations": f"SELECT {pk(e)} FROM {quote_ident(e.table)} WHERE {r.column} NOT IN "
                        f"(SELECT {pk(parent)} FROM {quote_ident(parent.table)})",
                    }
                )
    return out


def generate_env(
    domain: Domain, *, seed: int, clock: datetime = datetime(2026, 3, 2, 9, 0, 0), rows: tuple[int, int] = DEFAULT_ROWS
) -> GeneratedEnv:
    """Turn a domain into a validated spec plus tool metadata.

    Raises:
        DomainError: the domain names something that does not exist or cannot be expressed.
        pydantic.ValidationError: the generated spec does not validate (a generator bug).
    """
    b = _ToolBuilder(domain)
    for e in domain.entities:
        b.details(e)
        b.lookups(e)
        b.listings(e)
        b.search(e)
    for e in domain.entities:
        if e.lifecycle:
            for t in e.lifecycle.transitions:
                b.transition(e, t)
        if e.create:
            b.create(e, e.create)
        for a in e.attributes:
            if a.editable:
                b.update(e, a)
    spec = EnvSpec.model_validate(
        {
            "id": domain.id,
            "name": domain.name,
            "sector": domain.sector,
            "description": domain.description,
            "policy": _policy(domain, b),
            "clock": clock,
            "tables": [_table(e, domain) for e in domain.entities],
            "seed": generate_seed(domain, seed=seed, clock=clock, rows=rows),
            "invariants": _invariants(domain),
            "tools": b.tools,
        }
    )
    return GeneratedEnv(spec=spec, meta=b.meta)
