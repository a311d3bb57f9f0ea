"""Per-record limits of a domain ("at most 2 charges of a bill in dispute"), kept by the seed world.

A ``count_max`` rule with a literal bound says how many rows of an entity, in some states, one value
of a column may have. The tools refuse the act that would pass the bound; the seed data must not
start beyond it either, or an agent reads a world that breaks its own policy (three disputed charges
on a bill whose rule allows two). The seed generator asks :class:`SeedLimits` before it keeps a row,
and the limits every tool keeps become spec invariants that ``check_env`` runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from envs.engine.compile import quote_ident

from .domain import Domain, Entity, Guard
from .sqlgen import literal


@dataclass(frozen=True)
class Limit:
    """At most ``amount`` rows of ``entity`` in ``states`` per value of ``match``."""

    entity: str
    match: str
    states: tuple[str, ...]  # empty: every row counts
    amount: int

    def counts(self, status: Any) -> bool:
        return not self.states or status in self.states


def _as_limit(g: Guard) -> Limit | None:
    if g.kind != "count_max" or g.entity is None or g.match is None:
        return None
    if not isinstance(g.amount, int) or isinstance(g.amount, bool):
        return None
    return Limit(g.entity, g.match, tuple(g.states or ()), g.amount)


def limits(domain: Domain) -> list[Limit]:
    """Every literal per-record limit of the domain's transitions and creates (deduplicated)."""
    found: list[Limit] = []
    for e in domain.entities:
        guards = [g for t in (e.lifecycle.transitions if e.lifecycle else []) for g in t.guards]
        guards += list(e.create.guards) if e.create else []
        for g in guards:
            limit = _as_limit(g)
            if limit is not None and limit not in found:
                found.append(limit)
    return found


def _keeps(guards: list[Guard], limit: Limit) -> bool:
    """Whether a tool with ``guards`` refuses a call past ``limit`` (a policy-only rule does not)."""
    return any(
        g.enforced_by != "policy"
        and (other := _as_limit(g)) is not None
        and (other.entity, other.match, set(other.states)) == (limit.entity, limit.match, set(limit.states))
        and other.amount <= limit.amount
        for g in guards
    )


def limit_problem(domain: Domain, limit: Limit) -> str | None:
    """Why some agent tool could pass ``limit``, or None when every tool that adds a row to its states
    checks it (a transition into them, a create starting in them, an insert or cascade into them)."""
    counted = domain.entity(limit.entity)
    states = set(limit.states)
    for e in domain.entities:
        for t in e.lifecycle.transitions if e.lifecycle else []:
            if t.actor != "customer":
                continue
            enters = e.name == counted.name and states and t.to in states and not set(t.from_states) <= states
            if enters and not _keeps(list(t.guards), limit):
                return f"transition {e.name}.{t.name} does not check it"
            for x in t.effects:
                into = x.entity == counted.name and (x.kind == "insert" or (x.kind == "cascade" and x.value in states))
                initial = counted.lifecycle.initial if counted.lifecycle else None
                if into and (x.kind == "cascade" or not states or initial in states):
                    return f"an effect of {e.name}.{t.name} adds one"
        if e.create is not None:
            starts_in = not states or (e.lifecycle is not None and e.lifecycle.initial in states)
            if e.name == counted.name and starts_in and not _keeps(list(e.create.guards), limit):
                return f"create {e.name} does not check it"
            for x in e.create.effects:
                if x.kind == "insert" and x.entity == counted.name:
                    return f"an effect of create {e.name} adds one"
    return None


def limit_invariants(domain: Domain) -> list[dict[str, Any]]:
    """Spec invariants for the limits every tool keeps."""
    out = []
    for limit in limits(domain):
        if limit_problem(domain, limit) is not None:
            continue
        e = domain.entity(limit.entity)
        where = ""
        if limit.states and e.lifecycle is not None:
            where = f"WHERE {quote_ident(e.lifecycle.field)} IN ({', '.join(map(literal, limit.states))}) "
        out.append(
            {
                "name": f"{e.table}_{'_'.join(limit.states) or 'all'}_per_{limit.match}"[:64],
                "description": f"At most {limit.amount} {e.table.replace('_', ' ')} "
                f"{' or '.join(limit.states)} per {limit.match.removesuffix('_id').replace('_', ' ')}".replace(
                    "  ", " "
                ),
                "violations": f"SELECT {quote_ident(limit.match)}, count(*) AS n FROM {quote_ident(e.table)} "
                f"{where}GROUP BY {quote_ident(limit.match)} HAVING count(*) > {limit.amount}",
            }
        )
    return out


class SeedLimits:
    """Counts seed rows against the limits on one entity while its rows are generated."""

    def __init__(self, domain: Domain, entity: Entity) -> None:
        self.entity = entity
        self.limits = [x for x in limits(domain) if x.entity == entity.name]
        self.counts: dict[Limit, Counter[Any]] = {x: Counter() for x in self.limits}

    def passes(self, row: dict[str, Any], status: Any) -> bool:
        """Whether a row in ``status`` would pass a limit given the rows kept so far."""
        return any(
            x.counts(status) and row.get(x.match) is not None and self.counts[x][row[x.match]] >= x.amount
            for x in self.limits
        )

    def keep(self, row: dict[str, Any], status: Any) -> None:
        for x in self.limits:
            if x.counts(status) and row.get(x.match) is not None:
                self.counts[x][row[x.match]] += 1

    def settle(self, row: dict[str, Any], status: Any, alike: list[str]) -> Any:
        """``status``, or the first of ``alike`` (states that say the same about the row's dates) that
        keeps every limit, or None when none does (the row is left out)."""
        if not self.passes(row, status):
            return status
        return next((s for s in alike if not self.passes(row, s)), None)


def allows_in_seed(domain: Domain, seed: dict[str, list[dict[str, Any]]]) -> Callable[[str, dict[str, Any], Any], bool]:
    """Whether moving a seed row of a table to a status keeps every limit, given the other rows."""
    by_table: dict[str, list[Limit]] = {}
    for x in limits(domain):
        by_table.setdefault(domain.entity(x.entity).table, []).append(x)

    def allows(table: str, row: dict[str, Any], status: Any) -> bool:
        field = next((e.lifecycle.field for e in domain.entities if e.table == table and e.lifecycle), None)
        for x in by_table.get(table, []):
            if not x.counts(status) or row.get(x.match) is None:
                continue
            others = sum(
                1
                for r in seed.get(table, [])
                if r is not row and r.get(x.match) == row[x.match] and x.counts(r.get(field or ""))
            )
            if others >= x.amount:
                return False
        return True

    return allows
