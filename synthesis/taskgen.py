"""Task instantiation by expanding the tool dependency graph backwards from goals (ScaleEnv-style).

A task starts from 1–3 goals: write actions on records of one user, bound to seed records the
oracle predicts will pass every guard. Each goal is expanded backwards to what a user would know:
the user is identified by email (or full name + date), the record by a distinguishing attribute
(its own, or of a record it references — e.g. "the loan of 'Tidy Windows'") or, failing that, by
its id. Every fact is checked with a query to identify its target uniquely. The chain is then
*executed* on a fresh episode: every call must succeed and the state must change. The checklist
(EnvScaler-style, for partial credit) is derived from the rows the chain actually changed.
Information tasks ask for a value; their required outputs are computed by execution.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from envs import Environment, Episode, Task
from envs.errors import ToolError
from envs.spec import EnvSpec

from .domain import Domain, Entity, Transition
from .oracle import Oracle
from .phrasing import Phrasing
from .sqlgen import literal, pk
from .toolkit import ToolMeta, sample_argument

_DESCRIPTIVE = ("title", "person_name", "company", "date", "datetime", "code", "city", "enum")


@dataclass
class Chain:
    """Gold calls under construction, with the facts the user states and the goals' targets."""

    user_id: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    targets: list[tuple[str, str]] = field(default_factory=list)  # (table, id)
    outputs: list[tuple[str, str, str]] = field(default_factory=list)  # (table, id, column) to report

    def call(self, tool: str, **arguments: Any) -> None:
        self.calls.append({"tool": tool, "arguments": arguments})


