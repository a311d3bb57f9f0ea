"""Attributes that follow from other records (``Entity.aggregates``): a member's fine balance is the sum
of their open fines, a report's total the sum of its items, a layaway's balance its price less what
was paid.

This module resolves the declarations into :class:`Relation` s, each with the SQL that computes it,
and settles the seed rows to them (:func:`settle_aggregates`, run once statuses are final). The
tools keep them through ``synthesis.tools.aggregate_steps``; an invariant per relation lets
``check_env`` and the quality report (measure 37, :mod:`envs.quality.relations`) check them.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from envs.engine.compile import quote_ident
from envs.formats.spec import EnvSpec
from envs.quality.own_row import PAID

from .domain import Aggregate, Domain, Entity, plural
from .sqlgen import DomainError, literal, pk

#: How far a money value may be from its relation and still hold (a rounding step).
TOLERANCE = 0.005


@dataclass(frozen=True)
class Relation:
    """One declared aggregate, resolved against the domain."""

    entity: Entity
    aggregate: Aggregate
    child: Entity | None  # sum / count
    ref_column: str | None  # the child's column naming the parent
    money: bool

    @property
    def table(self) -> str:
        return self.entity.table

    @property
    def column(self) -> str:
        return self.aggregate.attribute

    def counted(self, row: dict[str, Any]) -> bool:
        """Whether a child row takes part in a sum or count."""
        agg, child = self.aggregate, self.child
        assert child is not None
        if agg.states is not None and child.lifecycle is not None and row.get(child.lifecycle.field) not in agg.states:
            return False
        return all(row.get(name) in values for name, values in (agg.where or {}).items())

    def filters(self, alias: str) -> list[str]:
        """SQL conditions on a child row (``alias``) that a sum or count takes."""
        agg, child = self.aggregate, self.child
        assert child is not None
        out = []
        if agg.states is not None and child.lifecycle is not None:
            out.append(f"{alias}.{child.lifecycle.field} IN ({', '.join(map(literal, agg.states))})")
        for name, values in (agg.where or {}).items():
            out.append(f"{alias}.{name} IN ({', '.join(map(literal, values))})")
        return out

    def expression(self, row: str) -> str:
        """The value the relation gives the parent row called ``row`` in SQL (a table name or alias)."""
        agg = self.aggregate
        if agg.kind == "difference":
            left, right = agg.operands
            value = f"{row}.{left} - {row}.{right}"
            return f"ROUND({value}, 2)" if self.money else value
        assert self.child is not None and self.ref_column is not None
        where = " AND ".join([f"c.{self.ref_column} = {row}.{pk(self.entity)}", *self.filters("c")])
        total = "COUNT(*)" if agg.kind == "count" else f"COALESCE(SUM(c.{agg.column}), 0)"
        if self.money:
            total = f"ROUND({total}, 2)"
        return f"(SELECT {total} FROM {quote_ident(self.child.table)} AS c WHERE {where})"

    def broken(self, row: str) -> str:
        """SQL: the parent row called ``row`` does not hold the relation (operands unset: not checked)."""
        value, own = self.expression(row), f"{row}.{self.column}"
        differs = f"ABS({own} - {value}) > {TOLERANCE}" if self.money else f"{own} <> {value}"
        if self.aggregate.kind == "difference":
            left, right = self.aggregate.operands
            return f"({row}.{left} IS NOT NULL AND {row}.{right} IS NOT NULL AND ({own} IS NULL OR {differs}))"
        return f"({own} IS NULL OR {differs})"


def relations(domain: Domain) -> list[Relation]:
    """Every declared relation, in the order to compute them: children's entities first, and within an
    entity sums and counts before the differences that read them.

    Raises:
        DomainError: differences of one entity that read each other in a cycle.
    """
    out: list[Relation] = []
    for entity in _children_first(domain):
        found = [_resolve(domain, entity, agg) for agg in entity.aggregates]
        pending = [r for r in found if r.aggregate.kind == "difference"]
        out += [r for r in found if r.aggregate.kind != "difference"]
        while pending:
            waiting = {r.column for r in pending}
            ready = [r for r in pending if not waiting & set(r.aggregate.operands)]
            if not ready:
                raise DomainError(f"entity '{entity.name}': differences {sorted(waiting)} read each other")
            out += ready
            pending = [r for r in pending if r not in ready]
    return out


def _children_first(domain: Domain) -> list[Entity]:
    """Entities with each one before the entities it references (a cycle is broken where it closes)."""
    done: list[Entity] = []
    seen: set[str] = set()

    def visit(entity: Entity) -> None:
        if entity.name in seen:
            return
        seen.add(entity.name)
        for other in domain.entities:
            if any(r.entity == entity.name for r in other.references):
                visit(other)
        done.append(entity)

    for entity in domain.entities:
        visit(entity)
    return done


def _resolve(domain: Domain, entity: Entity, agg: Aggregate) -> Relation:
    attr = entity.attribute(agg.attribute)
    assert attr is not None  # the domain's validation checked it
    if agg.kind == "difference":
        return Relation(entity, agg, None, None, attr.kind == "money")
    child = domain.entity(agg.child)
    ref = next(r for r in child.references if r.entity == entity.name and agg.via in (None, r.ref_name))
    return Relation(entity, agg, child, ref.column, attr.kind == "money")


def sentence(relation: Relation) -> str:
    """The relation as the policy states it: "The fine balance of a member is the total amount of the
    member's fines that are open; adding or changing a fine updates it."."""
    agg, entity = relation.aggregate, relation.entity
    name = agg.attribute.replace("_", " ")
    if agg.kind == "difference":
        left, right = (o.replace("_", " ") for o in agg.operands)
        return f"The {name} of {_a(entity.human)} is the {entity.human}'s {left} less its {right}."
    assert relation.child is not None
    child = relation.child.human
    plural_child = plural(child).removeprefix(f"{entity.human} ")  # a layaway's payments
    which = [f"that are {_words(agg.states, ' or ')}"] if agg.states else []
    which += [f"whose {_words([k])} is {_words(vs, ' or ')}" for k, vs in (agg.where or {}).items()]
    tail = f" {' and '.join(which)}" if which else ""
    if agg.kind == "count":
        what = f"the number of the {entity.human}'s {plural_child}{tail}"
    else:
        what = f"the total {_words([agg.column or ''])} of the {entity.human}'s {plural_child}{tail}"
    return f"The {name} of {_a(entity.human)} is {what}; adding or changing {_a(child)} updates it."


