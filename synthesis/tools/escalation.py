"""Handing a request to people: what the agent does when a customer asks for a staff action.

Staff transitions (approving a claim, marking a repair done) are not agent tools. When a customer
asks for one, the right move is neither to pretend nor to refuse flatly but to hand the request
over: ``transfer_to_human_agent`` records an escalation (customer, record, what they need) in the
state, so a task can check it was made — and that nothing else was.
"""

from __future__ import annotations

from typing import Any

from envs.quality.text import word_set

from ..domains.domain import Domain, Entity, Transition
from ..domains.sqlgen import pk
from .toolkit import ToolBuilderBase, ToolMeta, id_schema, object_schema

TOOL = "transfer_to_human_agent"
PREFIX = "ESC"


def staff_requests(domain: Domain) -> list[tuple[Entity, Transition]]:
    """Staff transitions on records a customer owns: what a customer may ask for but an agent must hand over."""
    out = []
    for e in domain.entities:
        owned = any(r.role == "owner" for r in e.references) or e.name == domain.user_entity
        if e.lifecycle and owned:
            out += [(e, t) for t in e.lifecycle.transitions if t.actor == "staff"]
    return out


#: Staff actions a customer asks for themselves: those in their favour (approve my claim, waive my fee,
#: reinstate my account) and the record of what they did (I returned the book); nobody asks an agent to
#: deny their claim, mark them a no-show or uphold a ban.
_ASKED_HEADS = word_set(
    """approve refund reimburse reinstate waive grant extend lift release compensate overturn expedite
    enroll offer"""
)
_ASKED = word_set(
    """pay pay_out confirm accept resolve resolve_dispute settle reverse issue issue_refund apply_credit
    credit verify verify_grade schedule schedule_hearing start_review dispatch dispatch_technician
    start_repair start_trace start_investigation resume send fulfill mark_paid record_repayment check_in
    change_score release_score return record_return confirm_return"""
)


def asked_by_customers(t: Transition) -> bool:
    """Whether a customer would ask for staff action ``t`` on their own record."""
    return t.name in _ASKED or t.name.split("_")[0] in _ASKED_HEADS


def escalation_table(domain: Domain) -> str:
    tables = {e.table for e in domain.entities}
    return "escalations" if "escalations" not in tables else "service_escalations"


def escalation_table_spec(domain: Domain) -> dict[str, Any]:
    user = domain.entity(domain.user_entity)
    return {
        "name": escalation_table(domain),
        "description": "Requests handed to a human agent",
        "primary_key": ["escalation_id"],
        "columns": [
            {"name": "escalation_id", "type": "text"},
            {"name": pk(user), "type": "text"},
            {"name": "record_id", "type": "text", "nullable": True},
            {"name": "summary", "type": "text"},
            {"name": "status", "type": "text", "enum": ["open"]},
        ],
        "foreign_keys": [{"columns": [pk(user)], "table": user.table, "references": [pk(user)]}],
    }


def policy_lines(domain: Domain) -> list[str]:
    asks = sorted({t.description.split(";")[0].split(":")[-1].strip().rstrip(".") for _, t in staff_requests(domain)})
    if not asks:
        return []
    return [
        "",
        "## What only our staff can do",
        "You cannot do these yourself. If the customer asks for one, do not attempt it and do not refuse: "
        f"hand it over with `{TOOL}`, naming the customer, the record and what they need.",
        *[f"- {a[:1].upper() + a[1:]}" for a in asks],
    ]


class EscalationTools(ToolBuilderBase):
    """Adds the hand-over tool to environments whose customers may ask for staff actions."""

    def escalation(self) -> None:
        user = self.domain.entity(self.domain.user_entity)
        table = escalation_table(self.domain)
        self.add(
            {
                "name": TOOL,
                "kind": "write",
                "description": "Hand the customer's request to a human agent when it is something this service "
                "cannot do itself (see the policy). Records who asked, about which record, and what they need.",
                "parameters": object_schema(
                    {
                        pk(user): id_schema(user),
                        "record_id": {"type": "string", "description": "The id of the record the request is about"},
                        "summary": {"type": "string", "minLength": 1, "description": "What the customer needs"},
                    },
                    [pk(user), "record_id", "summary"],
                ),
                "steps": [
                    {
                        "kind": "query",
                        "bind": "who",
                        "sql": f"SELECT {pk(user)} FROM {user.table} WHERE {pk(user)} = :{pk(user)}",
                        "message": f"No {user.human} with id {{{pk(user)}}}",
                    },
                    {"kind": "query", "bind": "new", "sql": f"SELECT new_id('{PREFIX}') AS id"},
                    {
                        "kind": "exec",
                        "sql": f"INSERT INTO {table} (escalation_id, {pk(user)}, record_id, summary, status) "
                        f"VALUES (:new.id, :{pk(user)}, :record_id, :summary, 'open')",
                    },
                    {
                        "kind": "return",
                        "shape": "one",
                        "sql": f"SELECT * FROM {table} WHERE escalation_id = :new.id",
                        "message": "No escalation with id {new.id}",
                    },
                ],
            },
            ToolMeta(
                TOOL,
                "write",
                user.name,
                "escalate",
                inputs={
                    pk(user): f"{user.name}.{pk(user)}",
                    "record_id": "param.record_id",
                    "summary": "param.summary",
                },
            ),
        )
