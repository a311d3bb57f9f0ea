"""Task instantiation by expanding the tool dependency graph from goals (ScaleEnv-style).

A task is a user with 1–3 goals on their own records. Goals are of five kinds:

* a **write** the oracle predicts every rule allows (a transition, a create, an update, or one call on several
  items of a record);
* a **dependent write** that the previous goal made possible: a transition on the record a create just made, or
  on the record a transition just moved into its from-state (a state edge of the tool graph, followed live);
* a **refused** request: the oracle predicts exactly one rule blocks it (the record's status, a balance below an
  amount, a date too close or already past, a value that must be another) — the expected state is unchanged,
  the agent must read the record and state the reason, and a call of the tool on a copy must fail;
* an **information** question about a record;
* a **hand-over**: the user asks for a staff action, which the agent passes to a human agent.

Each goal is expanded backwards to what the user knows (``task_knowledge``); some of it the user only reveals
when asked. Every gold call runs as it joins the chain. The checklist is written from the goals
(``checklist``), and a task whose gold run touches another user's rows is rejected.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import date
from typing import Any

from envs import Environment, Task
from envs.formats.spec import EnvSpec
from envs.grading.outputs import as_number, output_present

from ..domains.domain import Domain, Entity
from ..domains.enforcement import policy_only
from ..domains.sqlgen import pk
from ..gate.oracle import Oracle
from ..tools.escalation import TOOL as ESCALATION_TOOL
from ..tools.escalation import asked_by_customers, escalation_table, staff_requests
from ..tools.toolkit import ToolMeta
from .answers import told_value
from .asked_values import ask_after_writes
from .chain import Chain, ChainBroken, Goal
from .checklist import Checklist
from .label_pairs import pair_label
from .outcome import Outcomes
from .peer_values import peer_values
from .phrasing import Phrasing, column_noun, verb_phrase
from .quotes import QuoteGoals
from .rules import reason_is_claim
from .stated import Statements, read_what_rules_test
from .values import UserValues

#: Target shares of the task kinds (the rest are writes, many with dependent steps).
SHARES = {"information": 0.15, "refusal": 0.17, "partial-refusal": 0.12, "escalation": 0.06}
Row = dict[str, Any]
DECLINED_SHARE = 0.3  # of refusals where an action would charge a fee: the user declines the fee
#: Of information tasks, how many ask for a total over several records, and how many what an action would leave
#: the user with (the rest ask for one value of one record).
TOTAL_QUESTIONS, WHAT_IF_QUESTIONS = 0.4, 0.25
#: Of refusals where a policy-only rule could be the reason, how many rest on one (the rest on any rule).
POLICY_REFUSALS = 0.75


def _named_in(phrase: str, said: str) -> bool:
    """Whether ``said`` names the record ``phrase`` does: the phrase itself, or every value in it (a
    day in words, a code, a quoted title), however the words around them differ."""
    values = re.findall(r"[A-Z][a-z]+ \d{1,2}(?:, \d{4})?(?: at \d{1,2}(?::\d\d)? [AP]M)?|'[^']+'|\S*\d\S*", phrase)
    return phrase in said or (bool(values) and all(v.strip(".,") in said for v in values))


def _record_phrase(fact: str) -> str:
    """The record a hidden fact points at: what follows "is" ("My booking is the one on May 3.") or
    "you mean" ("When you ask to cancel it, you mean my confirmed booking with the highest fare.")."""
    return re.split(r" is | you mean ", fact, maxsplit=1)[-1].rstrip(".")


def _changed(episode: Any) -> set[tuple[str, tuple[Any, ...]]]:
    return {(table, key) for table, keys in episode.changed_keys().items() for key in keys}


def _unspecific(output: str) -> bool:
    """Whether a required output is a whole number below 10: any answer may state one by accident."""
    value = as_number(output)
    return value is not None and value == int(value) and abs(value) < 10


class TaskGenerator(QuoteGoals, Outcomes):
    """Generates verified tasks for one environment."""

    def __init__(
        self,
        domain: Domain,
        spec: EnvSpec,
        meta: list[ToolMeta],
        env: Environment,
        *,
        seed: int,
        served: Environment | None = None,
    ) -> None:
        self.domain = domain
        self.spec = spec
        self.statements = Statements(spec)  # what only the user can tell, when the policy waits on it
        self.meta = {m.tool: m for m in meta if spec.tool(m.tool) is not None}
        self.env = env  # every rule checked by its tool: gold chains run here and keep the policy
        self.served = served or env
        self.oracle = Oracle(domain, spec)
        self.rng = random.Random(f"tasks:{domain.id}:{seed}")
        self.say = Phrasing(self.rng, spec.clock.date())
        self.values = UserValues(self.rng, self.say, spec.clock)
        self.user = domain.entity(domain.user_entity)
        self.rejections: Counter[str] = Counter()
        self.used: Counter[str] = Counter()  # write tools by the number of tasks that call them
        self.base = env.episode()
        self.base_hash = self.base.state_hash()

    # -- assembly ------------------------------------------------------------------------------------
    def _reread_outputs(self, chain: Chain) -> None:
        """A value the user asks for after the writes must be read after them too."""
        for table, key, _ in dict.fromkeys(chain.outputs):
            entity = next(e for e in self.domain.entities if e.table == table)
            details = self._tool("details", entity.name)
            if details is not None:
                chain.call(details.tool, **{pk(entity): key})

    def _owner_in_state(self, table: str, row: dict[str, Any], chain: Chain) -> Any:
        """Who owns a row of the live episode (following owner references through the episode)."""
        assert chain.episode is not None
        entity = next((e for e in self.domain.entities if e.table == table), None)
        if entity is None:  # the hand-over table: a row names its customer
            return row.get(pk(self.user))
        for _ in range(5):
            if entity.name == self.user.name:
                return row.get(pk(entity))
            ref = next((r for r in entity.references if r.role == "owner"), None)
            if ref is None or row.get(ref.column) is None:
                return None
            entity = self.domain.entity(ref.entity)
            found = chain.episode.rows_by_key(entity.table, [(row[ref.column],)])[(row[ref.column],)]
            if found is None:
                return None
            row = found
        return None

    def touches_others(self, chain: Chain) -> bool:
        assert chain.episode is not None
        for table, keys in chain.episode.changed_keys().items():
            after = chain.episode.rows_by_key(table, keys)
            before = self.base.rows_by_key(table, keys)
            for key in keys:
                row = after[key] or before[key]
                owner = self._owner_in_state(table, row, chain) if row else None
                if owner is not None and owner != chain.user_id:
                    return True
        return False

    def escalation_task(self, task_id: str) -> Task | None:
        """The user asks for something only staff may do: the agent hands it over, changing nothing else."""
        options = [
            (e, t, row)
            for e, t in staff_requests(self.domain)
            if asked_by_customers(t)
            for row in self.oracle.rows[e.name].values()
            if e.lifecycle is not None
            and row.get(e.lifecycle.field) in t.from_states
            and self.oracle.owner_of(e, row) is not None
            and self.consistent(e, row, self.oracle.owner_of(e, row))
        ]
        if not options or self.spec.tool(ESCALATION_TOOL) is None:
            return None
        e, t, row = self.rng.choice(options)
        assert e.lifecycle is not None
        chain = Chain.start(self.env, str(self.oracle.owner_of(e, row)))
        checks = Checklist(self.domain, self.spec.clock, self.oracle.holds)
        try:
            phrase = self.locate(chain, e, row, details=True) if self.identify_user(chain) else None
            if phrase is None:
                return None
            user_col = pk(self.user)
            chain.call(
                ESCALATION_TOOL,
                **{user_col: chain.user_id, "record_id": row[pk(e)], "summary": verb_phrase(t.name, phrase)},
            )
            chain.goals.append(Goal(ESCALATION_TOOL, e.name, row[pk(e)], t.name, phrase))
            self.request(chain, e, t.name, phrase, {}, row=row)
            table = escalation_table(self.domain)
            checks.inserted.append(
                (table, {user_col: chain.user_id, "record_id": row[pk(e)]}, "the request is handed to a human agent")
            )
            status = str(row[e.lifecycle.field]).replace("_", " ")
            checks.keep(e, row, e.lifecycle.field, f"{e.human} {row[pk(e)]} is still {status}")
            return self.finish(chain, task_id, checks, ignore=[f"{table}.summary"])
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            chain.close()

    def finish(
        self,
        chain: Chain,
        task_id: str,
        checks: Checklist,
        *,
        info: list[str] | None = None,
        ignore: list[str] | None = None,
        distractors: list[str] | None = None,
        told: list[str] | None = None,
    ) -> Task | None:
        self._reread_outputs(chain)
        ep = chain.episode
        assert ep is not None
        writes = [g for g in chain.goals if g.blocked is None]
        refused = [g for g in chain.goals if g.blocked is not None]
        changed = bool(ep.changed_keys()) and ep.state_hash() != self.base_hash
        if writes and not changed:
            self.rejections["no_state_change"] += 1
            return None
        if not writes and changed:
            self.rejections["unexpected_change"] += 1
            return None
        if self.touches_others(chain):
            self.rejections["cross_user_write"] += 1
            return None
        if any((self.domain.entity(g.entity).table, (g.key,)) in _changed(ep) for g in refused):
            # another write changed the refused record (a payment on the member whose balance is the reason)
            self.rejections["refused_record_changed"] += 1
            return None
        if any(reason_is_claim(g, writes) for g in refused):
            self.rejections["reason_is_a_claim_of_another_write"] += 1
            return None
        outputs = list(info or [])
        sentences = list(told or [])[: len(outputs)]
        tables = {e.name: e.table for e in self.domain.entities}
        ask_after_writes(chain, tables, self.user.table, self.say, outputs, sentences)
        if any(_unspecific(out) for out in outputs):
            self.rejections["unspecific_output"] += 1  # "1" or "6.00" is stated by accident in any answer
            return None
        refusals = [self.refusal_of(g, writes) for g in refused]
        answer = self.reference_answer(refused, outputs, sentences)
        assertions = checks.assertions() if chain.goals else []
        n_writes = len(writes)
        calls = len(chain.calls)
        level = calls + 2 * n_writes + 3 * len(refused)
        difficulty = "easy" if level <= 5 else ("hard" if level >= 11 else "medium")
        tags = ["synthesized"]
        if info is not None:
            tags.append("information")
        elif refused:
            tags.append("refusal" if not writes else "partial-refusal")
            if any(w.tool == r.tool for w in writes for r in refused):
                tags.append("same-action-allowed")
        if writes:
            tags.append(f"{n_writes}-write")
        if any(g.depends_on_previous for g in writes):
            tags.append("dependent-chain")
        if any(g.tool == ESCALATION_TOOL for g in writes):
            tags.append("escalation")
        facts = list(chain.facts)
        # a record named outright in another request is no longer something to ask about
        said = " ".join(chain.requests)
        hidden = [h for h in chain.hidden if not _named_in(_record_phrase(h), said)]
        facts += [h for h in chain.hidden if h not in hidden]
        if facts and (info is not None or chain.goals) and self.rng.random() < 0.25:  # the agent must ask who
            hidden.insert(0, facts.pop(0))
            opening: list[str] = []
        else:
            opening = facts[:1]
        hidden += self.statements.facts(chain.calls, writes)
        for g in writes:
            self.used[g.tool] += 1
        # a record the user first asks for and then drops is not one they ask for in earnest too
        targets = {(g.entity, str(g.key)) for g in chain.goals}
        asked = {script for script, record in chain.decoys.items() if record in targets}
        task = Task.model_validate(
            {
                "id": task_id,
                "env": self.spec.id,
                "instruction": self.say.instruction(opening, chain.requests),
                "user": {
                    "persona": self.say.persona(
                        self._age(chain.user_id),
                        self._records(chain.user_id),
                        self.user.name,
                        largest_amount=self.largest_amount(chain.user_id),
                    ),
                    "known_facts": facts,
                    "reveal_if_asked": hidden,
                    # a user who changes their mind about a write does so in a task that refuses nothing
                    "behaviour": [
                        *(b for b in chain.behaviour if not (refused and "change your mind" in b) and b not in asked),
                        *self.behaviour(refused),
                    ],
                },
                "gold_actions": chain.calls,
                "outputs": outputs,
                "distractors": [d for d in dict.fromkeys(distractors or []) if d not in outputs],
                "refusals": refusals,
                "answer": answer,
                "assertions": assertions,
                "difficulty": difficulty,
                "expects_change": bool(writes),
                "reward_basis": ["state", "outputs", "assertions"] if assertions else ["state", "outputs"],
                "tags": tags,
                "ignore": ignore or [],
            }
        )
        return read_what_rules_test(ep.env, task, chain.results)  # the value a rule tests is read, not assumed

    def _records(self, user_id: str) -> int:
        """How many records the user holds in the seed (bookings, cards, claims): their history."""
        return sum(len(self.owned(e, user_id)) for e in self.domain.entities if e.name != self.user.name)

    def _age(self, user_id: str) -> int | None:
        """The user's age on the clock's day, where their record has a date of birth."""
        row = self.oracle.rows[self.user.name].get(user_id, {})
        born = next((row[a.name] for a in self.user.attributes if "birth" in a.name and row.get(a.name)), None)
        try:
            day = date.fromisoformat(str(born)[:10])
        except ValueError:
            return None
        clock = self.spec.clock.date()
        return clock.year - day.year - ((clock.month, clock.day) < (day.month, day.day))

    # -- task kinds ----------------------------------------------------------------------------------
    def _transitions(self) -> list[ToolMeta]:
        return [m for m in self.meta.values() if m.role == "transition"]

    def refusal_task(self, task_id: str, *, partial: bool) -> Task | None:
        declinable = self.declinable()
        if declinable and self.rng.random() < DECLINED_SHARE:
            return self.declined_task(task_id, declinable)
        options = [(m, b) for m in self._transitions() for b in self.blocked(m)]
        if not options:
            self.rejections["no_refusable_record"] += 1
            return None
        in_policy = [o for o in options if o[1][3] is not None and policy_only(o[1][3])]
        pool = in_policy if in_policy and self.rng.random() < POLICY_REFUSALS else options
        m, (row, args, rule, guard) = self.rng.choice(pool)
        e, _ = self._transition(m)
        chain = Chain.start(self.env, self.oracle.owner_of(e, row))
        checks = Checklist(self.domain, self.spec.clock, self.oracle.holds)
        try:
            if not self.identify_user(chain):
                return None
            twins = [] if partial else self.allowed_twins(m, row, rule, guard)
            # with no such record, another allowed write of theirs: an agent refusing all passes a lone refusal
            other_write = partial or not twins
            if other_write and not self.add_some_write(chain, checks, first=True) and partial:
                self.rejections["no_allowed_part"] += 1
                return None
            if partial:
                self.add_dependent(chain, checks)
            twin_first = self.rng.random() < 0.5  # the order of the requests says nothing of which is refused
            if twin_first and twins and not self._add_twin(chain, m, twins, checks):
                return None
            mark = chain.checkpoint()
            if not self.add_refusal(chain, m, row, args, rule, guard, checks):
                chain.rollback(mark)
                return None
            if twins and not twin_first and not self._add_twin(chain, m, twins, checks):
                return None
            return self.finish(chain, task_id, checks)
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            chain.close()

    def _add_twin(self, chain: Chain, m: ToolMeta, twins: list[tuple[Row, Row]], checks: Checklist) -> bool:
        for twin, extra in self.rng.sample(twins, min(3, len(twins))):
            mark = chain.checkpoint()
            if self.add_transition(chain, m, twin, extra, checks):
                return True
            chain.rollback(mark)
        self.rejections["no_allowed_twin"] += 1
        return False

    def declined_task(
        self, task_id: str, options: list[tuple[ToolMeta, dict[str, Any], dict[str, Any]]]
    ) -> Task | None:
        """The user agrees to an action only if it costs no fee, and a fee applies: nothing changes."""
        m, row, extra = self.rng.choice(options)
        e, t = self._transition(m)
        chain = Chain.start(self.env, self.oracle.owner_of(e, row))
        checks = Checklist(self.domain, self.spec.clock, self.oracle.holds)
        try:
            phrase = self.locate(chain, e, row, details=True) if self.identify_user(chain) else None
            if phrase is None:
                return None
            args = {pk(e): row[pk(e)], **extra}
            owner = self.domain.owner_checked(e, t)
            if owner is not None:
                args[owner.column] = row[owner.column]
            fee = self.fee_now(e, t, row, args)
            if fee:  # and something else the user wants done (another action: "if there's a fee for
                # that" must name one request)
                self.add_some_write(chain, checks, first=True, besides=m.tool)
            if not fee or not self.add_declined(chain, m, row, args, extra, phrase, fee, checks):
                return None
            return self.finish(chain, task_id, checks)
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            chain.close()

    def write_task(self, task_id: str, goals: int) -> Task | None:
        chain: Chain | None = None
        checks = Checklist(self.domain, self.spec.clock, self.oracle.holds)
        try:
            chain = self.start_write_chain(checks)
            if chain is None:
                return None
            for _ in range(goals - 1):
                if not self.add_dependent(chain, checks) or self.rng.random() < 0.15:
                    self.add_some_write(chain, checks, first=False)
            return self.finish(chain, task_id, checks)
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            if chain is not None:
                chain.close()

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
        draw = self.rng.random()
        if draw < TOTAL_QUESTIONS:
            return self.total_task(task_id, e, rows)
        if draw < TOTAL_QUESTIONS + WHAT_IF_QUESTIONS:
            return self.what_if_task(task_id)
        row = self.rng.choice(rows)
        # what the user chose when they made the record (how they heard of a job) is theirs to know
        chosen = set(e.create.inputs) if e.create is not None else set()
        asked = [
            a
            for a in e.attributes
            if a.kind in ("money", "date", "datetime", "enum", "quantity") and a.name not in chosen
        ]
        col = (
            e.lifecycle.field
            if e.lifecycle and (not asked or self.rng.random() < 0.4)
            else (self.rng.choice(asked).name if asked else None)
        )
        if col is None or row.get(col) is None:
            self.rejections["nothing_to_ask"] += 1
            return None
        chain = Chain.start(self.env, self.oracle.owner_of(e, row))
        try:
            # the record must be described by something other than the value asked for
            phrase = self.locate(chain, e, row, avoid=col, details=True) if self.identify_user(chain) else None
            if phrase is None:
                return None
            question = self.say.ask_record_value(phrase, col, {a.name: a.kind for a in e.attributes})
            if phrase != "my account":
                chain.facts.append(self.say.record_fact(phrase))
            value = row[col]
            attr = e.attribute(col)
            is_label = (e.lifecycle is not None and col == e.lifecycle.field) or (
                attr is not None and attr.kind == "enum"
            )
            shown = value.replace("_", " ") if isinstance(value, str) and is_label else value
            distractors = self.distractors(chain, e, row, col, str(shown), is_label)
            if not distractors:  # a dump of every tool result would answer it: nothing to tell apart
                self.rejections["no_distractor"] += 1
                return None
            info, told = [str(shown)], [told_value(phrase, column_noun(col))]
            if is_label:  # a label alone is won by a guess: an amount or a day of the record is asked too
                paired = pair_label(e, row, col, question, [*chain.facts, *chain.hidden], task_id)
                if paired is None:
                    self.rejections["label_without_read_value"] += 1
                    return None
                question, other = paired
                info.append(str(row[other]))
                told.append(told_value(phrase, column_noun(other)))
                distractors += self.distractors(chain, e, row, other, info[1], False)
            chain.requests.append(question)
            return self.finish(
                chain,
                task_id,
                Checklist(self.domain, self.spec.clock, self.oracle.holds),
                info=info,
                distractors=[d for d in distractors if not any(output_present(d, o) for o in info)],
                told=told,
            )
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            chain.close()

    def total_task(self, task_id: str, e: Entity, rows: list[Row]) -> Task | None:
        """The user asks for a sum over their records ("the total amount of my open fines"): a value no
        tool shows, worked out from the listing."""
        found = self.total_question(e, rows)
        if found is None:
            return None
        user_id, which, attr, total, others = found
        chain = Chain.start(self.env, user_id)
        try:
            sample = next(r for r in rows if self.oracle.owner_of(e, r) == user_id)
            if not self.identify_user(chain) or self.locate(chain, e, sample) is None:
                return None
            if output_present(f"{total:.2f}", json.dumps(chain.results, default=str)):
                self.rejections["total_shown"] += 1  # a tool shows it already: nothing to work out
                return None
            chain.requests.append(self.say.ask_total(attr, which))
            return self.finish(
                chain,
                task_id,
                Checklist(self.domain, self.spec.clock, self.oracle.holds),
                info=[f"{total:.2f}"],
                distractors=others,
                told=[told_value(f"my {which}", f"total {column_noun(attr)}")],
            )
        except ChainBroken:
            self.rejections["chain_failed"] += 1
            return None
        finally:
            chain.close()

    def distractors(self, chain: Chain, e: Entity, row: Row, col: str, answer: str, is_label: bool) -> list[str]:
        """What a wrong answer about ``row`` states: its peers' values, their sums (:mod:`.peer_values`)."""
        rows = list(self.oracle.rows[e.name].values())
        return peer_values(e, rows, row, col, answer, is_label, self.oracle.owner_of, chain.results)

    def _kind(self, made: Counter[str], failed: Counter[str], count: int) -> str:
        """The kind furthest below its share so far (writes fill the rest); a kind this environment
        keeps failing to make is given up, so a domain without, say, refusable records still fills up."""
        behind = [
            (made[k] / count - share, k)
            for k, share in SHARES.items()
            if made[k] < round(share * count + 0.5) and failed[k] < 12 + 2 * made[k]
        ]
        if behind and self.rng.random() < 0.9:
            return min(behind)[1]
        return "write"

    def generate(self, count: int) -> list[Task]:
        tasks: list[Task] = []
        made: Counter[str] = Counter()
        failed: Counter[str] = Counter()
        attempts = 0
        while len(tasks) < count and attempts < count * 15:
            attempts += 1
            task_id = f"{self.spec.id}-{len(tasks) + 1:03d}"
            kind = self._kind(made, failed, count)
            if kind == "information":
                task = self.info_task(task_id)
            elif kind == "escalation":
                task = self.escalation_task(task_id)
            elif kind in ("refusal", "partial-refusal"):
                task = self.refusal_task(task_id, partial=kind == "partial-refusal")
            else:
                task = self.write_task(task_id, self.rng.choice((1, 2, 2, 3, 3)))
            if task is None:
                failed[kind] += 1
                continue
            if any(t.gold_actions == task.gold_actions and t.outputs == task.outputs for t in tasks):
                self.rejections["duplicate"] += 1
                continue
            tasks.append(task)
            made[kind] += 1
        return tasks


def generate_tasks(
    domain: Domain, spec: EnvSpec, meta: list[ToolMeta], *, count: int, seed: int, twin: EnvSpec | None = None
) -> tuple[list[Task], Counter[str]]:
    """Verified tasks for one environment (``spec``, as agents get it), and the count of rejected
    attempts by reason. ``twin`` is the same environment with every rule checked by its tool
    (``generate_env(..., enforce_all=True)``); without it, ``spec`` is taken to check them all."""
    served = Environment(spec)
    gen = TaskGenerator(domain, twin or spec, meta, Environment(twin) if twin else served, seed=seed, served=served)
    return gen.generate(count), gen.rejections
