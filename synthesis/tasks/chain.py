"""A task under construction: gold calls executed as they are added, goals, and what the user knows.

Every gold call runs on a live episode the moment it joins the chain, so a later goal can depend on
what an earlier one did (the id a create returned, the state a transition left) and a chain that a
tool refuses is dropped at once instead of after assembly. Each write's changes go into the quality
report's write history, so a chain never undoes, sets a field twice, writes filler, sets a field to
the value it holds, records one thing again (a second return of one purchase), amends a record it
filed or leaves a date no person would believe: a goal is tried on a copy first (:meth:`Chain.trial`),
and a write that does slips through breaks the chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envs import Environment, Episode
from envs.errors import ToolError
from envs.quality.chains import Row, RowKey, WriteHistory, WriteVerdict
from envs.quality.one_off import OneOffRules
from envs.quality.unchanged import Lookup, UnchangedFields

from ..tools.confirm import confirmed


class ChainBroken(Exception):
    """A gold call of the chain was refused: the chain cannot become a task."""


@dataclass
class Goal:
    """One thing the user asks for, on one record.

    ``blocked`` is set for a request a rule refuses: it holds the fact the agent must state as the
    reason (the record's status, the balance that falls short, the date that is too close).
    """

    tool: str
    entity: str
    key: str
    verb: str
    phrase: str
    extra: dict[str, Any] = field(default_factory=dict)
    blocked: str | None = None
    depends_on_previous: bool = False
    rule: str | None = None  # the spec rule a refused request breaks (None: the record's status, or a fee)
    refused_call: dict[str, Any] | None = None  # what acting on a refused request would be
    declined: bool = False  # refused by the user (a fee), not by a rule


@dataclass
class Chain:
    """Gold calls (already executed), the user's facts, the goals and the values to report."""

    user_id: str
    episode: Episode | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)  # stated freely; facts[0] identifies the user
    hidden: list[str] = field(default_factory=list)  # revealed only when the agent asks
    requests: list[str] = field(default_factory=list)
    goals: list[Goal] = field(default_factory=list)
    outputs: list[tuple[str, str, str]] = field(default_factory=list)  # (table, id, column) to report
    identity_hidden: bool = False
    behaviour: list[str] = field(default_factory=list)  # how the user acts (tells a user simulator)
    decoys: dict[str, tuple[str, str]] = field(default_factory=dict)  # behaviour -> the record first asked for
    history: WriteHistory | None = None  # what the chain's writes did, write after write
    unchanged: UnchangedFields | None = None  # which fields a write's arguments set
    one_off: OneOffRules | None = None  # what is recorded once (a return of a purchase)

    @classmethod
    def start(cls, env: Environment, user_id: str) -> Chain:
        history, unchanged = WriteHistory(env.spec), UnchangedFields(env.spec)
        episode, one_off = env.episode(), OneOffRules(env.spec)
        return cls(user_id=user_id, episode=episode, history=history, unchanged=unchanged, one_off=one_off)

    def _verdict(
        self, history: WriteHistory, tool: str, arguments: dict[str, Any], before: Episode, after: Episode
    ) -> WriteVerdict:
        """What the write history says of a write from ``before`` to ``after``, and the fields its
        arguments set to the value they held."""
        changed = changes(before, after)
        verdict = history.record(arguments, changed)
        if self.unchanged is not None:
            verdict.unchanged = self.unchanged.find(tool, arguments, _lookup(before), _lookup(after))
        if self.one_off is not None and (read := self.one_off.read_tables({t for t, _ in changed})):
            # a second return of one purchase, a second live subscription: choose a record with room
            verdict.many_times = self.one_off.new_excess(
                {t: before.dump(t) for t in read}, {t: after.dump(t) for t in read}
            )
        return verdict

    def call(self, tool: str, **arguments: Any) -> Any:
        """Run one gold call on the live episode and keep it; ChainBroken when the tool refuses it, or
        when a write undoes an earlier one, sets a field twice or writes filler."""
        if self.episode is not None:
            spec = self.episode.env.spec.tool(tool)
            arguments = confirmed(spec.parameters, arguments) if spec is not None else arguments
            before = self.episode.serialize() if spec is not None and spec.kind == "write" else None
            try:
                result = self.episode.call_tool(tool, arguments).content
            except ToolError as exc:
                raise ChainBroken(f"{tool}: {exc}") from None
            if before is not None and self.history is not None:
                earlier = self.episode.env.restore(before)
                try:
                    verdict = self._verdict(self.history, tool, arguments, earlier, self.episode)
                finally:
                    earlier.close()
                if not verdict.clean:
                    raise ChainBroken(f"{tool}: {verdict.problems[0]}")
            self.results.append(result)
        self.calls.append({"tool": tool, "arguments": arguments})
        return self.results[-1] if self.episode is not None else None

    def trial(self, env: Environment, tool: str, arguments: dict[str, Any]) -> ToolError | WriteVerdict:
        """What ``tool`` would do with ``arguments`` on a copy of the live episode: the tool's error,
        or what the write history says of it (clean when it neither undoes an earlier write, nor
        sets a field twice, nor writes filler, nor sets a field to the value it holds). The chain
        itself is untouched."""
        assert self.episode is not None
        trial = env.restore(self.episode.serialize())
        spec = env.spec.tool(tool)
        args = confirmed(spec.parameters, arguments) if spec is not None else arguments
        try:
            trial.call_tool(tool, args)
            history = self.history.copy() if self.history is not None else WriteHistory(env.spec)
            return self._verdict(history, tool, args, self.episode, trial)
        except ToolError as exc:
            return exc
        finally:
            trial.close()

    def checkpoint(self) -> tuple[int, ...]:
        """Where the chain stands, to undo the reads of a goal that turned out impossible."""
        return (
            len(self.calls),
            len(self.results),
            len(self.facts),
            len(self.hidden),
            len(self.requests),
            len(self.outputs),
        )

    def rollback(self, mark: tuple[int, ...]) -> None:
        calls, results, facts, hidden, requests, outputs = mark
        del self.calls[calls:], self.results[results:], self.facts[facts:], self.hidden[hidden:]
        del self.requests[requests:], self.outputs[outputs:]

    def on_copy(self, env: Environment, tool: str, arguments: dict[str, Any]) -> ToolError | None:
        """What ``tool`` says to ``arguments`` on a copy of the live episode: its error, or None when it
        would succeed. The chain itself is untouched."""
        assert self.episode is not None
        trial = env.restore(self.episode.serialize())
        spec = env.spec.tool(tool)
        try:
            trial.call_tool(tool, confirmed(spec.parameters, arguments) if spec is not None else arguments)
            return None
        except ToolError as exc:
            return exc
        finally:
            trial.close()

    @property
    def targets(self) -> list[tuple[str, str]]:
        return [(g.entity, g.key) for g in self.goals]

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


def _lookup(episode: Episode) -> Lookup:
    return lambda table, key: episode.rows_by_key(table, [key])[key]


def changes(before: Episode, after: Episode) -> dict[RowKey, tuple[Row | None, Row | None]]:
    """Rows that differ between two states of one episode (``after`` later), as (before, after)."""
    out: dict[RowKey, tuple[Row | None, Row | None]] = {}
    for table, keys in after.changed_keys().items():
        old, new = before.rows_by_key(table, keys), after.rows_by_key(table, keys)
        out.update({(table, k): (old[k], new[k]) for k in keys if old[k] != new[k]})
    return out
