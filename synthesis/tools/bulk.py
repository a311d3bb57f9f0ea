"""Tools that act on several items of one record at once (list arguments), as retail's returns do.

An *item* is a record owned by another record that is not the customer (a ticket of an order, a
line of a shipment). A customer transition on items whose rules read only the item's own columns
and whose effects only set its own columns gets a bulk twin: ``<transition>_<items>`` takes the
parent's id, the customer's id and a list of item ids; every item must belong to that parent, the
parent to the customer, and every item must pass every rule, or nothing changes.
"""

from __future__ import annotations

from typing import Any

from envs.engine.compile import quote_ident

from ..domains.domain import Domain, Effect, Entity, Guard, Reference, Transition
from ..domains.enforcement import rule_guards
from ..domains.sqlgen import expr, literal, pk
from .guards import comparison, describe_guard
from .toolkit import ToolBuilderBase, ToolMeta, a_, id_schema, object_schema, owner_step, param_schema, upper_first

_SIMPLE_GUARDS = ("equals", "not_equals", "one_of", "min", "max", "future", "past", "within")


def _literal_or_field(source: Any) -> bool:
    return not isinstance(source, str) or source.startswith("field:")


def bulk_eligible(domain: Domain, e: Entity, t: Transition) -> Reference | None:
    """The parent reference of ``e`` if ``t`` can act on several of its items at once: its effects set
    the item's own columns (to literals or the call's arguments), and its rules read the item's own
    columns or its parent's (the same parent for every item)."""
    parent = next((r for r in e.references if r.role == "owner"), None)
    if (
        parent is None
        or parent.entity == domain.user_entity
        or e.lifecycle is None
        or t.actor != "customer"
        or t.confirm
    ):
        return None
    for x in t.effects:
        if x.when is not None:  # a condition per item is not one UPDATE
            return None
        if x.kind == "insert":
            if not all(_per_item_source(e, parent, v) for v in x.values.values()):
                return None
            continue
        own = (x.target or "").startswith("field:")
        if x.kind == "set" and isinstance(x.value, str) and x.value.startswith(("via:", "field:")):
            return None
        if x.kind not in ("set", "add", "subtract") or not (own or _counts_per_item(e, x)):
            return None
        if x.kind in ("add", "subtract") and own:
            return None
    set_from = {x.value[6:] for x in t.effects if isinstance(x.value, str) and x.value.startswith("param:")}
    if any(p.name not in set_from for p in t.params):  # a parameter a rule reads varies per item
        return None
    for g in t.guards:
        if g.kind == "owner" or _item_limit(e, parent, g):
            continue
        if g.kind not in _SIMPLE_GUARDS or not _literal_or_field(g.amount):
            return None
        field = g.field or ""
        if not field.startswith(("field:", "via:")):
            return None
        ref_name, _, col = field[4:].partition(".")
        if (g.kind, ref_name) == ("min", parent.ref_name) and str(g.amount).startswith("field:") and col:
            continue  # the parent's balance must cover the items' amounts together (see shared_minimums)
        if field.startswith("via:") and (e.reference(ref_name) is None or not col or isinstance(g.amount, str)):
            return None  # a referenced value against an item's or an argument: not one check per item
    return parent


def _item_limit(e: Entity, parent: Reference, g: Guard) -> bool:
    """Whether ``g`` limits how many items of one parent may be in some states (counted per parent)."""
    return (
        g.kind == "count_max"
        and g.entity == e.name
        and g.match == parent.column
        and g.field == f"field:{parent.column}"
        and isinstance(g.amount, int)
        and g.amount >= 2
    )


def _per_item_source(e: Entity, parent: Reference, source: Any) -> bool:
    """Whether an inserted value can be read from each item's row (or the shared parent)."""
    if not isinstance(source, str) or not source.startswith("via:"):
        return True
    ref_name, _, col = source[4:].partition(".")
    return e.reference(ref_name) is not None and (not col or ref_name == parent.ref_name)


def item_limits(e: Entity, t: Transition) -> list[tuple[list[str], int]]:
    """(states, limit) of each rule 'at most N items of one parent in these states'."""
    parent = next(r for r in e.references if r.role == "owner")
    return [(list(g.states or []), int(g.amount or 0)) for g in t.guards if _item_limit(e, parent, g)]


