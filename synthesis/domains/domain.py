"""The domain description: what a synthesized environment is made from.

A domain names entities with semantically typed attributes, references between them, and
lifecycles: status machines whose transitions are actions with guards (status, ownership,
balance, capacity, dates, field values) and effects (status change, field updates, balance or
stock arithmetic, inserted records such as payments or audit entries). The built-in ontology
(``synthesis/domains/ontology/*.json``) and the LLM backend both produce this format; ``envgen`` turns it
into an ``envs`` spec. ``envfarm synthesize --schema`` prints its JSON Schema.

Value sources used by guards and effects (strings):

* ``field:<name>`` — a column of the record the transition acts on
* ``param:<name>`` — an argument of the transition's tool
* ``via:<ref>.<field>`` — a column of the record a reference points to
* ``now`` — the environment's clock; ``self`` — the acted-on record's id
* anything else is a literal (a number, or a string)
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from envs.formats.spec import Model

from .forms import form_fault
from .kinds import NUMERIC_KINDS as NUMERIC_KINDS
from .kinds import Identifier as Identifier
from .kinds import SemanticKind as SemanticKind
from .lifecycle import Actor as Actor
from .lifecycle import Creation as Creation
from .lifecycle import Effect as Effect
from .lifecycle import Guard as Guard
from .lifecycle import GuardKind as GuardKind
from .lifecycle import Lifecycle as Lifecycle
from .lifecycle import Param as Param
from .lifecycle import Transition as Transition


def plural(noun: str) -> str:
    """A noun in the plural, as a person writes it: "currency orders", "pharmacies", "boxes", and
    for a name in snake case its last word ("storage_facility": "storage_facilities").

    >>> plural("currency order"), plural("pharmacy"), plural("box"), plural("bus pass"), plural("day")
    ('currency orders', 'pharmacies', 'boxes', 'bus passes', 'days')
    """
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("s", "sh", "ch", "x", "z")):
        return noun + "es"
    return noun + "s"


class Attribute(Model):
    """A typed attribute; ``kind`` decides its column type, its seed values and its validation."""

    name: Identifier
    kind: SemanticKind
    description: str = ""
    values: list[str] | None = Field(None, description="The choices of an enum attribute")
    range: tuple[float, float] | None = Field(None, description="Bounds of a numeric attribute's seed values")
    prefix: str | None = Field(None, description="Prefix of a code attribute, e.g. 'BK-'")
    examples: list[str] | None = Field(
        None, description="Values a seed draws from for a free-text or title attribute, as people write them"
    )
    examples_by: dict[str, dict[str, list[str]]] | None = Field(
        None,
        description="A text or title attribute's examples by the value of another attribute: one key, '<attribute>' "
        "of the same record or '<reference>.<attribute>' of the record it points to, mapping each value of it "
        "to the examples that fit it (a session's topic by its tutor's subject); values it leaves out draw from "
        "'examples'",
    )
    values_by: dict[str, dict[str, list[str]]] | None = Field(
        None,
        description="An enum attribute's allowed values by the value of another attribute (keyed as 'examples_by'): "
        "a liquor licence only for a restaurant; values it leaves out allow every value",
    )
    format: str | None = Field(None, description="A code's, phone's or zip's form in the trade's notation (forms.py)")
    pool: list[str] | None = Field(None, description="Real names a company or city attribute draws from")
    range_by: dict[str, dict[str, tuple[float, float]]] | None = Field(
        None, description="A money attribute's range by the value of another attribute, keyed as 'examples_by'"
    )
    ratio_of: dict[str, tuple[float, float]] | None = Field(
        None, description="A money attribute as a share of another amount, keyed as 'examples_by'"
    )
    unique: bool = False
    nullable: bool = False
    lookup: bool = Field(False, description="A user knows this value and can be found by it (email, booking code)")
    editable: bool = Field(False, description="The user may change it (an update tool is generated)")
    editable_while: list[str] | None = Field(
        None,
        description="The record's states in which the user may change it (delivery instructions until the "
        "order is picked); by default every state some transition still leaves",
    )

    @model_validator(mode="after")
    def _kind_fits(self) -> Attribute:
        if self.kind == "enum" and not self.values:
            raise ValueError(f"enum attribute '{self.name}' needs 'values'")
        if self.kind != "enum" and self.values:
            raise ValueError(f"attribute '{self.name}' has 'values' but is not an enum")
        if self.examples and self.kind not in ("text", "title"):
            raise ValueError(f"attribute '{self.name}' has examples but kind '{self.kind}' is not text or title")
        if self.range and self.kind not in NUMERIC_KINDS:
            raise ValueError(f"attribute '{self.name}' has a range but kind '{self.kind}' is not numeric")
        if self.examples_by is not None and self.kind not in ("text", "title"):
            raise ValueError(f"attribute '{self.name}' has examples_by but kind '{self.kind}' is not text or title")
        if self.values_by is not None and self.kind != "enum":
            raise ValueError(f"attribute '{self.name}' has values_by but is not an enum")
        if fault := form_fault(self.kind, self.format, self.pool):
            raise ValueError(f"attribute '{self.name}': {fault}")
        table = self.examples_by if self.examples_by is not None else self.values_by
        if table is not None:
            field = "examples_by" if self.examples_by is not None else "values_by"
            if len(table) != 1:
                raise ValueError(f"attribute '{self.name}': {field} names one key attribute, not {len(table)}")
            key, pools = next(iter(table.items()))
            if not pools:
                raise ValueError(f"attribute '{self.name}': {field} '{key}' gives no values of it")
            for value, pool in pools.items():
                if not pool:
                    raise ValueError(f"attribute '{self.name}': {field} '{key}' value '{value}' has an empty pool")
                if unknown := [v for v in pool if self.values is not None and v not in self.values]:
                    raise ValueError(
                        f"attribute '{self.name}': {field} '{key}' value '{value}' allows {unknown}, "
                        f"not among its values {self.values}"
                    )
        return self

    @property
    def keyed(self) -> tuple[str, dict[str, list[str]]] | None:
        """The key attribute (``attr`` or ``ref.attr``) and its values' pools, if this attribute has one."""
        table = self.examples_by if self.examples_by is not None else self.values_by
        if not table:
            return None
        key = next(iter(table))
        return key, table[key]


