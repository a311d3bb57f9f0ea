"""Tasks of a dual-control domain: a customer with a combination of faults — on their device only, on
the service only, or on both — put in place by ``initial_patch``; gold that diagnoses with both sides'
reads and fixes each fault in the policy's order by the side that owns it; checks that the device ends
working and that each faulty row was put right.

The instruction says what the customer sees (the symptom of the first fault in troubleshooting order),
never the cause: finding the cause takes the customer's reads of the device.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from envs.formats.spec import EnvSpec
from envs.formats.task import Task

from ..tools.toolkit import a_
from .description import DualDomain, Fault, sql_literal
from .spec_builder import ORDERS, domain_rng, status_expression

Mix = Literal["user", "agent", "both"]
MIXES: tuple[Mix, ...] = ("user", "agent", "both")
TASKS_PER_DOMAIN = 24
_TRIES = 200


def _pick(rng: random.Random, faults: list[Fault], most: int) -> list[Fault]:
    # one fault more often than two: most calls in life have one cause
    size = 1 if most == 1 or rng.random() < 0.6 else 2
    return rng.sample(faults, min(size, len(faults)))


def sample_faults(rng: random.Random, domain: DualDomain, mix: Mix) -> list[Fault]:
    """A fault combination of the given mix, in troubleshooting order."""
    user, agent = domain.faults_of("user"), domain.faults_of("agent")
    if mix == "user":
        chosen = _pick(rng, user, 2)
    elif mix == "agent":
        chosen = _pick(rng, agent, 2)
    else:
        chosen = _pick(rng, user, 2) + _pick(rng, agent, 1)
    return [f for f in domain.faults if f in chosen]


def build_task(
    domain: DualDomain, number: int, customer: dict[str, Any], faults: list[Fault], mix: Mix, device: dict[str, Any]
) -> Task:
    """One task: ``customer`` (a seed row) has ``faults`` on their service and device."""
    svc, dev = domain.service, domain.device
    service_id, device_id = device["service_id"], device["device_id"]
    row = {"agent": service_id, "user": device_id}  # the row each side's fault is in
    first = faults[0]
    patch = [
        {
            "op": "update",
            "table": domain.holding(f.side).table,
            "where": {domain.key(f.side): row[f.side]},
            "set": {f.column: f.bad},
        }
        for f in faults
    ]
    on_device = {"device_id": device_id}
    gold: list[dict[str, Any]] = [
        {"tool": "find_customer", "arguments": {"email": customer["email"]}},
        {"tool": domain.service_tool, "arguments": {"service_id": service_id}},
        {"tool": domain.status_tool, "arguments": on_device, "actor": "user"},
        {"tool": domain.settings_tool, "arguments": on_device, "actor": "user"},
    ]
    for f in faults:  # the policy's order: the description's
        call = {"tool": f.fix_tool, "arguments": {domain.key(f.side): row[f.side]}}
        gold.append(call if f.side == "agent" else {**call, "actor": "user"})
    gold.append({"tool": domain.status_tool, "arguments": on_device, "actor": "user"})
    works = (
        f"SELECT {status_expression(domain)} = '{domain.working}' FROM {dev.table} d "
        f"JOIN {svc.table} s ON s.service_id = d.service_id WHERE d.device_id = '{device_id}'"
    )
    assertions = [{"description": f"The {dev.noun} shows '{domain.working}'", "sql": works}]
    for f in faults:
        holding, key = domain.holding(f.side), domain.key(f.side)
        assertions.append(
            {
                "description": f"{f.column} of {holding.noun} {row[f.side]} is put right",
                "sql": f"SELECT {f.column} = {sql_literal(f.good)} FROM {holding.table} WHERE {key} = '{row[f.side]}'",
            }
        )
    for f in domain.faults_of("agent"):  # one order for each service fault, none for the others
        placed = int(f in faults)
        assertions.append(
            {
                "description": f"{placed} order to {f.fix_tool.replace('_', ' ')} placed on {service_id}",
                "sql": f"SELECT count(*) = {placed} FROM {ORDERS} WHERE service_id = '{service_id}' "
                f"AND action = '{f.fix_tool}'",
            }
        )
    name = customer["name"]
    return Task.model_validate(
        {
            "id": f"{domain.id}-{number:03d}",
            "env": domain.id,
            "instruction": f"Hi, this is {name}. {first.observed} My email is {customer['email']} and my "
            f"{dev.noun}'s id is {device_id}.",
            "user": {
                "persona": f"{name}, {a_(domain.company)} customer who is not technical but follows instructions.",
                "known_facts": [
                    f"Your email is {customer['email']}",
                    f"Your {dev.noun}'s id is {device_id}",
                    f"Your {dev.noun} shows '{first.symptom}'",
                ],
                "behaviour": [
                    f"Acts on the {dev.noun} only when the agent asks, and reports what the tools show",
                    f"Considers the issue solved only when the status shows '{domain.working}'",
                ],
            },
            "initial_patch": patch,
            "gold_actions": gold,
            "assertions": assertions,
            "difficulty": ("easy", "medium", "hard")[min(len(faults), 3) - 1],
            "expects_change": True,
            # the answer is graded too: one that says the fix was not made after it was fails
            "reward_basis": ["state", "outputs", "assertions"],
            "tags": ["dual-control", f"faults-{mix}", *(f"fault:{f.id}" for f in faults)],
        }
    )


def generate_tasks(domain: DualDomain, spec: EnvSpec, *, seed: int = 0, count: int = TASKS_PER_DOMAIN) -> list[Task]:
    """``count`` tasks, a third of each mix (device only, service only, both), no two alike: the same
    seed gives the same tasks."""
    rng = domain_rng(domain, seed + 7919)  # a stream apart from the seed rows'
    customers = spec.seed["customers"]
    devices = {d["service_id"]: d for d in spec.seed[domain.device.table]}
    services = {s["customer_id"]: s for s in spec.seed[domain.service.table]}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    tasks: list[Task] = []
    for _ in range(_TRIES * count):
        if len(tasks) == count:
            break
        mix = MIXES[len(tasks) % len(MIXES)]
        customer = rng.choice(customers)
        faults = sample_faults(rng, domain, mix)
        key = (customer["customer_id"], tuple(f.id for f in faults))
        if key in seen:
            continue
        seen.add(key)
        device = devices[services[customer["customer_id"]]["service_id"]]
        tasks.append(build_task(domain, len(tasks) + 1, customer, faults, mix, device))
    return tasks
