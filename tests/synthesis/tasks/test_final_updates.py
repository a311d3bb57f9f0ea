"""No task asks to change a field of a record nobody changes any more: a rank over all of a user's
records ("my installation order with the earliest install date") may pick a cancelled one, and then
the record is named another way (the seed-101 review read a speed tier changed on a cancelled order)."""

from __future__ import annotations

import pytest

from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.domains.sqlgen import pk
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env


@pytest.mark.parametrize("domain_id", ["fiber_installation_orders", "employee_expense_claims"])
def test_no_update_targets_a_record_in_a_state_no_move_leaves(domain_id: str) -> None:
    d = assign_enforcement(next(x for x in load_ontology() if x.id == domain_id))
    served = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, served.spec, served.meta, count=30, seed=0, twin=twin.spec)
    updated = 0
    for task in tasks:
        for call in task.gold_actions:
            meta = next((m for m in served.meta if m.tool == call.tool), None)
            if meta is None or meta.role != "update":
                continue
            e = d.entity(meta.entity)
            if e.lifecycle is None:
                continue
            row = next(r for r in served.spec.seed[e.table] if r[pk(e)] == call.arguments[pk(e)])
            leaving = {s for t in e.lifecycle.transitions for s in t.from_states}
            assert row[e.lifecycle.field] in leaving, (task.id, call.tool, row[e.lifecycle.field])
            updated += 1
    assert updated >= 3  # the check is exercised