class Reference(Model):
    """A foreign key to another entity. ``role: owner`` marks the entity a record belongs to."""

    entity: Identifier
    name: Identifier | None = Field(None, description="Column name without '_id' (default: the entity name)")
    role: Literal["owner", "part_of", "uses"] = "uses"
    nullable: bool = False

    @property
    def column(self) -> str:
        return f"{self.name or self.entity}_id"

    @property
    def ref_name(self) -> str:
        return self.name or self.entity


class Aggregate(Model):
    """An attribute whose value follows from other values: its children's sum or count, or the difference
    of two of its own attributes. Seeds are settled to it and every tool keeps it (``domains.aggregates``).

    * ``sum``: ``of`` is ``"<child entity>.<attribute>"``, summed over the children that reference
      this record (``fine_balance``: ``"fine.amount"``);
    * ``count``: ``of`` is ``"<child entity>"``, its rows counted (``no_show_count``);
    * ``difference``: ``of`` is ``"<attribute> - <attribute>"``, two attributes of this entity
      (``balance_remaining``: ``"total_price - amount_paid"``).

    A sum or count may take only children in some ``states`` of their lifecycle, and only those whose
    enum attributes hold one of the values ``where`` lists (layaway payments of kind installment or
    payoff); ``via`` names the child's reference when it has more than one to this entity.
    """

    attribute: Identifier
    kind: Literal["sum", "count", "difference"]
    of: str = Field(description="sum: 'child.attribute'; count: 'child'; difference: 'attribute - attribute'")
    states: list[str] | None = Field(None, description="sum/count: only children in these states")
    where: dict[str, list[str]] | None = Field(None, description="sum/count: child enum attribute -> values counted")
    via: Identifier | None = Field(None, description="sum/count: the child's reference to this entity")

    @property
    def child(self) -> str:
        """The child entity of a sum or count."""
        return self.of.partition(".")[0].strip()

    @property
    def column(self) -> str | None:
        """The child attribute a sum adds up."""
        return self.of.partition(".")[2].strip() or None

    @property
    def operands(self) -> tuple[str, str]:
        """The two attributes of a difference (minuend, subtrahend)."""
        left, _, right = self.of.partition(" - ")
        return left.strip(), right.strip()


