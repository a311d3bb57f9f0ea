"""A dual-control domain description -> an ``EnvSpec``: the service's tables and tools for the agent,
the device's table and tools for the customer, healthy seed rows, the policy and the user guide.

Faults are not in the seed: a task's ``initial_patch`` puts them there, so one seed serves every
fault combination.
"""

from __future__ import annotations

import random
import zlib
from datetime import datetime, timedelta
from typing import Any

from envs.formats.spec import EnvSpec

from .description import DualDomain, Fault, Side, sql_literal
from .policy import policy_text, user_guide_text

CUSTOMERS = 12
ORDERS = "service_orders"  # the agent's table of changes made to a service
_ORDER_PREFIX = "SO"
_FIRST = ["Ana", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Keiko", "Liam", "Maya"]
_LAST = ["Alvarez", "Brooks", "Chen", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jensen"]


def domain_rng(domain: DualDomain, seed: int) -> random.Random:
    """A generator of its own per domain and seed (crc32, not ``hash``: the same on every run)."""
    return random.Random(seed * 1_000_003 + zlib.crc32(domain.id.encode()))


def _param(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _tool(
    name: str, description: str, kind: str, actor: Side, params: dict[str, Any], steps: list[dict[str, Any]]
) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": name,
        "description": description,
        "kind": kind,
        "parameters": {"type": "object", "properties": params, "required": list(params), "additionalProperties": False},
        "steps": steps,
    }
    if actor == "user":
        tool["actor"] = "user"
    return tool


def _column(fault: Fault) -> dict[str, Any]:
    column: dict[str, Any] = {"name": fault.column, "type": fault.column_type, "description": fault.meaning}
    if fault.column_type == "text":
        column["enum"] = sorted({str(fault.good), str(fault.bad)})
    return column


def status_expression(domain: DualDomain, device: str = "d", service: str = "s") -> str:
    """What the device shows, from both sides: the first fault present in troubleshooting order
    gives its symptom, and a device with none shows ``working``. The agent cannot run this (it reads
    the device), and the customer's reading of it is what tells a service fault from a device one."""
    alias = {"agent": service, "user": device}
    whens = " ".join(
        f"WHEN {alias[f.side]}.{f.column} = {sql_literal(f.bad)} THEN '{f.symptom}'" for f in domain.faults
    )
    return f"CASE {whens} ELSE '{domain.working}' END"


def _tables(domain: DualDomain) -> list[dict[str, Any]]:
    svc, dev = domain.service, domain.device
    return [
        {
            "name": "customers",
            "description": f"{domain.company}'s customers",
            "primary_key": ["customer_id"],
            "columns": [
                {"name": "customer_id", "type": "text"},
                {"name": "name", "type": "text"},
                {"name": "email", "type": "text", "unique": True},
                {"name": "phone", "type": "text"},
            ],
        },
        {
            "name": svc.table,
            "description": f"Each customer's {svc.noun}, as {domain.company} runs it",
            "primary_key": ["service_id"],
            "columns": [
                {"name": "service_id", "type": "text"},
                {"name": "customer_id", "type": "text"},
                {"name": "plan", "type": "text", "enum": svc.kinds},
                *(_column(f) for f in domain.faults_of("agent")),
            ],
            "foreign_keys": [{"columns": ["customer_id"], "table": "customers", "references": ["customer_id"]}],
        },
        {
            "name": ORDERS,
            "description": f"Orders placed on a {svc.noun}: every change to it is one",
            "primary_key": ["order_id"],
            "columns": [
                {"name": "order_id", "type": "text"},
                {"name": "service_id", "type": "text"},
                {
                    "name": "action",
                    "type": "text",
                    "enum": ["activation", *(f.fix_tool for f in domain.faults_of("agent"))],
                },
                {"name": "placed_at", "type": "datetime"},
            ],
            "foreign_keys": [{"columns": ["service_id"], "table": svc.table, "references": ["service_id"]}],
        },
        {
            "name": dev.table,
            "side": "user",
            "description": f"The customer's own {dev.noun}: only the customer sees and changes it",
            "primary_key": ["device_id"],
            "columns": [
                {"name": "device_id", "type": "text"},
                {"name": "service_id", "type": "text", "description": f"The {svc.noun} it uses"},
                {"name": "model", "type": "text", "enum": dev.kinds},
                *(_column(f) for f in domain.faults_of("user")),
            ],
        },
    ]


def _fix_tool(domain: DualDomain, fault: Fault) -> dict[str, Any]:
    holding, key = domain.holding(fault.side), domain.key(fault.side)
    missing = f"No {holding.noun} {{{key}}}"
    # A device's switch flips (a toggle done when nothing was wrong breaks what worked); its other
    # fixes are harmless when repeated (plugging in a cable that is in).
    value = f"NOT {fault.column}" if fault.toggle else sql_literal(fault.good)
    change: dict[str, Any] = {
        "kind": "exec",
        "sql": f"UPDATE {holding.table} SET {fault.column} = {value} WHERE {key} = :{key}",
        "min_changes": 1,
        "message": missing,
    }
    params = {key: _param(f"The {holding.noun}'s id, e.g. '{holding.id_prefix}1001'")}
    if fault.side == "user":
        steps = [
            change,
            {
                "kind": "return",
                "shape": "one",
                "message": missing,
                "sql": f"SELECT {key}, {fault.column} FROM {holding.table} WHERE {key} = :{key}",
            },
        ]
        return _tool(fault.fix_tool, fault.fix_says, "write", "user", params, steps)
    # Every change to the service is a service order on the customer's record, placed whether or not
    # anything was wrong: an agent that fixes blindly leaves orders the diagnosis would not have.
    steps = [
        change,
        {"kind": "query", "bind": "order", "sql": f"SELECT new_id('{_ORDER_PREFIX}') AS order_id"},
        {
            "kind": "exec",
            "sql": f"INSERT INTO {ORDERS} (order_id, service_id, action, placed_at) "
            f"VALUES (:order.order_id, :service_id, '{fault.fix_tool}', :now)",
        },
        {
            "kind": "return",
            "shape": "one",
            "message": missing,
            "sql": f"SELECT :order.order_id AS order_id, service_id, {fault.column} FROM {holding.table} "
            "WHERE service_id = :service_id",
        },
    ]
    says = f"{fault.fix_says} Places a service order on the customer's record."
    return _tool(fault.fix_tool, says, "write", "agent", params, steps)


def _read_tools(domain: DualDomain) -> list[dict[str, Any]]:
    svc, dev = domain.service, domain.device
    service_id = {"service_id": _param(f"The {svc.noun}'s id, e.g. '{svc.id_prefix}1001'")}
    device_id = {"device_id": _param(f"Your {dev.noun}'s id, e.g. '{dev.id_prefix}1001'")}
    settings = ", ".join(f.column for f in domain.faults_of("user"))
    return [
        _tool(
            "find_customer",
            f"Find a customer by email: their id, name and the ids of their {svc.noun}s.",
            "read",
            "agent",
            {"email": _param("The customer's email address")},
            [
                {
                    "kind": "return",
                    "shape": "one",
                    "message": "No customer with email {email}",
                    "json_columns": ["service_ids"],
                    "sql": "SELECT c.customer_id, c.name, c.email, "
                    f"(SELECT json_group_array(service_id) FROM {svc.table} WHERE customer_id = c.customer_id) "
                    "AS service_ids FROM customers c WHERE c.email = :email",
                }
            ],
        ),
        _tool(
            domain.service_tool,
            f"The {svc.noun} as {domain.company} runs it: plan and the state of each of its settings.",
            "read",
            "agent",
            service_id,
            [
                {
                    "kind": "return",
                    "shape": "one",
                    "message": f"No {svc.noun} {{service_id}}",
                    "sql": f"SELECT * FROM {svc.table} WHERE service_id = :service_id",
                }
            ],
        ),
        _tool(
            domain.status_tool,
            domain.status_says,
            "read",
            "user",
            device_id,
            [
                {
                    "kind": "return",
                    "shape": "one",
                    "message": f"No {dev.noun} {{device_id}}",
                    "sql": f"SELECT d.device_id, {status_expression(domain)} AS status FROM {dev.table} d "
                    f"JOIN {svc.table} s ON s.service_id = d.service_id WHERE d.device_id = :device_id",
                }
            ],
        ),
        _tool(
            domain.settings_tool,
            f"Open your {dev.noun}'s settings: its model and {settings.replace('_', ' ')}.",
            "read",
            "user",
            device_id,
            [
                {
                    "kind": "return",
                    "shape": "one",
                    "message": f"No {dev.noun} {{device_id}}",
                    "sql": f"SELECT device_id, model, {settings} FROM {dev.table} WHERE device_id = :device_id",
                }
            ],
        ),
    ]


def _seed(domain: DualDomain, seed: int) -> dict[str, list[dict[str, Any]]]:
    """Customers with one healthy service and one healthy device each."""
    rng = domain_rng(domain, seed)
    names = rng.sample([f"{f} {last}" for f in _FIRST for last in _LAST], CUSTOMERS)
    customers, services, devices, orders = [], [], [], []
    clock = datetime.fromisoformat(domain.clock)
    for i, name in enumerate(names, start=1):
        n = 100 + i  # seed ids below 1001: new_id() would start there
        first, last = name.lower().split()
        customers.append(
            {"customer_id": f"C{n}", "name": name, "email": f"{first}.{last}@example.com", "phone": f"555-01{n}"}
        )
        services.append(
            {
                "service_id": f"{domain.service.id_prefix}{n}",
                "customer_id": f"C{n}",
                "plan": rng.choice(domain.service.kinds),
                **{f.column: f.good for f in domain.faults_of("agent")},
            }
        )
        activated = clock - timedelta(days=rng.randint(30, 900), hours=rng.randint(0, 8))
        orders.append(
            {
                "order_id": f"{_ORDER_PREFIX}{n}",
                "service_id": f"{domain.service.id_prefix}{n}",
                "action": "activation",
                "placed_at": f"{activated:%Y-%m-%d %H:%M:%S}",
            }
        )
        devices.append(
            {
                "device_id": f"{domain.device.id_prefix}{n}",
                "service_id": f"{domain.service.id_prefix}{n}",
                "model": rng.choice(domain.device.kinds),
                **{f.column: f.good for f in domain.faults_of("user")},
            }
        )
    return {"customers": customers, domain.service.table: services, ORDERS: orders, domain.device.table: devices}


def build_spec(domain: DualDomain, seed: int = 0) -> EnvSpec:
    """The environment of ``domain``: validated, not yet checked (``envs.check.check_env`` does that)."""
    fixes = [_fix_tool(domain, f) for f in domain.faults]
    reads = _read_tools(domain)
    return EnvSpec.model_validate(
        {
            "id": domain.id,
            "name": domain.name,
            "sector": domain.sector,
            "description": f"{domain.company} support: the customer's {domain.device.noun} and "
            f"{domain.service.noun}; the customer acts on the {domain.device.noun}, the agent on the service.",
            "clock": domain.clock,
            "policy": policy_text(domain),
            "user_guide": user_guide_text(domain),
            "tables": _tables(domain),
            "seed": _seed(domain, seed),
            "tools": [
                *reads[:2],
                *(t for t in fixes if "actor" not in t),
                *reads[2:],
                *(t for t in fixes if "actor" in t),
            ],
        }
    )
