"""Dual-control environments at catalog scale: services whose customer holds part of the state.

Each built-in domain (``devices``) is a declarative description — a service the agent runs, a device
the customer holds, the faults either side can have with their symptoms and fixes, in the policy's
troubleshooting order (``description``). From it come the spec (``spec_builder``: agent tables and
tools on the service; user tables and tools on the device, whose status read joins both sides), the
policy and user guide (``policy``), and tasks that combine faults on the customer's side, the
agent's, or both (``tasks``). ``build`` checks and writes them as catalog folders; ``measures``
says how much of the work is the customer's.
"""

from __future__ import annotations

from .build import DualBuildError, build_dual_env, build_dual_envs, write_dual_catalog, write_env
from .description import DualDomain, Fault, Holding
from .devices import built_in_domains
from .measures import agent_alone_solved, dual_control_measures, total_measures
from .tasks import generate_tasks

__all__ = [
    "DualBuildError",
    "DualDomain",
    "Fault",
    "Holding",
    "agent_alone_solved",
    "build_dual_env",
    "build_dual_envs",
    "built_in_domains",
    "dual_control_measures",
    "generate_tasks",
    "total_measures",
    "write_dual_catalog",
    "write_env",
]