class Entity(Model):
    """A kind of record: one table, its tools, its seed rows."""

    name: Identifier
    plural: Identifier | None = None
    label: str | None = Field(None, description="Human name, e.g. 'support ticket'")
    description: str = ""
    id_prefix: str = Field(pattern=r"^[A-Z]{1,4}$")
    attributes: list[Attribute] = Field(min_length=1)
    references: list[Reference] = []
    lifecycle: Lifecycle | None = None
    rows: tuple[int, int] | None = Field(None, description="Seed row count range (default from the entity's role)")
    create: Creation | None = Field(None, description="Users may create one (a create tool is generated)")
    aggregates: list[Aggregate] = Field(
        [], description="Attributes that are their children's sum or count, or a difference of two attributes"
    )

    @property
    def table(self) -> str:
        return self.plural or plural(self.name)

    @property
    def human(self) -> str:
        return self.label or self.name.replace("_", " ")

    def attribute(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)

    def reference(self, name: str) -> Reference | None:
        return next((r for r in self.references if r.ref_name == name), None)

    def editable_states(self, a: Attribute) -> list[str] | None:
        """The states in which the user may change ``a`` (None: any, the entity has no lifecycle).
        By default those some transition still leaves: nobody edits a cancelled order's notes."""
        if self.lifecycle is None:
            return None
        if a.editable_while is not None:
            return [s for s in self.lifecycle.states if s in a.editable_while]
        return [s for s in self.lifecycle.states if any(s in t.from_states for t in self.lifecycle.transitions)]

    @model_validator(mode="after")
    def _editable_states_exist(self) -> Entity:
        for a in self.attributes:
            if a.editable_while is None:
                continue
            if not a.editable:
                raise ValueError(f"attribute '{self.name}.{a.name}' has editable_while but is not editable")
            known = self.lifecycle.states if self.lifecycle else []
            bad = [s for s in a.editable_while if s not in known]
            if bad or not a.editable_while:
                raise ValueError(f"attribute '{self.name}.{a.name}': editable_while names unknown state(s) {bad}")
        return self


class Domain(Model):
    """A whole domain, e.g. 'library loans' in the 'education' sector."""

    id: Identifier
    name: str = Field(min_length=1)
    sector: str = Field(min_length=1)
    description: str = Field(min_length=1)
    user_entity: Identifier = Field(description="The entity that represents the person asking for help")
    entities: list[Entity] = Field(min_length=2)
    rules: list[str] = Field([], description="Behavioural rules for the agent, beyond what the guards enforce")
    requests: list[str] = Field(
        [],
        description="What people say when they need this service, in their own words (for matching topics to domains)",
    )
    synonyms: list[str] = Field([], description="Other names people use for this service or its records")
    not_covered: list[str] = Field(
        [],
        description="Near misses: what people in this service's setting ask that it does not do (for telling them "
        "from its requests when matching topics to domains)",
    )

    @model_validator(mode="after")
    def _references_resolve(self) -> Domain:
        names = [e.name for e in self.entities]
        if len(set(names)) != len(names):
            raise ValueError("two entities share a name")
        tables = [e.table for e in self.entities]
        if len(set(tables)) != len(tables):
            raise ValueError("two entities share a table name")
        by_name = {e.name: e for e in self.entities}
        if self.user_entity not in by_name:
            raise ValueError(f"user_entity '{self.user_entity}' is not an entity")
        for e in self.entities:
            for r in e.references:
                if r.entity not in by_name:
                    raise ValueError(f"entity '{e.name}' references unknown entity '{r.entity}'")
            cols = [a.name for a in e.attributes] + [r.column for r in e.references]
            if e.lifecycle:
                cols.append(e.lifecycle.field)
            if len(set(cols)) != len(cols):
                raise ValueError(f"entity '{e.name}' has two columns with the same name")
            if e.lifecycle:
                for t in e.lifecycle.transitions:
                    for eff in t.effects:
                        if eff.kind == "insert" and eff.entity not in by_name:
                            raise ValueError(
                                f"transition '{e.name}.{t.name}' inserts into unknown entity '{eff.entity}'"
                            )
        for e in self.entities:
            for agg in e.aggregates:
                problem = _aggregate_problem(self, e, agg)
                if problem:
                    raise ValueError(f"domain '{self.id}', entity '{e.name}', aggregate '{agg.attribute}': {problem}")
            for attr in e.attributes:
                if attr.keyed is not None and (problem := _key_problem(self, e, attr)):
                    raise ValueError(f"domain '{self.id}', entity '{e.name}', attribute '{attr.name}': {problem}")
            named = [agg.attribute for agg in e.aggregates]
            if len(set(named)) != len(named):
                raise ValueError(f"domain '{self.id}', entity '{e.name}': an attribute has two aggregates")
        return self

    def owner_checked(self, entity: Entity, transition: Transition) -> Reference | None:
        """The owner reference a transition's tool checks, if any.

        A customer transition on a record that belongs to someone always checks ownership, declared
        or not: the agent acts for one customer and must never touch another's record.
        """
        owner = next((r for r in entity.references if r.role == "owner"), None)
        if any(g.kind == "owner" for g in transition.guards) or transition.actor == "customer":
            return owner
        return None

    def entity(self, name: str) -> Entity:
        for e in self.entities:
            if e.name == name:
                return e
        raise KeyError(name)