def _words(names: list[str], joiner: str = " ") -> str:
    return joiner.join(n.replace("_", " ") for n in names)


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


# -- seed ----------------------------------------------------------------------------------------------


def settle_aggregates(domain: Domain, spec: EnvSpec, within_ranges: bool = True) -> int:
    """Set every declared attribute of the seed rows from the records it follows (in place), once
    statuses are final. Returns the number of values changed.

    Values stay within the attribute's range where they can: children whose sum would fall outside
    it are scaled together, in proportion, to a total drawn in its upper half (from above) or lower
    half (from below), each kept within its own range; a difference that would go below zero where
    its column may not (a layaway paid beyond its price) scales the children of the sum it
    subtracts down to the amount it is taken from. A count, and a sum with no records to add up,
    are left as the records make them. A row paid in full keeps the sum of its children, its price;
    without ``within_ranges`` no child is scaled (amounts a tool fixes, a 25.00 credit, stay)."""
    changed = 0
    for rel in relations(domain):
        rows = spec.seed.get(rel.table, [])
        integer = _integer(rel.entity, rel.column)
        if rel.aggregate.kind == "difference":
            for row in rows:
                changed += _settle_difference(domain, spec, rel, row)
            continue
        assert rel.child is not None and rel.ref_column is not None
        groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for child_row in spec.seed.get(rel.child.table, []):
            if rel.counted(child_row):
                groups[child_row.get(rel.ref_column)].append(child_row)
        low, top = _range(rel.entity, rel.column)
        for row in rows:
            key = row[pk(rel.entity)]
            children = groups.get(key, [])
            ranged = within_ranges and not _paid_in_full(rel, row)
            if rel.aggregate.kind == "sum" and ranged and low is not None and top is not None:
                total, draw = _total(rel, children, integer), random.Random(f"{spec.id}:{rel.table}:{rel.column}:{key}")
                if total > top:
                    _scale(rel, children, top - (top - low) * draw.uniform(0.0, 0.5))
                elif 0 < total < low:
                    _scale(rel, children, low + (top - low) * draw.uniform(0.0, 0.5))
            value = _total(rel, children, integer)
            changed += row.get(rel.column) != value
            row[rel.column] = value
    return changed