def within_limits(e: Entity, t: Transition, siblings: list[dict[str, Any]], chosen: list[dict[str, Any]]) -> bool:
    """Whether acting on ``chosen`` keeps every item limit of ``t`` among the parent's ``siblings``."""
    assert e.lifecycle is not None
    keys = {r[pk(e)] for r in chosen}
    status = e.lifecycle.field
    return all(
        sum(1 for r in siblings if r[pk(e)] not in keys and r.get(status) in states) + len(chosen) <= limit
        for states, limit in item_limits(e, t)
    )


def shared_minimums(e: Entity, t: Transition) -> list[tuple[str, str]]:
    """(parent column, item column) pairs of rules 'the parent's value covers the item's amount',
    which for several items means it covers their sum (a deposit covering the accepted deductions)."""
    parent = next(r for r in e.references if r.role == "owner")
    out = []
    for g in t.guards:
        ref_name, _, col = (g.field or "")[4:].partition(".")
        on_parent = g.kind == "min" and (g.field or "").startswith("via:") and ref_name == parent.ref_name
        if on_parent and isinstance(g.amount, str) and g.amount.startswith("field:"):
            out.append((col, g.amount[6:]))
    return out


def covered(e: Entity, t: Transition, parent_row: dict[str, Any], items: list[dict[str, Any]]) -> bool:
    """Whether ``parent_row`` covers the sum of ``items`` under every shared minimum of ``t``."""
    return all(
        (parent_row.get(p) or 0) >= round(sum(float(i.get(c) or 0) for i in items), 2) for p, c in shared_minimums(e, t)
    )


def _counts_per_item(e: Entity, x: Effect) -> bool:
    """An effect on a referenced record that adds up over items: ``add``/``subtract`` of a literal or
    an item's column (a seat released per ticket), or ``set`` of a literal (a cabin freed)."""
    ref_name, _, col = (x.target or "")[4:].partition(".")
    if not (x.target or "").startswith("via:") or e.reference(ref_name) is None or not col:
        return False
    source = x.value if x.kind == "set" else x.amount
    return (
        isinstance(source, int | float)
        or (x.kind != "set" and isinstance(source, str) and source.startswith("field:"))
        or (x.kind == "set" and isinstance(source, str) and not source.startswith(("via:", "field:", "param:")))
    )


def _referenced_updates(domain: Domain, e: Entity, t: Transition, in_list: str) -> list[dict[str, Any]]:
    """One UPDATE per effect on referenced records, summed over the items that reference each one."""
    steps = []
    table = quote_ident(e.table)
    for x in t.effects:
        if not (x.target or "").startswith("via:"):
            continue
        ref_name, _, col = (x.target or "")[4:].partition(".")
        ref = e.reference(ref_name)
        assert ref is not None
        other = domain.entity(ref.entity)
        mine = f"SELECT {ref.column} FROM {table} WHERE {in_list}"
        target = f"{quote_ident(other.table)}.{pk(other)}"
        if x.kind == "set":
            value = literal(x.value)
        else:
            per_item = quote_ident(x.amount[6:]) if isinstance(x.amount, str) else literal(x.amount)
            total = f"(SELECT coalesce(sum({per_item}), 0) FROM {table} WHERE {in_list} AND {ref.column} = {target})"
            value = f"{quote_ident(col)} {'+' if x.kind == 'add' else '-'} {total}"
            attr = other.attribute(col)
            if attr is not None and attr.kind == "money":
                value = f"round({value}, 2)"
        update = f"UPDATE {quote_ident(other.table)} SET {quote_ident(col)} = {value}"
        steps.append({"kind": "exec", "sql": f"{update} WHERE {pk(other)} IN ({mine})"})
    return steps


def _per_item_inserts(
    domain: Domain, e: Entity, t: Transition, parent: Reference, in_list: str
) -> list[dict[str, Any]]:
    """One INSERT per insert effect, adding a row for every item (in id order)."""
    steps = []
    for x in t.effects:
        if x.kind != "insert" or x.entity is None:
            continue
        other = domain.entity(x.entity)
        cols, vals = [pk(other)], [f"new_id({literal(other.id_prefix)})"]
        for key, source in x.values.items():
            ref = other.reference(key)
            cols.append(ref.column if ref else key)
            vals.append(_item_value(e, parent, source))
        if other.lifecycle:
            cols.append(other.lifecycle.field)
            vals.append(literal(other.lifecycle.initial))
        steps.append(
            {
                "kind": "exec",
                "sql": f"INSERT INTO {quote_ident(other.table)} ({', '.join(cols)}) "
                f"SELECT {', '.join(vals)} FROM {quote_ident(e.table)} WHERE {in_list} ORDER BY {pk(e)}",
            }
        )
    return steps