class TaskGenerator:
    """Generates verified tasks for one environment."""

    def __init__(self, domain: Domain, spec: EnvSpec, meta: list[ToolMeta], env: Environment, *, seed: int) -> None:
        self.domain = domain
        self.spec = spec
        self.meta = {m.tool: m for m in meta if spec.tool(m.tool) is not None}
        self.env = env
        self.oracle = Oracle(domain, spec)
        self.rng = random.Random(f"tasks:{domain.id}:{seed}")
        self.say = Phrasing(self.rng)
        self.user = domain.entity(domain.user_entity)
        self.rejections: Counter[str] = Counter()
        self.base = env.episode()
        self.base_hash = self.base.state_hash()

    # -- facts and lookups ---------------------------------------------------------------------------
    def _tool(self, role: str, entity: str, **where: Any) -> ToolMeta | None:
        for m in self.meta.values():
            if m.role == role and m.entity == entity and all(getattr(m, k) == v for k, v in where.items()):
                return m
        return None

    def identify_user(self, chain: Chain) -> bool:
        row = self.oracle.rows[self.user.name][chain.user_id]
        email = next((a for a in self.user.attributes if a.kind == "email" and a.lookup), None)
        by_email = self._tool("lookup", self.user.name, attribute=email.name) if email else None
        combo = next(
            (
                m
                for m in self.meta.values()
                if m.entity == self.user.name and m.role == "lookup" and m.attribute and "+" in m.attribute
            ),
            None,
        )
        if combo is not None and (by_email is None or self.rng.random() < 0.3):
            name_attr, date_attr = combo.attribute.split("+")  # type: ignore[union-attr]
            n = self.base.query(
                f"SELECT count(*) AS n FROM {self.user.table} WHERE lower({name_attr}) = lower(:a) "
                f"AND {date_attr} = :b",
                {"a": row[name_attr], "b": row[date_attr]},
            )[0]["n"]
            if n == 1:
                chain.call(combo.tool, **{name_attr: row[name_attr], date_attr: row[date_attr]})
                chain.facts.append(self.say.name_fact(row[name_attr], date_attr, row[date_attr]))
                return True
        if by_email is None or email is None:
            self.rejections["no_user_lookup"] += 1
            return False
        chain.call(by_email.tool, **{email.name: row[email.name]})
        chain.facts.append(self.say.email_fact(row[email.name]))
        return True

    def _owned(self, entity: Entity, user_id: str) -> list[dict[str, Any]]:
        return [r for r in self.oracle.rows[entity.name].values() if self.oracle.owner_of(entity, r) == user_id]

    def locate(self, chain: Chain, entity: Entity, row: dict[str, Any], *, avoid: str | None = None) -> str | None:
        """Add the calls that let an agent find ``row`` from the user's id; return how the user names it."""
        if entity.name == self.user.name:
            return "my account"
        owner = next((r for r in entity.references if r.role == "owner"), None)
        if owner is None:
            self.rejections["no_owner_path"] += 1
            return None
        if owner.entity != self.user.name:  # one level of indirection: user -> parent -> record
            parent = self.domain.entity(owner.entity)
            parent_row = self.oracle.rows[parent.name].get(row[owner.column])
            if parent_row is None or self.locate(chain, parent, parent_row) is None:
                return None
        listing = self._tool("list", entity.name)
        listing = next(
            (
                m
                for m in self.meta.values()
                if m.role == "list" and m.entity == entity.name and owner.column in m.inputs
            ),
            listing,
        )
        if listing is None:
            self.rejections["no_listing"] += 1
            return None
        chain.call(listing.tool, **{owner.column: row[owner.column]})
        siblings = [r for r in self.oracle.rows[entity.name].values() if r.get(owner.column) == row[owner.column]]
        phrase = self.describe(chain, entity, row, siblings, avoid=avoid)
        details = self._tool("details", entity.name)
        if details is not None and self.rng.random() < 0.45:  # a careful agent checks the record first
            chain.call(details.tool, **{pk(entity): row[pk(entity)]})
        return phrase

    def describe(
        self,
        chain: Chain,
        entity: Entity,
        row: dict[str, Any],
        siblings: list[dict[str, Any]],
        *,
        avoid: str | None = None,
    ) -> str:
        """A fact that singles ``row`` out among ``siblings`` (checked), else its id."""
        options: list[tuple[str, Any, str | None]] = []
        kinds: dict[str, str] = {}
        for a in entity.attributes:
            if a.kind in _DESCRIPTIVE and row.get(a.name) is not None and a.name != avoid:
                options.append((a.name, row[a.name], None))
                kinds[a.name] = a.kind
        for ref in entity.references:
            if ref.role == "owner" or row.get(ref.column) is None:
                continue
            parent = self.domain.entity(ref.entity)
            prow = self.oracle.rows[parent.name].get(row[ref.column], {})
            label = next((a.name for a in parent.attributes if a.kind in ("title", "person_name", "company")), None)
            if label and prow.get(label):
                options.append((f"{ref.ref_name}.{label}", prow[label], ref.column))
        self.rng.shuffle(options)
        for key, value, via in options:
            if via is None:
                same = [s for s in siblings if s.get(key) == value]
            else:
                ref_entity = self.domain.entity(next(r.entity for r in entity.references if r.column == via))
                col = key.split(".", 1)[1]
                same = [s for s in siblings if self.oracle.rows[ref_entity.name].get(s.get(via), {}).get(col) == value]
            if len(same) == 1:
                if via is not None:
                    details = self._tool("details", ref_entity.name)
                    if details is not None:
                        chain.call(details.tool, **{pk(ref_entity): row[via]})
                return self.say.record_phrase(entity.human, key, value, kinds.get(key, "title"))
        return self.say.id_phrase(entity.human, row[pk(entity)])

    # -- goals ---------------------------------------------------------------------------------------
    def _transition(self, m: ToolMeta) -> tuple[Entity, Transition]:
        e = self.domain.entity(m.entity)
        assert e.lifecycle is not None
        return e, next(t for t in e.lifecycle.transitions if t.name == m.transition)

    def candidates(self, m: ToolMeta) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(row, extra arguments) pairs for which the oracle predicts that ``m`` succeeds."""
        e, t = self._transition(m)
        assert e.lifecycle is not None
        tool = self.spec.tool(m.tool)
        assert tool is not None
        out = []
        for row in self.oracle.rows[e.name].values():
            if row.get(e.lifecycle.field) not in t.from_states or self.oracle.owner_of(e, row) is None:
                continue
            args: dict[str, Any] = {}
            for p in t.params:
                schema = tool.parameters["properties"][p.name]
                if "enum" in schema:
                    args[p.name] = self.rng.choice(schema["enum"])
                elif schema.get("type") == "string" and "format" not in schema and "pattern" not in schema:
                    args[p.name] = self.say.param_value(p.name, schema)  # free text in the user's words
                else:
                    args[p.name] = sample_argument(schema, self.rng, self.spec.clock)
            if all(self.oracle.holds(g, e, row, args) for g in t.guards if g.kind != "owner"):
                out.append((row, args))
        return out

    def add_goal(self, chain: Chain, m: ToolMeta, row: dict[str, Any], extra: dict[str, Any]) -> bool:
        e, t = self._transition(m)
        if (e.table, row[pk(e)]) in chain.targets:
            return False
        phrase = self.locate(chain, e, row)
        if phrase is None:
            return False
        args = {pk(e): row[pk(e)], **extra}
        owner = next((r for r in e.references if r.role == "owner"), None)
        if owner is not None and m.tool and owner.column in m.inputs:
            args[owner.column] = row[owner.column]
        chain.call(m.tool, **args)
        chain.requests.append(self.say.request(t.name, phrase, extra, first=not chain.targets))
        chain.facts.append(self.say.record_fact(phrase))
        chain.targets.append((e.table, row[pk(e)]))
        money = next(
            (
                eff
                for eff in t.effects
                if eff.kind in ("add", "subtract") and eff.target and eff.target.startswith("via:")
            ),
            None,
        )
        if money is not None and money.target is not None and self.rng.random() < 0.5:
            ref_name, _, col = money.target[4:].partition(".")
            ref = e.reference(ref_name)
            if ref is not None and ref.entity == self.user.name:
                chain.outputs.append((self.user.table, chain.user_id, col))
        return True

    # -- assembly ------------------------------------------------------------------------------------
    def _reread_outputs(self, chain: Chain) -> None:
        """A value the user asks for after the writes must be read after them too."""
        for table, key, _ in dict.fromkeys(chain.outputs):
            entity = next(e for e in self.domain.entities if e.table == table)
            details = self._tool("details", entity.name)
            if details is not None:
                chain.call(details.tool, **{pk(entity): key})

    def execute(self, chain: Chain) -> Episode | None:
        ep = self.env.episode()
        for c in chain.calls:
            try:
                ep.call_tool(c["tool"], c["arguments"])
            except ToolError:
                self.rejections["chain_failed"] += 1
                ep.close()
                return None
        return ep

    def checklist(self, ep: Episode) -> list[dict[str, str]]:
        items = []
        for table, keys in sorted(ep.changed_keys().items()):
            tspec = self.spec.table(table)
            key_col = tspec.primary_key[0]
            before = self.base.rows_by_key(table, keys)
            after = ep.rows_by_key(table, keys)
            for key in sorted(keys, key=str)[:3]:
                new, old = after[key], before[key]
                if new is None:
                    items.append(
                        {
                            "description": f"{table} {key[0]} is removed",
                            "sql": f"SELECT count(*) = 0 FROM {table} WHERE {key_col} = {literal(key[0])}",
                        }
                    )
                    continue
                changed = [c for c in new if old is None or new[c] != old[c]]
                for col in changed[:3]:
                    if col == key_col:
                        continue
                    value = new[col]
                    cond = (
                        f"{col} IS NULL"
                        if value is None
                        else (
                            f"abs({col} - {literal(value)}) < 0.005"
                            if isinstance(value, float)
                            else f"{col} = {literal(value)}"
                        )
                    )
                    verb = "is created with" if old is None else "has"
                    items.append(
                        {
                            "description": f"{table} {key[0]} {verb} {col} = {value}",
                            "sql": f"SELECT count(*) = 1 FROM {table} WHERE {key_col} = {literal(key[0])} AND {cond}",
                        }
                    )
        return items[:8]

    def finish(self, chain: Chain, task_id: str, *, info: list[str] | None = None) -> Task | None:
        self._reread_outputs(chain)
        ep = self.execute(chain)
        if ep is None:
            return None
        try:
            changed = bool(ep.changed_keys()) and ep.state_hash() != self.base_hash
            if info is None and not changed:
                self.rejections["no_state_change"] += 1
                return None
            outputs = list(info or [])
            for table, key, col in chain.outputs:
                value = ep.rows_by_key(table, [(key,)])[(key,)]
                if value is not None and value.get(col) is not None:
                    outputs.append(str(value[col]))
                    chain.requests.append(self.say.ask_value(col))
            assertions = self.checklist(ep) if info is None else []
        finally:
            ep.close()
        writes = sum(self.spec.tool(c["tool"]).kind == "write" for c in chain.calls)  # type: ignore[union-attr]
        calls = len(chain.calls)
        difficulty = "easy" if calls <= 3 and writes <= 1 else ("hard" if calls >= 6 or writes >= 3 else "medium")
        hide = [f for f in chain.facts[1:] if self.rng.random() < 0.5]
        return Task.model_validate(
            {
                "id": task_id,
                "env": self.spec.id,
                "instruction": self.say.instruction(chain.facts[:1], chain.requests),
                "user": {
                    "persona": self.say.persona(),
                    "known_facts": [f for f in chain.facts if f not in hide],
                    "reveal_if_asked": hide,
                },
                "gold_actions": chain.calls,
                "outputs": outputs,
                "assertions": assertions,
                "difficulty": difficulty,
                "expects_change": info is None,
                "reward_basis": ["state", "outputs", "assertions"] if info is None else ["state", "outputs"],
                "tags": ["synthesized", "information" if info is not None else f"{writes}-write"],
            }
        )

    def write_task(self, task_id: str, goals: int) -> Task | None:
        writes = [m for m in self.meta.values() if m.role == "transition"]
        if not writes:
            self.rejections["no_write_tools"] += 1
            return None
        first = self.rng.choice(writes)
        options = self.candidates(first)
        if not options:
            self.rejections["no_satisfiable_record"] += 1
            return None
        row, extra = self.rng.choice(options)
        e = self.domain.entity(first.entity)
        chain = Chain(user_id=self.oracle.owner_of(e, row))
        if not self.identify_user(chain) or not self.add_goal(chain, first, row, extra):
            return None
        for _ in range(goals - 1):
            m = self.rng.choice(writes)
            mine = [
                (r, x)
                for r, x in self.candidates(m)
                if self.oracle.owner_of(self.domain.entity(m.entity), r) == chain.user_id
            ]
            if mine:
                r, x = self.rng.choice(mine)
                self.add_goal(chain, m, r, x)
        return self.finish(chain, task_id)

    def info_task(self, task_id: str) -> Task | None:
        owned_entities = [
            e
            for e in self.domain.entities
            if e.name != self.user.name and any(r.role == "owner" and r.entity == self.user.name for r in e.references)
        ]
        if not owned_entities:
            return None
        e = self.rng.choice(owned_entities)
        rows = [r for r in self.oracle.rows[e.name].values() if self.oracle.owner_of(e, r) is not None]
        if not rows:
            return None
        row = self.rng.choice(rows)
        asked = [a for a in e.attributes if a.kind in ("money", "date", "datetime", "enum", "quantity")]
        col = (
            e.lifecycle.field
            if e.lifecycle and (not asked or self.rng.random() < 0.4)
            else (self.rng.choice(asked).name if asked else None)
        )
        if col is None or row.get(col) is None:
            self.rejections["nothing_to_ask"] += 1
            return None
        chain = Chain(user_id=self.oracle.owner_of(e, row))
        # the record must be described by something other than the value asked for
        phrase = self.locate(chain, e, row, avoid=col) if self.identify_user(chain) else None
        if phrase is None:
            return None
        chain.requests.append(self.say.ask_record_value(phrase, col))
        return self.finish(chain, task_id, info=[str(row[col])])

    def generate(self, count: int) -> list[Task]:
        tasks: list[Task] = []
        attempts = 0
        while len(tasks) < count and attempts < count * 8:
            attempts += 1
            task_id = f"{self.spec.id}-{len(tasks) + 1:03d}"
            roll = self.rng.random()
            if roll < 0.2:
                task = self.info_task(task_id)
            else:
                task = self.write_task(task_id, 1 if roll < 0.5 else self.rng.choice((2, 2, 3)))
            if task is not None and all(t.gold_actions != task.gold_actions for t in tasks):
                tasks.append(task)
            elif task is not None:
                self.rejections["duplicate"] += 1
        return tasks


def generate_tasks(
    domain: Domain, spec: EnvSpec, meta: list[ToolMeta], *, count: int, seed: int
) -> tuple[list[Task], Counter[str]]:
    """Verified tasks for one environment, and the count of rejected attempts by reason."""
    gen = TaskGenerator(domain, spec, meta, Environment(spec), seed=seed)
    return gen.generate(count), gen.rejections
