"""Lifecycles of a domain's records: the transitions (tools) that move them, their guards and effects.

See :mod:`.domain` for the value sources guards and effects use (``field:``, ``param:``, ``via:``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from envs.formats.spec import Model

from .kinds import Identifier, SemanticKind


class Param(Model):
    """An extra argument of a transition's tool."""

    name: Identifier
    kind: SemanticKind
    values: list[str] | None = None
    description: str = ""
    required: bool = True


GuardKind = Literal[
    "owner",
    "min",
    "max",
    "future",
    "past",
    "within",
    "equals",
    "not_equals",
    "one_of",
    "differs",
    "count_max",
    "sum_max",
]


class Guard(Model):
    """A precondition of a transition or a create (the current status is always checked).

    Kinds:

    * ``owner``: the caller names the owning record, which must match;
    * ``min`` / ``max``: ``field`` must be at least / at most ``amount`` (a balance covering a
      price, a partial refund no larger than what was paid, guests within a room's capacity);
    * ``future`` / ``past``: a date ``field`` more than ``hours`` ahead / no more than ``hours``
      ahead; ``within``: a date no more than ``hours`` ago (a return window after delivery);
    * ``equals`` / ``not_equals``: ``field`` is / is not ``value``; ``one_of``: ``field`` is one
      of ``values``; ``differs``: ``field`` differs from the source ``amount`` (a new date must not be
      the current one);
    * ``count_max``: fewer than ``amount`` rows of ``entity`` whose ``match`` column equals
      ``field`` (in ``states``, if given) — a per-customer or per-record limit ("at most 2 open
      claims per policy");
    * ``sum_max``: the sum of ``column`` over rows of ``entity`` whose ``match`` column equals
      ``field`` (in ``states``), plus ``add`` (a source, e.g. the amount asked for), is at most
      ``amount`` ("total refunds never exceed the amount paid").
    """

    kind: GuardKind
    field: str | None = Field(None, description="The value tested: 'field:x', 'via:ref.x' or 'param:x'")
    amount: str | int | float | None = Field(None, description="The bound (a value source)")
    value: Any = None
    values: list[Any] | None = Field(None, description="For one_of: the allowed values")
    hours: int = Field(
        0,
        ge=0,
        description="future: more than this many hours ahead; past: no more than this many hours ahead; "
        "within: no more than this many hours ago",
    )
    entity: Identifier | None = Field(None, description="For count_max / sum_max: the entity whose rows count")
    match: Identifier | None = Field(None, description="For count_max / sum_max: its column compared to 'field'")
    states: list[str] | None = Field(None, description="For count_max / sum_max: only rows in these states")
    column: Identifier | None = Field(None, description="For sum_max: the column summed")
    add: str | int | float | None = Field(None, description="For sum_max: added to the sum (a value source)")
    message: str | None = Field(None, description="Error text; {placeholders} name values")
    enforced_by: Literal["tool", "policy"] | None = Field(
        None,
        description="Where the rule lives: 'tool' (the tool refuses a call that breaks it), 'policy' (the policy "
        "states it and the tool allows the action); unset: the generator decides (synthesis.domains.enforcement)",
    )

    @model_validator(mode="after")
    def _fields_fit_kind(self) -> Guard:
        if self.kind in ("count_max", "sum_max") and not (self.entity and self.match and self.amount is not None):
            raise ValueError(f"a '{self.kind}' guard needs 'entity', 'match' and 'amount'")
        if self.kind == "sum_max" and not self.column:
            raise ValueError("a 'sum_max' guard needs 'column'")
        if self.kind == "one_of" and not self.values:
            raise ValueError("a 'one_of' guard needs 'values'")
        if self.kind in ("min", "max", "differs") and self.amount is None:
            raise ValueError(f"a '{self.kind}' guard needs 'amount'")
        return self


class Effect(Model):
    """A change a transition makes besides its status change.

    Kinds: ``set`` (``target`` = ``value``), ``add`` / ``subtract`` (``target`` +/- ``amount``),
    ``add_days`` (a date ``target`` moved by ``amount`` days), ``insert`` (a new ``entity`` row with
    ``values``: column -> value source), ``cascade`` (every row of ``entity`` that references the
    acted-on record and is in one of ``states`` moves to the state ``value``: cancelling a booking
    withdraws its open service requests). With ``when``, an effect applies only if that condition
    holds: a late-cancellation fee is charged only within 24 hours of departure.
    """

    kind: Literal["set", "add", "subtract", "add_days", "insert", "cascade"]
    target: str | None = Field(None, description="'field:x' or 'via:ref.x'")
    value: Any = None
    amount: str | int | float | None = None
    entity: Identifier | None = None
    values: dict[str, Any] = {}
    states: list[str] | None = Field(None, description="For cascade: the child states it applies to")
    when: Guard | None = Field(
        None, description="Only if this condition holds (a fee charged only inside a window); else skipped"
    )


Actor = Literal["customer", "staff", "system"]


class Transition(Model):
    """An action on a record: a status change from ``from_states`` to ``to`` with guards and effects.

    ``actor`` says who performs it. Only ``customer`` transitions (what a customer-facing agent does
    on the customer's behalf) become agent tools; ``staff`` (back-office work such as marking a
    no-show or approving a claim) and ``system`` events (a flight departing, an order delivered)
    shape the seed data's states and dates instead.
    """

    name: Identifier
    description: str
    actor: Actor = "customer"
    from_states: list[str] = Field(min_length=1)
    to: str
    params: list[Param] = []
    guards: list[Guard] = []
    effects: list[Effect] = []
    confirm: bool = Field(
        False,
        description="The customer must agree to what it does first (a fee kept, a refund to a card): the tool "
        "takes confirm=true; with false it changes nothing and says what it would do",
    )


class Creation(Model):
    """How a user creates a record: which attributes they supply, with guards and effects.

    References are always supplied (as ``<ref>_id`` arguments). Other attributes not listed in
    ``inputs`` start at a default: dates at now (the end of a period the shortest plausible gap
    after its start, or empty if it may be: ``timeline``), numbers at their range's low end, text
    empty.
    Effects run after the insert; ``field:`` targets the new record.
    """

    description: str
    inputs: list[str] = []
    guards: list[Guard] = []
    effects: list[Effect] = []


class Lifecycle(Model):
    """A status machine on one column."""

    field: Identifier = "status"
    states: list[str] = Field(min_length=2)
    initial: str
    transitions: list[Transition] = Field(min_length=1)

    @model_validator(mode="after")
    def _states_exist(self) -> Lifecycle:
        known = set(self.states)
        if self.initial not in known:
            raise ValueError(f"initial state '{self.initial}' is not among states {self.states}")
        for t in self.transitions:
            bad = [s for s in [*t.from_states, t.to] if s not in known]
            if bad:
                raise ValueError(f"transition '{t.name}' names unknown state(s) {bad}")
        return self