def _item_value(e: Entity, parent: Reference, source: Any) -> str:
    """SQL for a value source read from each item's row (``self`` is the item, ``via:`` its parent)."""
    if isinstance(source, str):
        if source == "self":
            return pk(e)
        if source.startswith("field:"):
            return quote_ident(source[6:])
        if source.startswith("via:"):
            ref_name, _, col = source[4:].partition(".")
            ref = e.reference(ref_name)
            assert ref is not None
            return f":parent.{col}" if col else ref.column
    return expr(source, where=f"{e.name} bulk insert")


def _predicate(g: Guard, column: str | None = None) -> str:
    """The guard as a predicate over an item row's own columns, or over ``column`` (a parent's bound
    value such as ``:parent.status``, or a referenced record's value)."""
    field_or_literal = g.amount if isinstance(g.amount, str) and g.amount.startswith("field:") else None
    bound = quote_ident(field_or_literal[6:]) if field_or_literal else literal(g.amount)
    return comparison(g, column or quote_ident((g.field or "")[6:]), bound)


class BulkTools(ToolBuilderBase):
    """Adds the bulk twin of eligible item transitions."""

    def bulk(self, e: Entity, t: Transition) -> None:
        parent_ref = bulk_eligible(self.domain, e, t)
        assert parent_ref is not None and e.lifecycle is not None
        parent = self.domain.entity(parent_ref.entity)
        items = f"{e.name}_ids"
        name = f"{t.name}_{e.table}"
        in_list = f"{pk(e)} IN (SELECT value FROM json_each(:{items}))"
        props: dict[str, Any] = {
            parent_ref.column: id_schema(parent),
            items: {
                "type": "array",
                "items": id_schema(e),
                "minItems": 1,
                "uniqueItems": True,
                "description": f"The {e.table.replace('_', ' ')} of that {parent.human} to act on",
            },
        }
        props.update({p.name: param_schema(p.kind, p.values, p.description) for p in t.params})
        optional = {p.name for p in t.params if not p.required}
        inputs = {parent_ref.column: f"{parent.name}.{pk(parent)}", items: f"{e.name}.{pk(e)}[]"}
        inputs.update({p.name: f"param.{p.name}" for p in t.params})
        steps: list[dict[str, Any]] = [
            {
                "kind": "query",
                "bind": "parent",
                "sql": f"SELECT * FROM {quote_ident(parent.table)} WHERE {pk(parent)} = :{parent_ref.column}",
                "message": f"No {parent.human} with id {{{parent_ref.column}}}",
            }
        ]
        owner = next((r for r in parent.references if r.role == "owner"), None)
        if owner is not None:  # the parent must be the customer's: the whole chain is checked
            owner_entity = self.domain.entity(owner.entity)
            props[owner.column] = id_schema(owner_entity)
            inputs[owner.column] = f"{owner.entity}.{pk(owner_entity)}"
            steps.append(owner_step(parent, parent_ref.column, "parent", owner.column, owner_entity))
        table = quote_ident(e.table)
        steps.append(
            {
                "kind": "require",
                "sql": f"SELECT count(*) = json_array_length(:{items}) FROM {table} "
                f"WHERE {in_list} AND {parent_ref.column} = :{parent_ref.column}",
                "message": f"Not every id in {{{items}}} is {a_(e.human)} of {parent.human} {{{parent_ref.column}}}",
            }
        )
        on_parent = f"via:{parent_ref.ref_name}."
        shared = {f"{on_parent}{p}" for p, _ in shared_minimums(e, t)}
        for g in self.checked(t.guards):  # rules about the parent hold once for every item
            if (g.field or "").startswith(on_parent) and g.field not in shared:
                col = (g.field or "")[len(on_parent) :]
                steps.append(
                    {
                        "kind": "require",
                        "sql": f"SELECT {_predicate(g, f':parent.{col}')}",
                        "message": f"The {col.replace('_', ' ')} of {parent.human} {{{parent_ref.column}}} is "
                        f"{{parent.{col}}}, which does not allow this ({g.kind})",
                    }
                )
        rules = [(f"{e.lifecycle.field} IN ({', '.join(map(literal, t.from_states))})", " or ".join(t.from_states))]
        rules += [
            (_predicate(g), g.kind)
            for g in self.checked(t.guards)
            if (g.field or "").startswith("field:") and not _item_limit(e, parent_ref, g)
        ]
        for g in self.checked(t.guards):  # rules about another record each item references (its train, its slot)
            field = g.field or ""
            if field.startswith("via:") and not field.startswith(on_parent):
                ref_name, _, col = field[4:].partition(".")
                ref = e.reference(ref_name)
                assert ref is not None
                other = self.domain.entity(ref.entity)
                value = (
                    f"(SELECT {quote_ident(col)} FROM {quote_ident(other.table)} "
                    f"WHERE {pk(other)} = {table}.{ref.column})"
                )
                rules.append((_predicate(g, value), f"{g.kind} on its {ref_name.replace('_', ' ')}"))
        for i, (predicate, what) in enumerate(rules):
            bad = f"bad{i}"  # the first item breaking the rule, named in the refusal
            steps.append(
                {
                    "kind": "query",
                    "bind": bad,
                    "expect": "optional",
                    "sql": f"SELECT {pk(e)} FROM {table} WHERE {in_list} AND NOT ({predicate}) LIMIT 1",
                }
            )
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT :{bad}.{pk(e)} IS NULL",
                    "message": f"{upper_first(e.human)} {{{bad}.{pk(e)}}} does not allow this ({what}); "
                    "nothing was changed",
                }
            )
        for parent_col, item_col in shared_minimums(e, t):  # after the per-item rules, which name an item
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT :parent.{parent_col} >= "
                    f"(SELECT round(coalesce(sum({quote_ident(item_col)}), 0), 2) FROM {quote_ident(e.table)} "
                    f"WHERE {in_list})",
                    "message": f"The {parent_col.replace('_', ' ')} of {parent.human} {{{parent_ref.column}}} "
                    f"({{parent.{parent_col}}}) does not cover the {item_col.replace('_', ' ')} of these "
                    f"{e.table.replace('_', ' ')} together",
                }
            )
        status = quote_ident(e.lifecycle.field)
        for states, limit in item_limits(e, t):  # the listed items count toward the parent's limit
            steps.append(
                {
                    "kind": "require",
                    "sql": f"SELECT (SELECT count(*) FROM {table} WHERE {parent_ref.column} = :{parent_ref.column} "
                    f"AND {status} IN ({', '.join(map(literal, states))}) AND NOT ({in_list})) "
                    f"+ json_array_length(:{items}) <= {limit}",
                    "message": f"{upper_first(parent.human)} {{{parent_ref.column}}} may have at most {limit} "
                    f"{e.table.replace('_', ' ')} {' or '.join(s.replace('_', ' ') for s in states)}, counting "
                    "these; nothing was changed",
                }
            )
        steps += _referenced_updates(self.domain, e, t, in_list)
        steps += _per_item_inserts(self.domain, e, t, parent_ref, in_list)
        sets = [
            f"{quote_ident(x.target[6:])} = {expr(x.value, where=name)}"
            for x in t.effects
            if x.target and x.target.startswith("field:")
        ]
        if t.to not in t.from_states or len(t.from_states) > 1:
            sets.append(f"{quote_ident(e.lifecycle.field)} = {literal(t.to)}")
        if sets:
            steps.append({"kind": "exec", "sql": f"UPDATE {table} SET {', '.join(sets)} WHERE {in_list}"})
        steps.append({"kind": "return", "sql": f"SELECT * FROM {table} WHERE {in_list} ORDER BY {pk(e)}"})
        what = f"{t.description.rstrip('.')}, for several {e.table.replace('_', ' ')} of one {parent.human} at once"
        every_rule = [describe_guard(self.domain, g, e.human) or g.kind for g in rule_guards(t)]
        self.add(
            {
                "name": name,
                "kind": "write",
                "description": f"{what}. Each must be {' or '.join(t.from_states)}; if any is not, nothing changes.",
                "parameters": object_schema(props, [k for k in props if k not in optional]),
                "steps": steps,
            },
            ToolMeta(
                name,
                "write",
                e.name,
                "bulk",
                inputs=inputs,
                outputs=self.outputs(e),
                requires=[f"{e.name}:{s}" for s in t.from_states],
                produces=[f"{e.name}:{t.to}"],
                transition=t.name,
                policy=f"{what}. Each must be {' or '.join(t.from_states)}"
                + "".join(f"; {text}" for text in dict.fromkeys(every_rule))
                + ".",
            ),
            rules=list(zip(rule_guards(t), every_rule, strict=True)),
        )
