"""Procedural testing: the admission gate every generated tool must pass (ScaleEnv-style).

For every tool, cases are generated from the seed data and checked against an *independent*
oracle — the domain's own guard semantics evaluated in Python, not the generated SQL:

* valid calls succeed and their post-conditions hold (status, field effects, inserted rows);
* each guard, violated alone, gives that guard's error, and the state stays byte-identical;
* arguments that violate the JSON Schema are rejected without touching state;
* random valid call sequences never raise an internal error and keep every invariant.

A tool that fails any case is rejected with a reason; the caller drops it (and rejects the
environment if too little is left). Every rejection is counted by reason.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from envs import Environment, Episode
from envs.errors import SandboxError, StateError, ToolArgumentError, ToolError
from envs.formats.spec import EnvSpec, RequireStep
from envs.formats.task import PatchOp

from ..domains.coherence import agreeing
from ..domains.domain import Domain, Entity, Guard, Reference, Transition
from ..domains.enforcement import enforced, rule_guards
from ..domains.sqlgen import pk
from ..domains.timing import date_source
from ..tools.bulk import covered, within_limits
from ..tools.confirm import CONFIRM, NOT_YET, confirmed
from ..tools.toolkit import ToolMeta, sample_argument
from .oracle import Oracle

MAX_CANDIDATES = 40
SEQUENCE_STEPS = 300
_UNCONFIRMED = re.compile(re.escape(NOT_YET))
# a bulk call with one refused item: a per-item rule, the parent's shared balance or its item limit
_BULK_REFUSAL = re.compile(r".*(does not allow this|does not cover|may have at most)")


@dataclass
class ProbeReport:
    """What the gate found: rejected tools with reasons, and counts."""

    rejected: dict[str, str] = field(default_factory=dict)  # tool -> reason: detail
    cases: int = 0
    guards_checked: int = 0
    guards_untested: int = 0
    sequence_steps: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def reject(self, tool: str, reason: str, detail: str) -> None:
        if tool not in self.rejected:
            self.rejected[tool] = f"{reason}: {detail}"
            self.reasons[reason] += 1


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{[^{}]*\}", template)
    return re.compile("^" + ".*?".join(re.escape(p) for p in parts) + "$", re.DOTALL)


class Prober:
    """Runs the procedural tests of one generated environment."""

    def __init__(self, domain: Domain, spec: EnvSpec, meta: list[ToolMeta], *, seed: int) -> None:
        self.domain = domain
        self.spec = spec
        self.meta = {m.tool: m for m in meta}
        self.env = Environment(spec)
        self.oracle = Oracle(domain, spec)
        self.rng = random.Random(f"probe:{domain.id}:{seed}")
        self.report = ProbeReport()

    # -- helpers -------------------------------------------------------------------------------------
    def _fresh(self) -> Episode:
        return self.env.episode()

    def _extra_args(self, tool: str, skip: set[str]) -> dict[str, Any]:
        t = self.spec.tool(tool)
        assert t is not None
        props = t.parameters.get("properties", {})
        return confirmed(
            t.parameters,
            {
                n: sample_argument(s, self.rng, self.spec.clock)
                for n, s in props.items()
                if n in t.required_params and n not in skip and n != CONFIRM
            },
        )

    def _expect(self, ep: Episode, tool: str, args: dict[str, Any], error: re.Pattern[str] | None, what: str) -> bool:
        """Call and compare with the prediction (success if ``error`` is None). False = rejected."""
        self.report.cases += 1
        before = ep.serialize()
        try:
            ep.call_tool(tool, args)
        except (StateError, ToolArgumentError) as exc:
            if ep.serialize() != before:
                self.report.reject(tool, "state_changed_on_error", f"{what}: {exc}")
                return False
            if error is None:
                self.report.reject(tool, "valid_call_failed", f"{what}: {exc}")
                return False
            if not error.match(str(exc)):
                self.report.reject(tool, "wrong_guard_error", f"{what}: got '{exc}'")
                return False
            return True
        except ToolError as exc:
            self.report.reject(tool, "internal_error", f"{what}: {exc}")
            return False
        if error is not None:
            self.report.reject(tool, "guard_not_enforced", f"{what}: the call succeeded")
            return False
        return True

    # -- per kind ------------------------------------------------------------------------------------
    def probe_schema(self, tool: str) -> None:
        t = self.spec.tool(tool)
        assert t is not None
        ep = self._fresh()
        for args in (
            [{"__unexpected__": 1}] if not t.required_params else [{}, {t.required_params[0]: {"not": "a scalar"}}]
        ):
            self.report.cases += 1
            before = ep.serialize()
            try:
                ep.call_tool(tool, args)
                self.report.reject(tool, "schema_not_enforced", f"accepted {args}")
            except ToolArgumentError:
                if ep.serialize() != before:
                    self.report.reject(tool, "state_changed_on_error", f"schema case {args}")
            except ToolError as exc:
                self.report.reject(tool, "schema_not_enforced", f"{args} gave {type(exc).__name__}: {exc}")
        ep.close()

    def probe_read(self, m: ToolMeta) -> None:
        e = self.domain.entity(m.entity)
        rows = list(self.oracle.rows[e.name].values())[:5]
        ep = self._fresh()
        before = ep.serialize()
        for row in rows:
            args: dict[str, Any] = {}
            for param, key in m.inputs.items():
                ent, _, col = key.partition(".")
                if ent == e.name:
                    args[param] = row.get(col)
                else:
                    ref = next((r for r in e.references if r.entity == ent), None)
                    args[param] = row.get(ref.column) if ref else None
            if any(v is None for v in args.values()):
                continue
            self.report.cases += 1
            try:
                out = ep.call_tool(m.tool, args).content
            except ToolError as exc:
                self.report.reject(m.tool, "valid_call_failed", f"{args}: {exc}")
                break
            found = out if isinstance(out, list) else [out]
            if m.role in ("details", "lookup") and not any(
                isinstance(r, dict) and r.get(pk(e)) == row[pk(e)] for r in found
            ):
                self.report.reject(m.tool, "postcondition", f"{args} did not return {row[pk(e)]}")
                break
        if ep.serialize() != before:
            self.report.reject(m.tool, "read_changed_state", "a read tool changed the state")
        ep.close()

    def probe_transition(self, m: ToolMeta) -> None:
        e = self.domain.entity(m.entity)
        assert e.lifecycle is not None and m.transition is not None
        t = next(x for x in e.lifecycle.transitions if x.name == m.transition)
        tool = self.spec.tool(m.tool)
        assert tool is not None
        requires = [s for s in tool.steps if isinstance(s, RequireStep)]
        owner = self.domain.owner_checked(e, t)
        checks: list[tuple[str, Any, re.Pattern[str]]] = []  # (label, predicate, error)
        rules = enforced(rule_guards(t))  # the tool checks these; policy-only rules are the agent's to keep
        expected_requires = (owner is not None) + 1 + len(rules) + t.confirm
        if len(requires) != expected_requires:
            self.report.reject(
                m.tool,
                "guard_not_enforced",
                f"{len(requires)} precondition step(s) for {expected_requires} guard(s) of the domain",
            )
            return
        idx = 0
        if owner is not None:
            checks.append(("owner", None, _template_regex(requires[idx].message)))
            idx += 1
        checks.append(("status", None, _template_regex(requires[idx].message)))
        idx += 1
        for g in rules:
            checks.append((f"{g.kind} {g.field}", g, _template_regex(requires[idx].message)))
            idx += 1
        rows = list(self.oracle.rows[e.name].values())
        self.rng.shuffle(rows)
        seen_fail: set[str] = set()
        succeeded = False
        ep = self._fresh()
        for row in rows[:MAX_CANDIDATES]:
            args = {pk(e): row[pk(e)], **self._extra_args(m.tool, {pk(e)} | ({owner.column} if owner else set()))}
            if owner is not None:
                args[owner.column] = row[owner.column]
                if self.rng.random() < 0.25:  # someone else's record
                    others = [k for k in self.oracle.rows[owner.entity] if k != row[owner.column]]
                    args[owner.column] = self.rng.choice(others) if others else args[owner.column]
            expected: re.Pattern[str] | None = None
            for label, guard, err in checks:
                ok = (
                    args.get(owner.column) == row.get(owner.column)
                    if label == "owner" and owner
                    else row.get(e.lifecycle.field) in t.from_states
                    if label == "status"
                    else self.oracle.holds(guard, e, row, args)
                )
                if not ok:
                    expected = err
                    seen_fail.add(label)
                    break
            if expected is None and t.confirm and not succeeded:  # unconfirmed: nothing changes, it says why
                unconfirmed = {**args, CONFIRM: False}
                if not self._expect(ep, m.tool, unconfirmed, _UNCONFIRMED, f"{m.tool}({unconfirmed})"):
                    ep.close()
                    return
            if not self._expect(ep, m.tool, args, expected, f"{m.tool}({args})"):
                ep.close()
                return
            if expected is None:
                succeeded = True
                self._check_post(ep, e, t.to, row, m)
                ep.close()
                ep = self._fresh()
        ep.close()
        for label, guard, _ in checks:  # seed dates agree with statuses: some time rules need a moved date
            if isinstance(guard, Guard) and guard.kind in ("future", "past") and label not in seen_fail:
                if not self._moved_date_case(m, e, t, owner, checks, label, guard, rows):
                    if m.tool in self.report.rejected:
                        return
                    continue
                seen_fail.add(label)
        self.report.guards_checked += len(seen_fail)
        self.report.guards_untested += len(checks) - len(seen_fail)
        if not succeeded:
            self.report.guards_untested += 1  # no seed row satisfies every guard; nothing to admit on

    def _moved_date_case(
        self,
        m: ToolMeta,
        e: Entity,
        t: Transition,
        owner: Reference | None,
        checks: list[tuple[str, Any, re.Pattern[str]]],
        label: str,
        guard: Guard,
        rows: list[dict[str, Any]],
    ) -> bool:
        """A time guard no seed record violates: move one record's date (or its parent's) across the
        guard's edge on a fresh episode and expect that guard's error. False if rejected or no case."""
        assert e.lifecycle is not None
        src = date_source(self.domain, e, guard.field)
        if src is None:
            return False
        holder, col = src
        attr = holder.attribute(col)
        edge = self.spec.clock + timedelta(hours=guard.hours)
        moved = edge - timedelta(days=1) if guard.kind == "future" else edge + timedelta(days=2)
        value = moved.strftime("%Y-%m-%d" if attr is not None and attr.kind == "date" else "%Y-%m-%d %H:%M:%S")
        ref = e.reference(guard.field[4:].split(".", 1)[0]) if guard.field and guard.field.startswith("via:") else None
        for row in rows[:MAX_CANDIDATES]:
            if row.get(e.lifecycle.field) not in t.from_states or (owner and row.get(owner.column) is None):
                continue
            key = row.get(ref.column) if ref else row[pk(e)]
            if key is None:
                continue
            table = self.oracle.rows[holder.name]
            saved = table[key]
            table[key] = {**saved, col: value}
            try:
                args = {pk(e): row[pk(e)], **self._extra_args(m.tool, {pk(e)} | ({owner.column} if owner else set()))}
                if owner is not None:
                    args[owner.column] = row[owner.column]
                current = table[key] if ref is None else row
                broken = [
                    (lbl, err) for lbl, g, err in checks if g is not None and not self.oracle.holds(g, e, current, args)
                ]
                failing = broken[0] if broken else None
            finally:
                table[key] = saved
            if failing is None or failing[0] != label:
                continue
            ep = self._fresh()
            ep.apply_patch([PatchOp(op="update", table=holder.table, where={pk(holder): key}, set={col: value})])
            ok = self._expect(ep, m.tool, args, failing[1], f"{m.tool}({args}) with {holder.name}.{col} = {value}")
            ep.close()
            return ok
        return False

    def probe_bulk(self, m: ToolMeta) -> None:
        """A list of items the oracle admits succeeds and moves every one; adding one it refuses
        fails and changes nothing."""
        e = self.domain.entity(m.entity)
        assert e.lifecycle is not None and m.transition is not None
        t = next(x for x in e.lifecycle.transitions if x.name == m.transition)
        parent_ref = next(r for r in e.references if r.role == "owner")
        parent = self.domain.entity(parent_ref.entity)
        owner = next((r for r in parent.references if r.role == "owner"), None)

        status = e.lifecycle.field

        def admits(row: dict[str, Any]) -> bool:
            return row.get(status) in t.from_states and all(
                self.oracle.holds(g, e, row, {}) for g in enforced(rule_guards(t))
            )

        by_parent: dict[Any, list[dict[str, Any]]] = {}
        for row in self.oracle.rows[e.name].values():
            by_parent.setdefault(row[parent_ref.column], []).append(row)
        for parent_id, rows in sorted(by_parent.items(), key=lambda kv: str(kv[0])):
            good = [r for r in rows if admits(r)]
            bad = [r for r in rows if not admits(r)]
            parent_row = self.oracle.rows[parent.name][parent_id]
            while good and not covered(e, t, parent_row, good[:3]):  # a shared balance must cover them all
                good = good[1:]
            while len(good) > 1 and not within_limits(e, t, rows, good[:3]):  # and the parent's item limits
                good = good[:-1]
            if good and not within_limits(e, t, rows, good[:1]):
                good = []
            if not good:
                continue
            args: dict[str, Any] = {parent_ref.column: parent_id, f"{e.name}_ids": [r[pk(e)] for r in good[:3]]}
            if owner is not None:
                args[owner.column] = self.oracle.rows[parent.name][parent_id][owner.column]
            args.update(self._extra_args(m.tool, set(args)))
            if bad:
                ep = self._fresh()
                wrong = {**args, f"{e.name}_ids": [*args[f"{e.name}_ids"], bad[0][pk(e)]]}
                ok = self._expect(ep, m.tool, wrong, _BULK_REFUSAL, f"{m.tool}({wrong})")
                ep.close()
                if not ok:
                    return
                self.report.guards_checked += 1
            ep = self._fresh()
            if not self._expect(ep, m.tool, args, None, f"{m.tool}({args})"):
                ep.close()
                return
            for item in args[f"{e.name}_ids"]:
                after = ep.rows_by_key(e.table, [(item,)])[(item,)]
                if after is None or after.get(status) != t.to:
                    self.report.reject(m.tool, "postcondition", f"{item} did not move to '{t.to}'")
            ep.close()
            return
        self.report.guards_untested += 1

    def _check_post(self, ep: Episode, e: Entity, to: str, row: dict[str, Any], m: ToolMeta) -> None:
        assert e.lifecycle is not None
        after = ep.rows_by_key(e.table, [(row[pk(e)],)])[(row[pk(e)],)]
        if after is None or after.get(e.lifecycle.field) != to:
            self.report.reject(m.tool, "postcondition", f"{row[pk(e)]} did not move to '{to}'")
        for problem in self._invariant_problems(ep):
            self.report.reject(m.tool, "invariant_broken", problem)

    def _invariant_problems(self, ep: Episode) -> list[str]:
        out = []
        for inv in self.spec.invariants:
            if ep.query(inv.violations):
                out.append(f"invariant '{inv.name}' broken")
        return out

    def probe_other_write(self, m: ToolMeta) -> None:
        """Creates and updates: a valid call from seed values succeeds and keeps the invariants."""
        ep = self._fresh()
        constraint_failures: list[str] = []
        for _ in range(MAX_CANDIDATES):
            args = self._extra_args(m.tool, set())
            for param, key in m.inputs.items():
                ent, _, col = key.partition(".")
                if not key.startswith("param.") and col.endswith("_id") and ent in self.oracle.rows:
                    args[param] = self.rng.choice(list(self.oracle.rows[ent]))
            if m.role == "create":  # references that must agree (a booking's passenger) are copied
                args = agreeing(self.domain, self.domain.entity(m.entity), args, self.oracle.rows)
            self.report.cases += 1
            try:
                ep.call_tool(m.tool, args)
            except (StateError, ToolArgumentError) as exc:
                if "would break a rule of the data" in str(exc):
                    constraint_failures.append(str(exc))
                continue  # a guard refused this sample; try another
            except ToolError as exc:
                self.report.reject(m.tool, "internal_error", f"{args}: {exc}")
                return
            for problem in self._invariant_problems(ep):
                self.report.reject(m.tool, "invariant_broken", problem)
            ep.close()
            return
        ep.close()
        if constraint_failures and len(constraint_failures) == MAX_CANDIDATES:
            # every sample hit a table constraint, not a guard: the tool cannot work as generated
            self.report.reject(m.tool, "valid_call_failed", constraint_failures[0])
            return
        self.report.guards_untested += 1

    def random_sequences(self, tools: list[str]) -> None:
        """Random calls with seed-derived arguments: no internal errors, invariants always hold."""
        ep = self._fresh()
        ids = {e.name: list(self.oracle.rows[e.name]) for e in self.domain.entities}
        for step in range(SEQUENCE_STEPS):
            name = self.rng.choice(tools)
            m = self.meta[name]
            args = self._extra_args(name, set())
            for param, key in m.inputs.items():
                ent, _, col = key.partition(".")
                if ent in ids and col == f"{ent}_id" and ids[ent]:
                    args[param] = self.rng.choice(ids[ent])
            self.report.sequence_steps += 1
            try:
                ep.call_tool(name, args)
            except (StateError, ToolArgumentError):
                pass
            except (SandboxError, ToolError) as exc:
                self.report.reject(name, "internal_error", f"in a random sequence: {exc}")
            if step % 50 == 49:
                for problem in self._invariant_problems(ep):
                    self.report.reject(name, "invariant_broken", f"after a random sequence: {problem}")
        ep.close()

    def run(self) -> ProbeReport:
        for t in self.spec.tools:
            m = self.meta.get(t.name)
            if m is None:
                self.report.reject(t.name, "no_metadata", "tool has no generator metadata")
                continue
            self.probe_schema(t.name)
            if t.kind == "read":
                self.probe_read(m)
            elif m.role == "transition":
                self.probe_transition(m)
            elif m.role == "bulk":
                self.probe_bulk(m)
            else:
                self.probe_other_write(m)
        alive = [t.name for t in self.spec.tools if t.name not in self.report.rejected]
        if alive:
            self.random_sequences(alive)
        return self.report


def probe_env(domain: Domain, spec: EnvSpec, meta: list[ToolMeta], *, seed: int) -> ProbeReport:
    """Run every procedural test of a generated environment."""
    return Prober(domain, spec, meta, seed=seed).run()
