"""A task's verdict never rests on a value exactly on a time rule's edge: the tool says "Cancel a
reservation at least an hour ahead" and the rule "must be more than 1 hour away", so a reservation
exactly an hour off is allowed by one and refused by the other (seed 67's ev_charging_accounts-007).
The generator neither refuses nor grants a request on such a record, and measure 58 counts a refusal
whose reason sits there."""

from __future__ import annotations

from datetime import datetime, timedelta

from envs import Environment
from envs.formats.task import Refusal, Task
from envs.quality.edges import on_the_edge, refusals_on_edge
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.ontology import load_ontology
from synthesis.tasks.taskgen import TaskGenerator
from synthesis.tools.envgen import generate_env

CANCEL = "cancel_stall_reservation"


def _generator_with(times: dict[str, str]) -> tuple[TaskGenerator, dict[str, str]]:
    """A generator over the seed with held reservations moved to ``times`` (name -> reserved for), and
    the reservations' ids by name."""
    domain = assign_enforcement(next(d for d in load_ontology() if d.id == "ev_charging_accounts"))
    g = generate_env(domain, seed=0, enforce_all=True)
    held = [r for r in g.spec.seed["stall_reservations"] if r["status"] == "held"]
    ids = {}
    for row, (name, when) in zip(held[: len(times)], times.items(), strict=True):
        row["reserved_for"] = when
        ids[name] = row["stall_reservation_id"]
    return TaskGenerator(domain, g.spec, g.meta, Environment(g.spec), seed=0), ids


def test_a_reservation_exactly_on_the_rule_edge_is_neither_refused_nor_cancelled():
    clock = datetime(2026, 3, 2, 9)
    at = {
        "edge": f"{clock + timedelta(hours=1):%Y-%m-%d %H:%M:%S}",
        "too_soon": f"{clock + timedelta(minutes=30):%Y-%m-%d %H:%M:%S}",
        "in_time": f"{clock + timedelta(hours=3):%Y-%m-%d %H:%M:%S}",
    }
    gen, ids = _generator_with(at)
    assert gen.spec.clock == clock
    m = gen.meta[CANCEL]
    refused = {row["stall_reservation_id"] for row, *_ in gen.blocked(m)}
    allowed = {row["stall_reservation_id"] for row, _ in gen.candidates(m)}
    assert ids["too_soon"] in refused and ids["in_time"] in allowed
    assert ids["edge"] not in refused | allowed


def test_a_refusal_whose_reason_sits_on_the_rule_edge_is_counted():
    domain = assign_enforcement(next(d for d in load_ontology() if d.id == "ev_charging_accounts"))
    spec = generate_env(domain, seed=0).spec
    rule = next(r for r in spec.rules if r.id.startswith(CANCEL))
    assert on_the_edge(rule.text, spec.clock, "2026-03-02 10:00")
    assert not on_the_edge(rule.text, spec.clock, "2026-03-02 09:45")
    assert not on_the_edge(rule.text, spec.clock, "2026-03-02")  # a bare day: decide reads it apart

    def task(reason: str) -> Task:
        return Task(
            id=f"t-{reason.replace(' ', '-')}",
            env=spec.id,
            instruction="Cancel my reservation.",
            refusals=[Refusal(request="cancel my reservation", reason=[reason], rule=rule.id)],
        )

    counts = refusals_on_edge(spec, [task("2026-03-02 10:00"), task("2026-03-02 09:40"), task("2026-03-02")])
    assert (counts.time_refusals_checked, counts.refusals_on_rule_edge) == (3, 1)