_SUMMABLE = frozenset({"money", "quantity", "integer"})


def _aggregate_problem(domain: Domain, entity: Entity, agg: Aggregate) -> str | None:
    """What is wrong with ``agg`` on ``entity`` (None: nothing)."""
    attr = entity.attribute(agg.attribute)
    if attr is None:
        return "no such attribute"
    if attr.kind not in _SUMMABLE:
        return f"it is a {attr.kind}, not money, a quantity or an integer"
    if attr.editable or (entity.create is not None and attr.name in entity.create.inputs):
        return "a user may set it (editable or a create input), but its value follows from others"
    if agg.kind == "difference":
        if agg.states or agg.where or agg.via:
            return "a difference takes no 'states', 'where' or 'via'"
        if " - " not in agg.of:
            return f"'of' must be '<attribute> - <attribute>', not '{agg.of}'"
        for name in agg.operands:
            operand = entity.attribute(name)
            if operand is None or operand.kind not in _SUMMABLE or name == attr.name:
                return f"'{name}' is not another money, quantity or integer attribute of '{entity.name}'"
        return None
    child = next((e for e in domain.entities if e.name == agg.child), None)
    if child is None or child is entity:
        return f"'{agg.child}' is not another entity of the domain"
    refs = [r for r in child.references if r.entity == entity.name and agg.via in (None, r.ref_name)]
    if len(refs) != 1:
        return f"'{child.name}' has {len(refs)} references to '{entity.name}'{'' if agg.via else '; name one with via'}"
    if agg.kind == "sum":
        column = child.attribute(agg.column or "")
        if column is None or column.kind not in _SUMMABLE:
            return f"'of' must be '{child.name}.<money, quantity or integer attribute>', not '{agg.of}'"
        if attr.kind != "money" and column.kind == "money":
            return f"a sum of money ('{agg.of}') cannot be a {attr.kind}"
    elif agg.column:
        return f"a count's 'of' is an entity ('{child.name}'), not '{agg.of}'"
    elif attr.kind == "money":
        return "a count cannot be money"
    if agg.states:
        known = child.lifecycle.states if child.lifecycle else []
        unknown = [s for s in agg.states if s not in known]
        if unknown:
            return f"'{child.name}' has no state(s) {unknown}"
    for name, values in (agg.where or {}).items():
        column = child.attribute(name)
        if column is None or column.kind != "enum":
            return f"'where' names '{name}', which is no enum attribute of '{child.name}'"
        if unknown := [v for v in values if v not in (column.values or [])]:
            return f"'{child.name}.{name}' has no value(s) {unknown}"
    return None


def key_attribute(domain: Domain, entity: Entity, key: str) -> tuple[Reference | None, Attribute | None]:
    """The reference (None: the same record) and the attribute a key (``attr`` or ``ref.attr``) names."""
    ref_name, _, name = key.rpartition(".")
    if not ref_name:
        return None, entity.attribute(name)
    ref = entity.reference(ref_name)
    if ref is None:
        return None, None
    return ref, domain.entity(ref.entity).attribute(name)


def _key_problem(domain: Domain, entity: Entity, attr: Attribute) -> str | None:
    """What is wrong with the key of ``attr``'s examples_by or values_by (None: nothing)."""
    assert attr.keyed is not None
    key, pools = attr.keyed
    field = "examples_by" if attr.examples_by is not None else "values_by"
    ref, target = key_attribute(domain, entity, key)
    if target is None:
        where = f"'{entity.name}'" if "." not in key else f"the record its reference '{key.split('.')[0]}' names"
        return f"{field} key '{key}' names no attribute of {where}"
    if ref is None and target.name == attr.name:
        return f"{field} key '{key}' is the attribute itself"
    if ref is None and target.keyed is not None:
        return f"{field} key '{key}' is keyed itself (key by what it is keyed by)"
    if target.kind == "enum":
        known = target.values or []
    elif target.kind in ("text", "title") and target.examples:
        known = [*target.examples, *(v for pool in (target.examples_by or {}).values() for v in pool)]
    else:
        return f"{field} key '{key}' is a {target.kind}, not an enum or a text or title with examples"
    if unknown := [v for v in pools if v not in known]:
        return f"{field} key '{key}' has no value(s) {unknown}"
    return None
