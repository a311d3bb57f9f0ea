"""What the seed data of a domain keeps consistent, derived from the domain alone: references and prices.

* **Reference agreement.** When an entity references both A and B, and B leads to A (B references
  A directly, or through B's chain of owners), the record's A must be B's A: a credit entry of
  passenger P points at a booking of P. :func:`agreements` finds these triangles.
* **Prices.** A child's money attribute that names a parent's money attribute starts equal to it
  (:func:`price_links`): ``booking.fare_paid`` is its flight's ``fare``.
* **Ended parents.** A record under one that has ended for good (a cancelled lab order, a refunded
  purchase) is not left open: it takes its own called-off end state (:func:`under_ended_parent`),
  so no callback of a cancelled order waits to be cancelled.

Status/date coherence is in ``timing``; which of these become spec invariants in ``coherence_rules``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.engine.compile import quote_ident
from envs.quality.text import word_set

from .domain import Domain, Entity, Reference
from .sqlgen import pk

# -- reference agreement ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Agreement:
    """``entity.target`` must equal the id reached from ``entity.source`` by following ``path``.

    ``path`` is a chain of non-nullable references starting at the source's entity; the last one
    points at the target's entity (``booking.passenger`` for a credit entry's passenger).
    """

    entity: str
    target: Reference
    source: Reference
    path: tuple[Reference, ...]


def _direct(holder: Entity, target: Reference, strict: bool) -> Reference | None:
    """The reference of ``holder`` that stands for ``target``: the one to the same entity, or the one
    with the same name (only that when ``strict``: the record has several references to the entity)."""
    refs = [r for r in holder.references if r.entity == target.entity and not r.nullable]
    same = [r for r in refs if r.ref_name == target.ref_name]
    if same or strict:
        return same[0] if same else None
    return refs[0] if len(refs) == 1 else None


def _path(domain: Domain, source: Reference, target: Reference, strict: bool) -> tuple[Reference, ...] | None:
    """How the source's record reaches the target's entity: directly, or up its owner chain."""
    holder = domain.entity(source.entity)
    path: list[Reference] = []
    for _ in range(4):
        step = _direct(holder, target, strict)
        if step is not None:
            return (*path, step)
        owner = next((r for r in holder.references if r.role == "owner" and not r.nullable), None)
        if owner is None or owner.entity == holder.name:
            return None
        path.append(owner)
        holder = domain.entity(owner.entity)
    return None


def agreements(domain: Domain, entity: Entity) -> list[Agreement]:
    """Per reference of ``entity``, the other reference it must agree with (shortest path), if any."""
    out = []
    for target in entity.references:
        if target.entity == entity.name:
            continue
        best: Agreement | None = None
        strict = sum(r.entity == target.entity for r in entity.references) > 1  # a sender and a recipient
        for source in entity.references:
            if source is target or source.entity in (target.entity, entity.name):
                continue
            path = _path(domain, source, target, strict)
            if path is not None and (best is None or len(path) < len(best.path)):
                best = Agreement(entity.name, target, source, path)
        if best is not None:
            out.append(best)
    return out


def agreement_sql(domain: Domain, ag: Agreement, source_id: str) -> str:
    """A scalar subquery: the target id the source record (``source_id``, an SQL expression) leads to."""
    tables = [domain.entity(ag.source.entity)]
    for ref in ag.path[:-1]:
        tables.append(domain.entity(ref.entity))
    sql = f"SELECT t{len(tables) - 1}.{ag.path[-1].column} FROM {quote_ident(tables[0].table)} t0"
    for i, ref in enumerate(ag.path[:-1], start=1):
        sql += f" JOIN {quote_ident(tables[i].table)} t{i} ON t{i}.{pk(tables[i])} = t{i - 1}.{ref.column}"
    return f"({sql} WHERE t0.{pk(tables[0])} = {source_id})"


def resolve_agreement(ag: Agreement, source_id: Any, rows: dict[str, dict[str, dict[str, Any]]]) -> Any:
    """The target id the source record leads to, given rows by entity and id (None if a link is missing)."""
    value = source_id
    entity = ag.source.entity
    for ref in ag.path:
        row = rows.get(entity, {}).get(value) if value is not None else None
        if row is None:
            return None
        value, entity = row.get(ref.column), ref.entity
    return value


def agreeing(
    domain: Domain, entity: Entity, values: dict[str, Any], rows: dict[str, dict[str, dict[str, Any]]]
) -> dict[str, Any]:
    """``values`` (reference columns -> ids) with every agreeing reference copied from its source."""
    out = dict(values)
    found = agreements(domain, entity)
    for _ in found:  # a chain of agreements settles in as many rounds as it is long
        for ag in found:
            if out.get(ag.source.column) is not None:
                out[ag.target.column] = resolve_agreement(ag, out[ag.source.column], rows)
    return out


# -- prices -------------------------------------------------------------------------------------------

_PRICE_WORDS = frozenset({"fee", "price", "fare", "copay", "cost", "dues", "charge"})
_DUE_WORDS = frozenset({"due", "owed"})
_NOT_A_PRICE = frozenset(
    {"balance", "credit", "credits", "limit", "budget", "allowance", "remaining", "available", "income", "points"}
)
_NOT_ONE_PAYMENT = frozenset({"total", "per", "hourly", "daily", "weekly"})


@dataclass(frozen=True)
class PriceLink:
    """``entity.attribute`` starts equal to ``attribute`` of the record ``ref`` points to."""

    entity: str
    attribute: str
    ref: Reference
    parent_attribute: str


def _words(name: str) -> set[str]:
    return set(name.split("_"))


def _compared(domain: Domain, child: Entity, attr: str, ref: Reference, parent_attr: str) -> bool:
    """Whether a ``min`` guard weighs the two against each other (equal seeds would never fail it)."""
    sides = {f"field:{attr}", f"via:{ref.ref_name}.{parent_attr}"}
    guards = [g for t in (child.lifecycle.transitions if child.lifecycle else []) for g in t.guards]
    guards += child.create.guards if child.create else []
    return any(g.kind == "min" and {g.field, g.amount} == sides for g in guards)


def price_links(domain: Domain, entity: Entity) -> list[PriceLink]:
    """The money attributes of ``entity`` that copy a parent's price (first matching reference wins).

    Two rules. (1) The parent attribute's name, less the words of the child entity's name, is
    contained in the child attribute's name: ``fare`` in ``fare_paid``; an exam sitting's
    ``registration_fee`` in a registration's ``fee_paid``; a podcast show's ``spot_price`` in an ad
    spot's ``price``. Balances, limits and budgets are never prices. (2) A payment or receipt
    record's ``amount`` settles its parent's one amount due / owed, else its one fee, price, fare,
    copay, cost or dues; a charge's or an invoice's ``amount`` is its parent's one fee, price, fare,
    copay, cost, dues or charge. Pairs that a ``min`` guard compares are left independent.
    """
    own = _words(entity.name) | {"per"}
    kinds = _words(entity.name)
    out: list[PriceLink] = []
    for a in entity.attributes:
        if a.kind != "money":
            continue
        for ref in entity.references:
            if ref.entity == entity.name:
                continue
            parent = domain.entity(ref.entity)
            money = [p.name for p in parent.attributes if p.kind == "money" and not (_words(p.name) & _NOT_A_PRICE)]
            match = [p for p in money if (core := _words(p) - own) and core <= _words(a.name) - {"per"}]
            if not match and a.name == "amount" and kinds & {"payment", "receipt", "charge", "invoice"}:
                priced = [p for p in money if _words(p) & _PRICE_WORDS and not _words(p) & _NOT_ONE_PAYMENT]
                due = [p for p in money if _words(p) & _DUE_WORDS]
                match = (due or priced) if kinds & {"payment", "receipt"} else priced
                match = match if len(match) == 1 else []
            match = [p for p in match if not _compared(domain, entity, a.name, ref, p)]
            if match:
                out.append(PriceLink(entity.name, a.name, ref, match[0]))
                break
    return out


# -- invariants ---------------------------------------------------------------------------------------


# -- ended parents ------------------------------------------------------------------------------------

#: The last word of a state that ends a record for good (on hold, paused or suspended do not).
ENDED = word_set(
    """cancelled canceled withdrawn void voided revoked rescinded retracted abandoned deleted reversed
    refunded terminated discontinued declined rejected"""
)


def _ended(state: Any) -> bool:
    return isinstance(state, str) and state.lower().replace("-", "_").split("_")[-1] in ENDED


def under_ended_parent(
    domain: Domain, entity: Entity, row: dict[str, Any], status: str, rows: dict[str, dict[str, dict[str, Any]]]
) -> str:
    """``status``, or the entity's own called-off end state (one no transition leaves, "cancelled")
    when ``status`` is open and a record ``row`` references has ended for good."""
    lc = entity.lifecycle
    if lc is None:
        return status
    leaving = {s for t in lc.transitions for s in t.from_states}
    ends = [s for s in lc.states if s not in leaving and _ended(s)]
    if not ends or status not in leaving:
        return status
    for ref in entity.references:
        parent = domain.entity(ref.entity)
        if ref.entity == entity.name or parent.lifecycle is None or row.get(ref.column) is None:
            continue
        parent_row = rows.get(parent.name, {}).get(row[ref.column])
        if parent_row is not None and _ended(parent_row.get(parent.lifecycle.field)):
            return ends[0]
    return status