def _paid_in_full(rel: Relation, row: dict[str, Any]) -> bool:
    """Whether ``row`` is in a paid status: what its children add up to is its price, whatever range
    its own seed values are drawn in (``paid_children.pay_children_in_full``)."""
    lc = rel.entity.lifecycle
    return lc is not None and row.get(lc.field) in PAID


def _range(entity: Entity, column: str) -> tuple[float | None, float | None]:
    attr = entity.attribute(column)
    return (attr.range[0], attr.range[1]) if attr is not None and attr.range else (None, None)


def _integer(entity: Entity, column: str) -> bool:
    attr = entity.attribute(column)
    return attr is not None and attr.kind != "money"


def _total(rel: Relation, children: list[dict[str, Any]], integer: bool) -> float | int:
    if rel.aggregate.kind == "count":
        return len(children)
    total = sum(v for c in children if isinstance(v := c.get(rel.aggregate.column or ""), int | float))
    return int(total) if integer else round(total, 2)


def _settle_difference(domain: Domain, spec: EnvSpec, rel: Relation, row: dict[str, Any]) -> int:
    left, right = rel.aggregate.operands
    a, b = row.get(left), row.get(right)
    if not isinstance(a, int | float) or not isinstance(b, int | float):
        return 0
    if a < b and _not_negative(rel.entity, rel.column):
        source = next((r for r in relations(domain) if r.entity is rel.entity and r.column == right), None)
        if source is not None and source.child is not None and source.aggregate.kind == "sum":
            _scale(source, _children(spec, source, row), a)
            b = row[right] = _total(source, _children(spec, source, row), _integer(rel.entity, right))
        else:
            b = row[right] = a
    value = a - b if _integer(rel.entity, rel.column) else round(a - b, 2)
    before = row.get(rel.column)
    row[rel.column] = value
    return int(before != value)


def _not_negative(entity: Entity, column: str) -> bool:
    attr = entity.attribute(column)
    return attr is not None and (attr.range is None or attr.range[0] >= 0)


def _children(spec: EnvSpec, rel: Relation, row: dict[str, Any]) -> list[dict[str, Any]]:
    assert rel.child is not None and rel.ref_column is not None
    key = row[pk(rel.entity)]
    return [c for c in spec.seed.get(rel.child.table, []) if c.get(rel.ref_column) == key and rel.counted(c)]


def _scale(rel: Relation, children: list[dict[str, Any]], target: float) -> None:
    """Scale the values a sum adds up together, in proportion, towards a total of ``target``; no value
    is moved past an end of its own range (cents and whole numbers rounded down)."""
    assert rel.child is not None
    column = rel.aggregate.column or ""
    total = sum(v for c in children if isinstance(v := c.get(column), int | float) and not isinstance(v, bool))
    if total <= 0:
        return
    factor = target / total
    low, high = _range(rel.child, column)
    integer = _integer(rel.child, column)
    for child in children:
        value = child.get(column)
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        part = value * factor
        part = math.floor(part) if integer else math.floor(part * 100) / 100
        if low is not None and factor < 1:
            part = max(part, min(value, low))
        if high is not None and factor > 1:
            part = min(part, max(value, high))
        child[column] = part
