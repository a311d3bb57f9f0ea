"""The two texts of a dual-control domain: the agent's policy (the current time, what the agent may
do, the troubleshooting order, and that the device is the customer's to act on) and the user guide
(what the customer sees and can do)."""

from __future__ import annotations

from datetime import datetime

from ..tools.toolkit import a_
from .description import DualDomain, Fault


def shown(value: bool | str) -> str:
    """A value as the tools show it: booleans are stored, and returned, as 1 / 0."""
    if isinstance(value, bool):
        return f"`{int(value)}` ({'on' if value else 'off'})"
    return f"`{value}`"


def _step(domain: DualDomain, fault: Fault) -> str:
    if fault.side == "agent":
        where = f"the {domain.service.noun} (`{domain.service_tool}`) shows"
        act = f"{fault.fix_step} yourself with `{fault.fix_tool}`"
    else:
        where = f"the settings (`{domain.settings_tool}`) show"
        act = f"ask the customer to {fault.fix_step} (`{fault.fix_tool}`)"
        if fault.toggle:
            act += " — once: it is a switch, and a second press undoes it"
    return f"If {where} `{fault.column}` {shown(fault.bad)} — the status reads '{fault.symptom}' — {act}."


def policy_text(domain: DualDomain) -> str:
    now = datetime.fromisoformat(domain.clock)
    svc, dev = domain.service, domain.device
    agent_fixes = "\n".join(f"- `{f.fix_tool}`: {f.fix_says}" for f in domain.faults_of("agent"))
    user_acts = "\n".join(f"- `{f.fix_tool}`: {f.fix_says}" for f in domain.faults_of("user"))
    steps = [
        f"Identify the customer by email (`find_customer`) and read their {svc.noun} (`{domain.service_tool}`).",
        f"Ask the customer to check the {dev.noun}'s status (`{domain.status_tool}`) and tell you what it shows.",
        f"Ask the customer to open the {dev.noun}'s settings (`{domain.settings_tool}`) and read them to you.",
        *(_step(domain, f) for f in domain.faults),
        f"Ask the customer to check the status again: the issue is resolved when it shows '{domain.working}'.",
    ]
    workflow = "\n".join(f"{i}. {text}" for i, text in enumerate(steps, start=1))
    return f"""# {domain.company} technical support

The current time is {now:%Y-%m-%d %H:%M} (UTC).

You are {domain.company}'s support agent. Customers call about their {dev.noun} and their {svc.noun}.

## What you can do
You read and change the {svc.noun} as {domain.company} runs it:
- `find_customer`: find the customer by the email they give you.
- `{domain.service_tool}`: read the {svc.noun}'s plan and settings.
{agent_fixes}

## The customer's {dev.noun}
The {dev.noun} is the customer's. You cannot see it or change it: ask the customer to check it and to act
on it, one step at a time, and wait for what they report. The customer can:
- `{domain.status_tool}`: {domain.status_says}
- `{domain.settings_tool}`: read its settings.
{user_acts}

## Troubleshooting order
Several things can be wrong at once, on the {svc.noun} and on the {dev.noun}: the status shows only the
first of them in this order. Work through every step in this order, and fix each one that applies before
you finish:

{workflow}

Change nothing that is not wrong: every fix is for a fault a step found. Each change you make to the
{svc.noun} places a service order on the customer's record, whether or not it was needed: place only the
orders a step calls for, each once. Do not promise what the tools cannot do; transfer nothing.
"""


def user_guide_text(domain: DualDomain) -> str:
    dev, svc = domain.device, domain.service
    acts = "\n".join(f"- `{f.fix_tool}`: {f.fix_says}" for f in domain.faults_of("user"))
    return f"""You are {a_(domain.company)} customer and you hold your own {dev.noun}; the support agent cannot see
it. You know what it shows you, not why. With your tools you can, when the agent asks you to:
- `{domain.status_tool}`: {domain.status_says}
- `{domain.settings_tool}`: open its settings and read them.
{acts}

Do only what the agent asks, one step at a time, and report what your tools show, in your own words; never
guess a result you have not read. Your {svc.noun} is run by {domain.company}: you cannot change it yourself.
The issue is solved for you when the status shows '{domain.working}'.
"""
