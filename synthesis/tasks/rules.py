"""Rules in task goals: which records a write is allowed on, which a rule refuses and why.

The oracle (the domain's rules evaluated in Python) predicts, per record, which rules a request
breaks. A refused request becomes a goal only when exactly one rule blocks it, the tool really
refuses it on a copy of the episode, and the reason can be read from the records the agent sees.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from envs import Environment
from envs.errors import StateError, ToolError
from envs.formats.spec import EnvSpec
from envs.grading.decidable import decide, is_time_rule
from envs.grading.outputs import Reading
from envs.quality.already import Move, done_states

from ..domains.domain import Entity, Guard, Transition, plural
from ..domains.enforcement import policy_only, rule_guards
from ..domains.labels import keyed_params
from ..domains.sqlgen import pk
from ..tools.confirm import confirmed
from ..tools.toolkit import ToolMeta, rule_id, sample_argument
from .answers import participles
from .chain import Chain, Goal
from .checklist import Checklist
from .knowledge import UserKnowledge
from .landing import asked_early, holds_amount, moved_without_need, nearby_amount
from .motive_fit import RecordFacts
from .motives import PAYOUT_VERB, transition_motive
from .phrasing import verb_phrase
from .values import UserValues

#: Parameters that hold the user's reason for a request, which the user dictates as its detail.
_REASON_FIELD = re.compile(r"reason|note|comment|explanation|justification|statement")
#: Parameters that say how much a request pays (a deposit, a part payment).
_PAID_FIELD = re.compile(r"amount|deposit|payment|sum")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _moment(value: str, guard: Guard, clock: datetime) -> str:
    """A date a time rule tests, as the agent must state it: the day, or the day and the time when
    the rule's edge falls on that day ("more than 2 hours away": 10:30 today is too soon, 11:30 is
    not), or when the day is today: "it is 2026-03-02" is then only the date the agent was told, which
    an answer refusing everything could state without reading the record.

    >>> g = Guard(kind="future", field="field:departs_at", hours=2)
    >>> now = datetime(2026, 3, 2, 9)
    >>> _moment("2026-03-02 10:30:00", g, now), _moment("2026-03-09 10:30:00", g, now)
    ('2026-03-02 10:30', '2026-03-09')
    >>> _moment("2026-03-02 13:45:00", Guard(kind="future", field="field:starts_at", hours=24), now)
    '2026-03-02 13:45'
    """
    day = value[:10]
    edges = (
        [clock - timedelta(hours=guard.hours), clock]
        if guard.kind == "within"
        else [clock + timedelta(hours=guard.hours), clock]
    )
    if len(value) > 10 and any(f"{edge:%Y-%m-%d}" == day for edge in edges):
        return value[:16]
    return day


def on_edge(value: Any, guard: Guard, clock: datetime) -> bool:
    """Whether a time rule's tested ``value`` falls on the rule's edge to the minute: a reservation
    exactly an hour off under "more than 1 hour away", which the tool's "at least an hour ahead"
    would allow. Its two phrasings disagree there, so no task's verdict may rest on it.

    >>> g = Guard(kind="future", field="field:reserved_for", hours=1)
    >>> now = datetime(2026, 3, 2, 9)
    >>> on_edge("2026-03-02 10:00:00", g, now), on_edge("2026-03-02 10:15:00", g, now)
    (True, False)
    """
    if guard.kind not in ("future", "past", "within") or not isinstance(value, str) or len(value) <= 10:
        return False
    try:
        moment = datetime.fromisoformat(value[:16])
    except ValueError:
        return False
    edges = (
        [clock - timedelta(hours=guard.hours), clock]
        if guard.kind == "within"
        else [clock + timedelta(hours=guard.hours)]
    )
    return any(abs(moment - edge) < timedelta(minutes=1) for edge in edges)


def reason_is_claim(refused: Goal, writes: list[Goal]) -> bool:
    """Whether ``refused`` is turned down because its record already is what the request would make it
    ("paid") while another write of the task shares its verb: "it has been paid" would then be true of
    that write and would state the reason, and no answer could be told from a false claim."""
    verb = refused.verb.split("_")[0]
    reason = (refused.blocked or "").lower()
    return reason in participles(refused.verb) and any(w.verb.split("_")[0] == verb for w in writes)


class RuleGoals(UserKnowledge):
    """Allowed and refused goals (mixed into the task generator)."""

    env: Environment  # the generator's twin: every rule checked by its tool
    served: Environment  # the environment agents get: policy-only rules are not checked
    spec: EnvSpec
    values: UserValues

    # -- rules -------------------------------------------------------------------------------------
    def _transition(self, m: ToolMeta) -> tuple[Entity, Transition]:
        e = self.domain.entity(m.entity)
        assert e.lifecycle is not None
        return e, next(t for t in e.lifecycle.transitions if t.name == m.transition)

    def extra_arguments(self, m: ToolMeta, row: dict[str, Any] | None = None) -> dict[str, Any]:
        """Values for a transition's own parameters, as a user would give them; one the transition sets
        a keyed attribute of ``row`` to is drawn from its key's pool (a dispute's reason that fits the
        charge: "I never made this call" of an international call)."""
        e, t = self._transition(m)
        tool = self.spec.tool(m.tool)
        assert tool is not None
        args: dict[str, Any] = {}
        pools = keyed_params(self.domain, e, t, row, lambda n, v: self.oracle.rows[n].get(v)) if row else {}
        for p in t.params:
            schema = tool.parameters["properties"][p.name]
            if row is not None and (near := self._corrected(e, t, p.name, row, schema)) is not None:
                args[p.name] = near
            elif (pool := pools.get(p.name)) is not None:
                args[p.name] = self.rng.choice(pool)
            elif "enum" in schema:
                args[p.name] = self.rng.choice(schema["enum"])
            elif schema.get("type") == "string" and "format" not in schema and "pattern" not in schema:
                args[p.name] = self.values.text(p.name, p.kind, schema, verb=t.name)  # realistic, or the user's words
            else:
                args[p.name] = sample_argument(schema, self.rng, self.spec.clock)
        return args

    def _corrected(
        self, e: Entity, t: Transition, param: str, row: dict[str, Any], schema: dict[str, Any]
    ) -> float | int | None:
        """A new amount for a field of ``row`` that ``t`` sets to ``param`` (a corrected declared value):
        near the one it holds, as a person corrects it (None: ``param`` sets no amount of the record)."""
        for eff in t.effects:
            if eff.kind == "set" and eff.value == f"param:{param}" and (eff.target or "").startswith("field:"):
                a = e.attribute((eff.target or "")[6:])
                if a is not None and holds_amount(row.get(a.name), a):  # unchanged on its bound: not clean
                    return nearby_amount(row.get(a.name), a, schema, self.rng) or row.get(a.name)
        return None

    def failing_rules(self, m: ToolMeta, row: dict[str, Any], args: dict[str, Any]) -> list[tuple[str, Guard | None]]:
        """The rules (``status`` or a guard) the oracle predicts block ``m`` on ``row``."""
        e, t = self._transition(m)
        assert e.lifecycle is not None
        failing: list[tuple[str, Guard | None]] = []
        if row.get(e.lifecycle.field) not in t.from_states:
            failing.append(("status", None))
        failing += [(g.kind, g) for g in t.guards if g.kind != "owner" and not self.oracle.holds(g, e, row, args)]
        return failing

    def on_a_time_edge(self, m: ToolMeta, row: dict[str, Any], args: dict[str, Any]) -> bool:
        """Whether a time rule of ``m`` tests a value of ``row`` that sits on the rule's edge, where
        the tool's words and the rule's ("at least an hour ahead", "more than 1 hour away") part."""
        e, t = self._transition(m)
        return any(
            on_edge(self.oracle.value(g.field, e, row, args), g, self.spec.clock)
            for g in t.guards
            if g.kind in ("future", "past", "within") and g.field is not None
        )

    def consistent(self, e: Entity, row: dict[str, Any], owner: Any) -> bool:
        """Whether every record ``row`` references belongs to ``owner`` too (or to nobody): acting on
        it must not reach into another user's records."""
        for ref in e.references:
            parent = self.oracle.rows[ref.entity].get(row.get(ref.column)) if row.get(ref.column) else None
            if parent is not None and self.oracle.owner_of(self.domain.entity(ref.entity), parent) not in (None, owner):
                return False
        return True

    def candidates(self, m: ToolMeta, user_id: str | None = None) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(row, extra arguments) pairs for which the oracle predicts that ``m`` succeeds."""
        e, t = self._transition(m)
        out = []
        for row in self.oracle.rows[e.name].values():
            owner = self.oracle.owner_of(e, row)
            if owner is None or (user_id is not None and owner != user_id) or not self.consistent(e, row, owner):
                continue
            args = self.extra_arguments(m, row)
            if self.failing_rules(m, row, args) or self.on_a_time_edge(m, row, args):
                continue
            if not moved_without_need(e, t, row, args, self.spec.clock):
                out.append((row, args))  # an extension ending in the past, or asked weeks early, meets no need
        return out

    def blocked(self, m: ToolMeta) -> list[tuple[dict[str, Any], dict[str, Any], str, Guard | None]]:
        """(row, arguments, rule, guard): the user's records on which exactly one rule refuses ``m``."""
        e, t = self._transition(m)
        assert e.lifecycle is not None
        status, done = e.lifecycle.field, self.done_statuses(e, t)
        out = []
        for row in self.oracle.rows[e.name].values():
            owner = self.oracle.owner_of(e, row)
            if owner is None or not self.consistent(e, row, owner):
                continue
            args = self.extra_arguments(m, row)
            failing = self.failing_rules(m, row, args)
            if failing == [("status", None)] and row.get(status) in done:
                # "issue my permit" of one already issued (or expired since): a user knows what
                # was done to their record and asks for nothing it already is (measure 85)
                continue
            if asked_early(t, row, args, self.spec.clock):
                continue  # "I need a bit more time" of an offer that expires in eight weeks, refused or not
            if len(failing) == 1 and not self.on_a_time_edge(m, row, args):
                out.append((row, args, *failing[0]))
        return out

    @staticmethod
    def done_statuses(e: Entity, t: Transition) -> set[str]:
        """The statuses that say ``t`` was done already: the one it sets, and those only it leads to."""
        assert e.lifecycle is not None
        life = e.lifecycle
        moves = [Move(e.name, life.field, frozenset(x.from_states), x.to) for x in life.transitions]
        this = Move(e.name, life.field, frozenset(t.from_states), t.to)
        return done_states(this, moves, {life.initial})

    def allowed_twins(
        self, m: ToolMeta, refused: dict[str, Any], rule: str, guard: Guard | None
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The user's other records on which ``m`` is allowed, when the rule that refuses ``refused``
        reads only that record (its status, a date or an amount of its own): whichever is done
        first, the other keeps its verdict. Asked for beside the refused one, they make a task that
        neither refusing everything nor acting on everything passes: only reading each record does."""
        if rule in ("count_max", "sum_max"):
            return []
        if guard is not None and not (
            str(guard.field or "").startswith("field:") and not str(guard.amount or "").startswith(("via:", "param:"))
        ):
            return []
        e, t = self._transition(m)
        reason = self.reason(e, refused, rule, guard, {})
        if reason is None or reason.lower() in participles(t.name):
            # "it's already cancelled" beside "I've cancelled the other one": the reason is the word
            # that would claim it, and "it has been cancelled" would be true of the twin
            return []
        owner = self.oracle.owner_of(e, refused)
        # the seed's verdicts do not change between tasks: each user's allowed records are found once
        cache: dict[tuple[str, Any], list[tuple[dict[str, Any], dict[str, Any]]]] = self.__dict__.setdefault(
            "_allowed_records", {}
        )
        mine = cache.get((m.tool, owner))
        if mine is None:
            mine = cache[(m.tool, owner)] = self.candidates(m, owner)
        return [(row, args) for row, args in mine if row[pk(e)] != refused[pk(e)]]

    def reason(
        self, e: Entity, row: dict[str, Any], rule: str, guard: Guard | None, args: dict[str, Any]
    ) -> str | None:
        """The fact an agent states when refusing: the status, the value short of the amount, the date."""
        assert e.lifecycle is not None
        if rule == "status":
            return str(row[e.lifecycle.field]).replace("_", " ")
        assert guard is not None
        # the user's own argument is no reason; the record's value it falls short of is, and for a
        # limit, the limit
        bound = rule in ("count_max", "sum_max", "max") or str(guard.field).startswith("param:")
        source = guard.amount if bound and rule != "differs" and guard.amount is not None else guard.field
        if str(source).startswith("param:"):
            return None
        value = self.oracle.value(source, e, row, args)
        if value is None or isinstance(value, bool):
            return None
        if rule in ("future", "past", "within"):
            return _moment(str(value), guard, self.spec.clock)
        if rule == "count_max" and value == 1:  # "one at a time" has no number an agent would state
            return None
        return str(value).replace("_", " ") if isinstance(value, str) else str(value)

    # -- refused requests ----------------------------------------------------------------------------
    def add_refusal(
        self,
        chain: Chain,
        m: ToolMeta,
        row: dict[str, Any],
        args: dict[str, Any],
        rule: str,
        guard: Guard | None,
        checks: Checklist,
    ) -> bool:
        e, t = self._transition(m)
        assert e.lifecycle is not None and chain.episode is not None
        if (e.name, row[pk(e)]) in chain.targets:
            return False
        reason = self.reason(e, row, rule, guard, args)
        if reason is None:
            self.rejections["no_stated_reason"] += 1
            return False
        if reason == f"{self.spec.clock:%Y-%m-%d}":
            # a day-only reason that is today: the date the agent was told, which an answer turning
            # every request down could state without reading the record (a time on today is asked)
            self.rejections["reason_is_today"] += 1
            return False
        about = guard.field[6:] if guard is not None and guard.field and guard.field.startswith("field:") else None
        phrase = self.locate(chain, e, row, details=True, avoid=about)  # the user does not give the reason away
        if phrase is None:
            return False
        if Reading(verb_phrase(t.name, phrase)).states(reason):
            # the user's own words hold the reason ("report my loan as lost": it is lost; "for the sold
            # listing"): an answer echoing the request would state it without reading a record
            self.rejections["reason_in_request"] += 1
            return False
        if guard is not None and guard.field and guard.field.startswith("via:"):  # the rule is about a parent
            ref = e.reference(guard.field[4:].partition(".")[0])
            reader = self._tool("details", ref.entity) if ref else None
            if ref is None or reader is None or row.get(ref.column) is None:
                self.rejections["reason_not_readable"] += 1
                return False
            chain.call(reader.tool, **{pk(self.domain.entity(ref.entity)): row[ref.column]})
        call = {pk(e): row[pk(e)], **args}
        owner = self.domain.owner_checked(e, t)
        if owner is not None:
            call[owner.column] = row[owner.column]
        # the generator's twin enforces every rule: the call must fail there, as the rule says
        if not isinstance(chain.on_copy(self.env, m.tool, call), StateError):
            self.rejections["refusal_not_enforced"] += 1
            return False
        index = next((i for i, g in enumerate(rule_guards(t)) if g is guard), None)
        broken = rule_id(m.tool, index) if index is not None else None
        stated = self.spec.rule(broken) if broken is not None else None
        if (
            stated is not None
            and is_time_rule(stated.text)
            and decide(stated.text, self.spec.clock, reason) is not False
        ):
            self.rejections["undecidable"] += 1  # the rule's words, today's date and the value must decide it
            return False
        if guard is not None and policy_only(guard) and not self.acting_changes(chain, m.tool, call):
            self.rejections["policy_refusal_not_actionable"] += 1  # the served tool must let it through
            return False
        tool = self.spec.tool(m.tool)
        refused = confirmed(tool.parameters, call) if tool is not None else call
        chain.goals.append(
            Goal(m.tool, e.name, row[pk(e)], t.name, phrase, args, blocked=reason, rule=broken, refused_call=refused)
        )
        self.request(chain, e, t.name, phrase, args, refused=True, row=row)
        checks.keep(
            e,
            row,
            e.lifecycle.field,
            f"{e.human} {row[pk(e)]} is still {str(row[e.lifecycle.field]).replace('_', ' ')}",
        )
        if guard is not None and guard.field and guard.field.startswith("field:"):
            col = guard.field[6:]
            checks.keep(e, row, col, f"the {col.replace('_', ' ')} of {e.human} {row[pk(e)]} is unchanged")
        return True

    def acting_changes(self, chain: Chain, tool: str, call: dict[str, Any]) -> bool:
        """Whether ``call``, on the live state of the served environment (where policy-only rules are
        not checked), succeeds and changes the state: an agent that acts then fails on state."""
        assert chain.episode is not None
        trial = self.served.restore(chain.episode.serialize())
        spec = self.served.spec.tool(tool)
        try:
            before = trial.state_hash()
            trial.call_tool(tool, confirmed(spec.parameters, call) if spec is not None else call)
            return trial.state_hash() != before
        except ToolError:
            return False
        finally:
            trial.close()

    # -- phrasing of goals ---------------------------------------------------------------------------
    def holds_several(self, chain: Chain, e: Entity, at_least: int = 2) -> bool:
        """Whether the user holds ``at_least`` records of ``e`` as they are now in the chain's episode."""
        rows = chain.episode.dump(e.table) if chain.episode is not None else list(self.oracle.rows[e.name].values())
        return sum(bool(self.oracle.owner_of(e, r) == chain.user_id) for r in rows) >= at_least

    def motive(
        self,
        chain: Chain,
        verb: str,
        phrase: str,
        extra: dict[str, Any] | None = None,
        *,
        refused: bool = False,
        row: dict[str, Any] | None = None,
        motive_verb: str | None = None,
    ) -> str | None:
        """Why the user asks for ``verb`` on the record ``phrase`` names (:mod:`.motives`), also among
        their facts so they can say it again; none for a record the task just made ("the new …"), nor
        where a reason the user dictates (``extra``: the request's details) says it already. ``row``:
        the record as it stands, so a reason about its dates or amounts is given only where they make
        it true (a lapse near its end day, a trip that ran longer once it began)."""
        given = next((v for k, v in (extra or {}).items() if _REASON_FIELD.search(k) and isinstance(v, str)), None)
        if phrase.startswith("the new "):
            return None
        said = frozenset(f.split(": ", 1)[-1] for f in chain.facts if f.startswith("Why I"))
        key = f"{chain.user_id}|{phrase}"
        paid = next((v for k, v in (extra or {}).items() if _PAID_FIELD.search(k) and _number(v)), None)
        facts = RecordFacts.of_row(phrase, row, self.spec.clock.date(), paid) if row is not None else None
        motive = given or transition_motive(motive_verb or verb, key, refused=refused, said=said, record=facts)
        if motive is not None:
            chain.facts.append(f"Why I'm asking to {verb_phrase(verb, 'it')}: {motive}")
        return None if given else motive

    def _pays_the_user(self, e: Entity, verb: str) -> bool:
        """Whether transition ``verb`` of ``e`` adds money to the user's own row: a buyback "paid" is
        the bank paying them, so no "I have the money set aside"."""
        t = next((x for x in (e.lifecycle.transitions if e.lifecycle else []) if x.name == verb), None)
        mine = f"via:{self.user.name}."
        return t is not None and any(f.kind == "add" and (f.target or "").startswith(mine) for f in t.effects)

    def request(
        self,
        chain: Chain,
        e: Entity,
        verb: str,
        phrase: str,
        extra: dict[str, Any],
        *,
        refused: bool = False,
        row: dict[str, Any] | None = None,
        choices: Callable[[], int] | None = None,
    ) -> None:
        """The user's request, with why (``refused``: the agent must refuse it, so the reason claims
        nothing of the record; ``row``: the record, so the reason fits it); half the time the record
        is named only when the agent asks which one, where more than one record could be meant
        (``choices``: how many of the user's records the gold call could act on, :mod:`.actionable`;
        without it, how many of the kind the user holds) and the request is not one to refuse."""
        shown = {k: (v.replace("_", " ") if isinstance(v, str) else v) for k, v in extra.items()}
        first = len(chain.requests) == 0
        named_before = phrase.startswith(("the new ", "the same "))
        paid_out = verb == "pay" and self._pays_the_user(e, verb)
        motive = self.motive(
            chain, verb, phrase, extra, refused=refused, row=row, motive_verb=PAYOUT_VERB if paid_out else None
        )
        vague = phrase != "my account" and not named_before and self.rng.random() < 0.5
        many = plural(e.human)
        # a second such request in the same task is for another one ("then cancel another one of …"); of
        # a user with two, "one … then another one" means both: the second is named instead
        again = any(f"one of my {many}" in r for r in chain.requests)
        # a request the agent must refuse names its record: "one of my claims" would let the agent pick
        # another claim it could act on, and no record of the request could be acted on anyway
        several = (
            vague
            and not refused
            and self.holds_several(chain, e, 3 if again else 2)
            and (choices is None or choices() >= 2)
        )
        if several:  # "one of my bikes" needs several bikes the request could be about
            which_one = f"{'another one' if again else 'one'} of my {many}"
            chain.requests.append(self.say.request(verb, which_one, shown, first=first, motive=motive))
            which = "the other one" if again else "it"  # two such requests: the user tells them apart
            chain.hidden.append(f"When you ask to {verb_phrase(verb, which)}, you mean {phrase}.")
        else:
            chain.requests.append(self.say.request(verb, phrase, shown, first=first, motive=motive))
            if phrase != "my account" and not named_before:
                chain.facts.append(self.say.record_fact(phrase))
