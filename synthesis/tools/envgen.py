"""Domain -> environment spec: tables with constraints, tools with SQL guards, policy, invariants.

Per entity: a details lookup by id, lookups by each natural key a user would know, listings per
reference and a filtered search (reads); one write tool per lifecycle transition, a create tool
and update tools where the domain allows them. Every guard becomes a ``require`` step whose
message names the offending value, so the procedural tests can check that each guard, violated
alone, gives its own error. Alongside the spec, each tool gets a :class:`ToolMeta` describing
what it consumes, produces, requires and changes — the raw material of the dependency graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from envs.engine.compile import quote_ident
from envs.formats.spec import EnvSpec

from ..domains.aggregates import settle_aggregates
from ..domains.amounts import fit_amounts, settle_amounts
from ..domains.arranged_twice import settle_arrangements
from ..domains.awaited import settle_awaited
from ..domains.balances import settle_balances
from ..domains.bound_text import clear_unbound_text
from ..domains.bounds import balances_follow_children
from ..domains.child_dates import settle_child_dates
from ..domains.date_order import settle_date_order
from ..domains.deadlines import settle_answer_deadlines, settle_deadlines
from ..domains.domain import Attribute, Domain, Entity
from ..domains.ended_parents import settle_waiting_under_ended
from ..domains.event_children import settle_event_children
from ..domains.event_sides import settle_event_sides
from ..domains.filled_dates import settle_filled_dates
from ..domains.horizons import settle_horizons
from ..domains.implied_parents import settle_implied_parents
from ..domains.in_use import settle_in_use
from ..domains.kin_ages import settle_kin_ages
from ..domains.labels import keyed, settle_labels
from ..domains.lapses import settle_lapses
from ..domains.limits import allows_in_seed, limit_invariants
from ..domains.live_at_once import end_extra_homes
from ..domains.made_amounts import fit_made_amounts
from ..domains.money_bands import column_terms, settle_money_bands
from ..domains.money_dates import settle_money_dates
from ..domains.moved_parents import settle_moved_parents
from ..domains.one_off import holds_once_in_seed
from ..domains.own_names import settle_own_names
from ..domains.owned_twice import settle_owned_twice
from ..domains.paid_amounts import settle_paid_amounts
from ..domains.paid_children import pay_children_in_full
from ..domains.parent_kinds import settle_parent_kinds
from ..domains.parent_states import keeps_children
from ..domains.part_prices import settle_part_prices
from ..domains.periodic_rows import rule_edges, settle_periodic_rows
from ..domains.periods import settle_periods
from ..domains.priced_lines import fit_unit_prices
from ..domains.running_totals import settle_running_totals
from ..domains.seasons import settle_seasons
from ..domains.set_amounts import fit_set_amounts
from ..domains.sqlgen import pk
from ..domains.status_dates import settle_status_dates
from ..domains.status_fields import fit_status_fields
from ..domains.status_notes import settle_status_notes
from ..domains.surnames import settle_surnames
from ..domains.tiers import settle_tiers
from ..domains.timing import anchored_dates, settle_named_dates
from ..domains.transient import settle_transient
from ..domains.visit_charges import fit_fixed_charges, fit_visit_charges
from ..domains.wholes import fit_parts_within_wholes
from ..domains.won_once import settle_won_once
from ..domains.write_rules import carry_parent_effects, fit_write_rules
from ..seeds.seedgen import DEFAULT_ROWS, generate_seed
from .aggregate_steps import aggregate_invariants, aggregate_policy_lines, keep_aggregates
from .bulk import BulkTools, bulk_eligible
from .coherence_rules import coherence_invariants
from .escalation import EscalationTools, escalation_table_spec, policy_lines, staff_requests
from .policy_text import conduct_lines, entity_sections, handover_lines
from .read import ReadTools
from .toolkit import ToolMeta, a_, param_schema
from .write import WriteTools

__all__ = ["GeneratedEnv", "ToolMeta", "generate_env", "param_schema"]

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
class GeneratedEnv:
    spec: EnvSpec
    meta: list[ToolMeta]


def column_type(attr: Attribute) -> str:
    return _COLUMN_TYPES.get(attr.kind, "text")


def _table(entity: Entity, domain: Domain) -> dict[str, Any]:
    cols: list[dict[str, Any]] = [{"name": pk(entity), "type": "text", "description": f"{entity.human} id"}]
    keyed_by = {k.attr.name: k for k in keyed(domain, entity)}
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
        if (k := keyed_by.get(a.name)) is not None:
            col["pools"] = {"by": k.spec_key, "values": dict(k.pools)}
        col |= column_terms(domain, entity, a)
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


class ToolBuilder(ReadTools, WriteTools, BulkTools, EscalationTools):
    """Builds every tool of one domain."""


def _policy(domain: Domain, builder: ToolBuilder, clock: datetime) -> str:
    """The agent's policy, laid out as tau2-bench's: general conduct, then one section per entity with
    its status table and its actions (each action's rules as :attr:`ToolMeta.policy` states them, and
    why), then what only staff can do (``synthesis.tools.policy_text``)."""
    user = domain.entity(domain.user_entity)
    keys = [a.name.replace("_", " ") for a in user.attributes if a.lookup]
    lookups = [m for m in builder.meta if m.entity == user.name and m.role == "lookup"]
    staff = policy_lines(domain)
    lines = [
        f"# {domain.name}: agent policy",
        "",
        domain.description,
        "",
        # Rules about time ("more than 2 days away", "within the last 30 days") need today's date to
        # be decided, as tau2's policies state theirs.
        f"The current time is {clock:%Y-%m-%d %H:%M} (UTC).",
        "",
        "## Identity",
        f"Before you change anything, identify the {user.human} you are helping"
        f"{' by their ' + ' or '.join(keys) if keys else ''}"
        f"{' (' + ', '.join(f'`{m.tool}`' for m in lookups) + ')' if lookups else ''}. "
        "Act only on records that belong to them.",
    ]
    handover = handover_lines(builder.tools, builder.meta, staff_section=bool(staff))
    lines += conduct_lines(domain, handover=bool(staff))
    always = [*domain.rules, *aggregate_policy_lines(domain)]  # totals the system keeps are general rules too
    if always:
        lines += ["", "## Always", *[f"- {r}" for r in always]]
    lines += entity_sections(domain, builder.tools, builder.meta)
    lines += staff + handover
    return "\n".join(lines) + "\n"


def _invariants(domain: Domain) -> list[dict[str, Any]]:
    out = []
    for e in domain.entities:
        for a in e.attributes:
            if a.kind in ("money", "quantity") and (a.range is None or a.range[0] >= 0):
                out.append(
                    {
                        "name": f"{e.table}_{a.name}_not_negative",
                        "description": f"The {a.name.replace('_', ' ')} of {a_(e.human)} is never negative",
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
    return out + coherence_invariants(domain) + limit_invariants(domain) + aggregate_invariants(domain)


def generate_env(
    domain: Domain,
    *,
    seed: int,
    clock: datetime = datetime(2026, 3, 2, 9, 0, 0),
    rows: tuple[int, int] = DEFAULT_ROWS,
    exclude: frozenset[str] = frozenset(),
    enforce_all: bool = False,
) -> GeneratedEnv:
    """Turn a domain into a validated spec plus tool metadata.

    Rules the domain marks policy-only (``Guard.enforced_by``) are written in the policy and left
    out of their tools; with ``enforce_all`` every rule is checked by its tool, which makes the task
    generator's twin of the environment (same data and tools, a call the policy forbids fails).

    Raises:
        DomainError: the domain names something that does not exist or cannot be expressed.
        pydantic.ValidationError: the generated spec does not validate (a generator bug).
    """
    b = ToolBuilder(domain, exclude=exclude, enforce_all=enforce_all)
    for e in domain.entities:
        b.details(e)
        b.lookups(e)
        b.listings(e)
        b.search(e)
    for e in domain.entities:
        if e.lifecycle:
            for t in e.lifecycle.transitions:
                if t.actor == "customer":  # staff and system transitions are not the agent's to call
                    b.transition(e, t)
                if bulk_eligible(domain, e, t) is not None:
                    b.bulk(e, t)
        if e.create:
            b.create(e, e.create)
        for a in e.attributes:
            if a.editable:
                b.update(e, a)
    keep_aggregates(domain, b.tools)  # every write that touches what a relation reads keeps it
    tables = [_table(e, domain) for e in domain.entities]
    if staff_requests(domain):
        b.escalation()
        tables.append(escalation_table_spec(domain))
    spec = EnvSpec.model_validate(
        {
            "id": domain.id,
            "name": domain.name,
            "sector": domain.sector,
            "description": domain.description,
            "policy": _policy(domain, b, clock),
            "clock": clock,
            "tables": tables,
            "seed": generate_seed(domain, seed=seed, clock=clock, rows=rows),
            "invariants": _invariants(domain),
            "tools": b.tools,
            "rules": b.rules,
        }
    )
    settle_part_prices(spec, seed)  # no 5,265.30 alternator, before amounts copied from costs follow
    end_extra_homes(domain, spec)  # one lease running per tenant: the others ended, their tickets with them
    settle_arrangements(domain, spec)  # one live full-coverage contract per tank, one claim per benefit year
    # a scheduled pickup's return is pickup_scheduled, before dates follow statuses
    settle_moved_parents(spec, keeps_children(domain, spec.seed))
    settle_parent_kinds(spec, keeps_children(domain, spec.seed))  # no deposit refund on a deposit still held
    settle_waiting_under_ended(domain, spec)  # no week still due on a claim that closed
    within_limits, keeps = allows_in_seed(domain, spec.seed), keeps_children(domain, spec.seed)
    held_once = holds_once_in_seed(domain, spec.seed)
    anchors = anchored_dates(domain)
    settle_named_dates(spec, lambda *move: within_limits(*move) and keeps(*move) and held_once(*move), anchors)
    settle_periods(spec, anchors)  # statuses are final: dates follow them
    settle_lapses(spec, anchors)  # an active box's renewal still ahead, a past-due one's passed
    settle_event_children(spec)  # a prescription pending on a visit that took place, not on one ahead
    settle_implied_parents(spec)  # a box goes out under a subscription of its subscriber and plan
    settle_periodic_rows(spec, rule_edges(domain))  # a lot's monthly dues due on one day of the month
    settle_awaited(spec)
    settle_transient(spec, anchors)  # a parcel out for delivery since this week, not since November
    settle_deadlines(spec, anchors)
    settle_answer_deadlines(spec, anchors)  # an offer answered before the job it offers starts
    settle_filled_dates(spec)  # no draft with a submission day, no submitted application without one
    settle_date_order(spec, anchors)  # no bill due before its service, no hearing before its filing
    settle_child_dates(spec, anchors)
    settle_date_order(spec, forward=True)  # an appeal's filing bound by its week: its hearing follows it
    settle_event_sides(spec)  # no claim for a treatment ahead, no shift weeks past still up for swap
    settle_status_dates(spec)  # no glasses ready for pickup before their ready day
    settle_horizons(spec, anchors)  # a parcel expected within weeks, a membership begun within ten years
    settle_in_use(spec)  # no share with generation before it starts, no loan renewable the day it was borrowed
    settle_money_dates(spec, anchors, drop=True)  # a deposit before the final payment, a refund after the rental
    settle_seasons(domain, spec)  # dates are final: titles that name a season follow them
    settle_won_once(spec)  # one accepted offer per load, before the load takes what it sets
    carry_parent_effects(domain, spec)  # an accepted offer's load is covered, a passed test's vehicle emissions ok
    fit_write_rules(spec)  # no pickup order expedited, no test still booked for a vehicle already passed
    settle_owned_twice(spec)  # no game owned through two purchases
    settle_own_names(domain, spec)  # no owner with two businesses trading under one name
    settle_paid_amounts(spec)  # no payment of 0.00 marked paid, before amounts and balances follow it
    settle_tiers(spec)  # an extra-large box costs more than a small one, before amounts copy the fee
    settle_money_bands(spec, seed)  # a basic plan at a basic fee, a tip a share of its basket, as kinds now stand
    fit_amounts(spec)  # an offer near its listing's price, a deposit a part of it; then sums within wholes
    settle_amounts(spec)
    settle_kin_ages(spec)  # relatives' birth dates and documents fit their relationship
    settle_surnames(spec)  # children carry their parent's surname
    fit_visit_charges(spec)  # a no-show fee on a visit missed, a copay on one that took place
    pay_children_in_full(domain, spec)  # a layaway paid off has payments that add up to its price
    fit_set_amounts(spec)  # a fee the tools fix, plus what a step passed adds; one deposit per confirmation
    settle_aggregates(domain, spec)  # parents' totals follow their children, as finally seeded
    if settle_amounts(spec):  # a total a parent took from its items may now be below its refunds
        settle_aggregates(domain, spec)
    if fit_unit_prices(spec, keep_below=True):  # lines a parent's range scaled, in whole units again
        settle_aggregates(domain, spec, within_ranges=False)
    if fit_fixed_charges(spec):  # a missed-visit credit of 25.00, as the tool posts one
        fit_made_amounts(spec)  # a receipt copied from a fee the tool fixes follows it
        balances_follow_children(spec)  # a fine balance is the fixed fines still open
        settle_aggregates(domain, spec, within_ranges=False)
    if fit_parts_within_wholes(spec):  # no balance above party times price, no payments above the price
        settle_aggregates(domain, spec, within_ranges=False)  # what a record paid follows its payments
    settle_balances(spec)  # what is owed is the whole less what was paid, as the payments left it
    settle_running_totals(spec)  # a miles balance holds the accruals posted to it, no redemption on record
    settle_money_dates(spec, anchors)  # kinds are final: a payoff the amounts made comes after the installments
    clear_unbound_text(domain, spec.seed)  # statuses are final only now
    fit_status_fields(spec)  # so a value named for a status is set in it once more (a claim's notes once filed)
    settle_labels(domain, spec, seed)  # keys are final: a value another rule's move left off its key's pool
    settle_status_notes(domain, spec, seed)  # no denied claim's note reads "Approved"
    return GeneratedEnv(spec=spec, meta=b.meta)
