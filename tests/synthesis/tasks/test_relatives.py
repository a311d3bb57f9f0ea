"""A relative a user asks to add fits their family as the seed's relatives do: no domestic partner
37 years older than the employee, no child born before the parent, a child with the parent's surname."""

from __future__ import annotations

from datetime import date
from typing import Any

from envs import check_env
from envs.quality.kin_ages import birth_fits, child_age_limit
from envs.quality.kinship import kind_of
from synthesis.tasks.relatives import fit_new_relative
from synthesis.tasks.taskgen import generate_tasks
from synthesis.tools.envgen import generate_env

from ...envs.quality.families import families
from ..seeds.generated import domain


def _lookup(spec):
    def row_of(table: str, value: Any) -> dict[str, Any] | None:
        key = spec.table(table).primary_key[0]
        return next((r for r in spec.seed[table] if r[key] == value), None)

    return row_of


def test_a_new_child_is_born_after_the_parent_and_carries_their_surname():
    spec = families()
    given = {"full_name": "Ann Smith", "date_of_birth": "1950-01-01", "relationship": "child"}
    fitted = fit_new_relative(spec, "dependents", {"employee_id": "E1"}, given, _lookup(spec))
    assert fitted["full_name"] == "Ann Medina" and fitted["relationship"] == "child"
    assert birth_fits("child", date.fromisoformat(fitted["date_of_birth"]), date(1966, 6, 1), spec.clock, None)
    assert fit_new_relative(spec, "dependents", {"employee_id": "E1"}, given, _lookup(spec)) == fitted  # same draw


def test_values_that_fit_or_tables_of_no_relatives_stay():
    spec = families()
    row_of = _lookup(spec)
    neighbor = {"beneficiary_name": "Ann Lee", "relationship": "neighbor"}
    assert fit_new_relative(spec, "beneficiaries", {"certificate_id": "C1"}, neighbor, row_of) == neighbor
    plan = {"plan_name": "Core Plan"}
    assert fit_new_relative(spec, "certificates", {"employee_id": "E1"}, plan, row_of) == plan
    son = {"full_name": "Leo Medina", "date_of_birth": "2001-01-01", "relationship": "son"}
    assert fit_new_relative(spec, "dependents", {"employee_id": "E1"}, son, row_of) == son


def test_generated_tasks_add_dependents_that_fit_the_employee():
    d = domain("benefits_open_enrollment")
    gen = generate_env(d, seed=0)
    twin = generate_env(d, seed=0, enforce_all=True)
    tasks, _ = generate_tasks(d, gen.spec, gen.meta, count=33, seed=0, twin=twin.spec)
    employees = {r["employee_id"]: r for r in gen.spec.seed["employees"]}
    limit = child_age_limit(gen.spec.policy)
    added = [a.arguments for t in tasks for a in t.gold_actions if a.tool == "create_dependent"]
    assert len(added) >= 2
    for args in added:
        employee = employees[args["employee_id"]]
        born, parent_born = (date.fromisoformat(v) for v in (args["date_of_birth"], employee["date_of_birth"]))
        kind = kind_of(args["relationship"])
        assert kind is not None and birth_fits(kind, born, parent_born, gen.spec.clock, limit), args
        if kind == "child":
            assert args["full_name"].split()[-1] == employee["full_name"].split()[-1]
    assert check_env(gen.spec, tasks).ok
