"""Quality measures of tasks, found by replaying their gold actions on the engine.

For each task the gold actions run on a fresh episode; around every write call the state of the
tables it touched is read before and after, which gives the rows it inserted, updated and deleted.
From that: whether a write builds on an earlier one (dependent chains), whose rows the task changes
(cross-user writes), whether the record each write acts on can be singled out from what the user
says (ambiguous goals), and what each write does to what earlier writes did (:mod:`.chains`: undone
writes, fields set twice, filler values, edits of a filed record, implausible dates it sets) and
whether it sets a field to the value it holds (:mod:`.unchanged`). The user's words are also
searched for internal keys and generated titles (:mod:`.naming`). Definitions: docs/synthesis.md ("Quality report").
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from ..engine import Environment, Episode
from ..errors import EnvFarmError
from ..formats.task import Task
from .chains import WriteHistory
from .everyday_ranks import EARLIEST, next_rank, unmistakable_rank
from .moved_values import MovedValues, read_write
from .naming import Names
from .spec import Ownership, State
from .text import (
    Feature,
    column_words,
    fact_in_instruction,
    mentions,
    normalize,
    numbers_in,
    superlative,
    value_features,
)
from .unchanged import UnchangedFields

RowKey = tuple[str, tuple[Any, ...]]  # (table, primary key)


@dataclass
class TaskFindings:
    """What replaying one task's gold actions showed."""

    write_tools: set[str] = field(default_factory=set)
    is_write_task: bool = False
    dependent: bool = False
    cross_user: bool = False
    goals: int = 0
    ambiguous_goals: int = 0
    reveal_facts: int = 0
    reveal_facts_in_instruction: int = 0
    self_undoing: bool = False
    sets_field_twice: bool = False
    filler_values: int = 0
    unchanged_field_writes: int = 0  # write calls setting a field from their arguments to the value it held
    writes_changing_nothing: int = 0  # of those, the calls that changed no row at all
    amends_filed: list[str] = field(default_factory=list)  # edits of a record an earlier write filed (:mod:`.chains`)
    made_pointless: list[str] = field(default_factory=list)  # writes a later or earlier one makes pointless
    written_dates_checked: int = 0  # dates to come the writes set (:mod:`.written_dates`)
    implausible_dates: list[str] = field(default_factory=list)  # of those, the ones no person would believe
    moved: MovedValues = field(default_factory=MovedValues)  # amounts and dates writes moved (:mod:`.moved_values`)
    internal_keys: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    replay_error: str | None = None


def _scalars(value: Any) -> Iterator[Any]:
    """Every string and integer inside an argument value (lists and objects included)."""
    if isinstance(value, bool):
        return
    if isinstance(value, str | int):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _scalars(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)


def _dump(episode: Episode, tables: Any) -> dict[str, list[dict[str, Any]]]:
    return {t: episode.dump(t) for t in tables}


@dataclass
class _Change:
    inserted: set[RowKey]
    updated: set[RowKey]
    deleted: set[RowKey]


def state_after_write(
    ownership: Ownership, state: State, episode: Episode, tables: AbstractSet[str]
) -> tuple[State, dict[str, set[tuple[Any, ...]]]]:
    """The state after a write call, and by table the keys of the rows that may differ from ``state``.

    Only the rows the episode changed since it started (its change log, by primary key) are read again,
    not whole tables: a tau2 domain holds thousands of rows per table and a task makes a few changes.
    A table whose keys cannot be ordered in Python is read whole, as before.
    """
    changed = episode.changed_keys()
    keys = {t: changed.get(t, set()) for t in tables}
    try:
        return state.patched({t: episode.rows_by_key(t, k) for t, k in keys.items()}), keys
    except TypeError:
        rows = _dump(episode, tables)
        return ownership.state({**state.rows, **rows}), {t: {state.key(t, r) for r in rows[t]} | keys[t] for t in rows}


def _diff(before: State, after: State, keys: Mapping[str, AbstractSet[tuple[Any, ...]]]) -> _Change:
    """What changed between ``before`` and ``after`` among the rows of ``keys`` (all others are equal)."""
    change = _Change(set(), set(), set())
    for table, table_keys in keys.items():
        pk = before.tables[table].primary_key
        for key in table_keys:
            old, new = before.lookup(table, pk, key), after.lookup(table, pk, key)
            if old is None and new is not None:
                change.inserted.add((table, key))
            elif old is not None and new is None:
                change.deleted.add((table, key))
            elif old is not None and old != new:
                change.updated.add((table, key))
    return change


def _row(state: State, key: RowKey) -> dict[str, Any] | None:
    table, pk = key
    return state.lookup(table, state.tables[table].primary_key, pk)


def _lookup(state: State) -> Callable[[str, tuple[Any, ...]], dict[str, Any] | None]:
    return lambda table, key: _row(state, (table, key))


def find_target(state: State, tool_parameters: Mapping[str, Any], arguments: Mapping[str, Any]) -> RowKey | None:
    """The record a write call acts on: its first argument (in the tool's parameter order) whose value
    is the primary key of a row, preferring a row outside the user table (the user is singled out by
    logging in; ``modify_user_address(user_id, address_id)`` acts on the address). A table whose key
    column has the argument's name wins over others holding the same value."""
    order = [*tool_parameters.get("properties", {}), *arguments]
    candidates: list[RowKey] = []
    for name in dict.fromkeys(order):
        value = arguments.get(name)
        if isinstance(value, bool) or not isinstance(value, str | int):
            continue
        tables = state.tables_with_id(value)
        tables = sorted(tables, key=lambda t: state.tables[t].primary_key[0] != name)
        if tables:
            candidates.append((tables[0], (value,)))
    for key in candidates:
        if key[0] != state.users:
            return key
    return candidates[0] if candidates else None


def record_features(state: State, table: str, row: Mapping[str, Any]) -> frozenset[Feature]:
    """How a user can describe a row: its own column values and those of the rows it references
    (one foreign-key hop). Computed once per row of a state."""
    memo = ("features", table, id(row))
    found: frozenset[Feature] | None = state.memo.get(memo)
    if found is None:
        found = state.memo[memo] = frozenset(_record_features(state, table, row))
    return found


def feature_keys(state: State, table: str, row: Mapping[str, Any]) -> frozenset[Any]:
    """The keys of ``record_features`` (which columns, by which path), computed once per row of a state."""
    memo = ("keys", table, id(row))
    found: frozenset[Any] | None = state.memo.get(memo)
    if found is None:
        found = state.memo[memo] = frozenset(f.key for f in record_features(state, table, row))
    return found


def _record_features(state: State, table: str, row: Mapping[str, Any]) -> set[Feature]:
    spec = state.tables[table]
    out = {f for c in spec.columns for f in value_features((c.name,), c.type, row.get(c.name))}
    for fk in spec.foreign_keys:
        parent = state.parent(fk, row)
        if parent is not None:
            parent_spec = state.tables[fk.table]
            for c in parent_spec.columns:
                out.update(value_features((*fk.columns, c.name), c.type, parent.get(c.name)))
    return out


def is_ambiguous(
    state: State, target: RowKey, evidence: str, also_meant: AbstractSet[RowKey] = frozenset()
) -> bool | None:
    """Whether the user's words (normalized ``evidence``) fail to single out ``target`` among its
    siblings (rows of its table with the same owner, except ``also_meant``: the task's other targets,
    so "cancel both April orders" singles out each). None: not assessable (nobody's row)."""
    table, key = target
    row = _row(state, target)
    if row is None or table == state.users:
        return None if row is None else False
    owner = state.owner(table, row)
    if owner is None:
        return None
    siblings = [
        r
        for r in state.rows.get(table, [])
        if r is not row and state.owner(table, r) == owner and (table, state.key(table, r)) not in also_meant
    ]
    if not siblings or any(mentions(evidence, normalize(str(v))) for v in key):
        return False
    numbers = numbers_in(evidence)
    said = {f.key for f in record_features(state, table, row) if f.said_in(evidence, numbers)}
    # A sibling fits the description when it shares every value the user gave for the target.
    fitting = [s for s in siblings if said <= feature_keys(state, table, s)]
    return bool(fitting) and not picked_by_superlative(state, table, row, fitting, evidence)


_SMALLEST = ("lowest", "smallest", "earliest", "cheapest", "least", "fewest", "soonest", "oldest", "first")
_LARGEST = ("highest", "largest", "latest", "biggest", "most expensive", "most", "newest", "most recent", "last")


def picked_by_superlative(
    state: State, table: str, row: Mapping[str, Any], fitting: list[dict[str, Any]], evidence: str
) -> bool:
    """Whether the user's words name ``row`` among the ``fitting`` rows by a superlative of one of its
    columns ("my open fine with the highest amount"), of which it holds the one extreme value."""
    ordered = [(c.name, c.type in ("date", "datetime")) for c in state.tables[table].columns if c.type in _ORDERED]
    for c in state.tables[table].columns:
        value = row.get(c.name)
        if c.type not in _ORDERED or value is None:
            continue
        others = [s.get(c.name) for s in fitting]
        if any(v is None for v in others):
            continue
        dated = c.type in ("date", "datetime")
        named = mentions(evidence, column_words(c.name))
        lowest = (
            mentions(evidence, superlative(c.name, dated, False))
            or (named and any(mentions(evidence, f"{w} {column_words(c.name)}") for w in _SMALLEST))
            or _ranked(evidence, c.name, dated, False, ordered)
        )
        highest = (
            mentions(evidence, superlative(c.name, dated, True))
            or (named and any(mentions(evidence, f"{w} {column_words(c.name)}") for w in _LARGEST))
            or _ranked(evidence, c.name, dated, True, ordered)
        )
        if lowest and all(value < v for v in others):
            return True
        if highest and all(value > v for v in others):
            return True
    return False


_ORDERED = ("integer", "real", "date", "datetime")


def _ranked(evidence: str, column: str, dated: bool, largest: bool, ordered: list[tuple[str, bool]]) -> bool:
    """Whether ``evidence`` ranks by ``column`` in everyday words ("the cheapest plan"), which the
    record's other columns cannot share; "with the earliest …" ranks by the column it names instead."""
    rank = unmistakable_rank(column, dated, largest, ordered)
    if rank is None:
        return False
    # "my next lesson" is the earliest lesson, said of records all still ahead (``next_rank``)
    soonest = rank.marker == EARLIEST and mentions(evidence, f"my {next_rank().marker}")
    return soonest or (mentions(evidence, rank.marker) and not mentions(evidence, f"with the {rank.marker}"))


class TaskReplay:
    """Replays tasks of one environment; the seed state is read once and shared."""

    def __init__(self, env: Environment, ownership: Ownership) -> None:
        self.env = env
        self.ownership = ownership
        self.table_names = [t.name for t in env.spec.tables]
        self._seed_rows: dict[str, list[dict[str, Any]]] | None = None
        self._seed_state: State | None = None
        self._names: Names | None = None
        self.unchanged = UnchangedFields(env.spec)

    def seed_rows(self) -> dict[str, list[dict[str, Any]]]:
        """Every table's rows in the seed state."""
        if self._seed_rows is None:
            episode = self.env.episode()
            try:
                self._seed_rows = _dump(episode, self.table_names)
            finally:
                episode.close()
        return self._seed_rows

    def seed_state(self) -> State:
        """The seed state, shared by every task without an initial patch (a state is never changed; a write
        makes a new one), so its indexes are built once."""
        if self._seed_state is None:
            self._seed_state = self.ownership.state(self.seed_rows())
        return self._seed_state

    def names(self) -> Names:
        """The seed's internal keys and generated titles."""
        if self._names is None:
            self._names = Names.of(self.env.spec, self.ownership, self.seed_rows())
        return self._names

    def run(self, task: Task) -> TaskFindings:
        """Replay ``task``'s gold actions and measure them."""
        found = TaskFindings()
        found.reveal_facts = len(task.user.reveal_if_asked)
        found.reveal_facts_in_instruction = sum(
            fact_in_instruction(f, task.instruction) for f in task.user.reveal_if_asked
        )
        said = "\n".join([task.instruction, *task.user.known_facts, *task.user.reveal_if_asked])
        evidence = normalize(said)
        found.internal_keys = self.names().keys_in(evidence)
        found.titles = self.names().titles_in(unicodedata.normalize("NFKC", said))
        try:
            episode = self.env.episode(task)
        except EnvFarmError as exc:
            found.replay_error = str(exc)
            return found
        try:
            self._replay(task, episode, found, evidence)
        except EnvFarmError as exc:
            found.replay_error = f"{type(exc).__name__}: {exc}"
        finally:
            episode.close()
        return found

    def _replay(self, task: Task, episode: Episode, found: TaskFindings, evidence: str) -> None:
        state = self.seed_state() if not task.initial_patch else self.ownership.state(_dump(episode, self.table_names))
        touched: set[RowKey] = set()  # rows inserted or changed by earlier writes
        created: set[RowKey] = set()  # rows inserted by earlier writes
        assessed: set[RowKey] = set()
        owners: set[Any] = set()
        history = WriteHistory(self.env.spec)
        tables, clock = {t.name: t for t in self.env.spec.tables}, self.env.spec.clock
        task_user: Any = None
        all_targets = {
            target
            for call in task.gold_actions
            if (tool := self.env.tools.get(call.tool)) is not None and tool.kind == "write"
            if (target := find_target(state, tool.parameters, call.arguments)) is not None
        }
        for call in task.gold_actions:
            tool = self.env.tools.get(call.tool)
            if tool is None or tool.kind != "write":
                episode.call_tool(call.tool, call.arguments, actor=call.actor)
                continue
            target = find_target(state, tool.parameters, call.arguments)
            target_row = _row(state, target) if target is not None else None
            if not found.is_write_task and target is not None and target_row is not None:
                task_user = state.owner(target[0], target_row)
            found.is_write_task = True
            found.write_tools.add(call.tool)
            if target is not None and target not in created and target not in assessed:
                assessed.add(target)
                verdict = is_ambiguous(state, target, evidence, all_targets - {target})
                if verdict is not None:
                    found.goals += 1
                    found.ambiguous_goals += verdict
            named = set(_scalars(call.arguments))
            if any(len(pk) == 1 and pk[0] in named for _, pk in touched):
                found.dependent = True
            result = episode.call_tool(call.tool, call.arguments, actor=call.actor)
            changed_tables = {t for t, n in result.changes.items() if n} | set(episode.changed_keys())
            after, keys = state_after_write(self.ownership, state, episode, changed_tables)
            change = _diff(state, after, keys)
            if (change.updated | change.deleted) & touched:
                found.dependent = True
            changed = change.inserted | change.updated | change.deleted
            did = history.record(call.arguments, {k: (_row(state, k), _row(after, k)) for k in changed})
            found.self_undoing |= bool(did.undoes)
            found.sets_field_twice |= bool(did.sets_twice)
            found.filler_values += len(did.filler)
            found.amends_filed += did.amends_final
            found.made_pointless += did.made_pointless
            found.implausible_dates += did.implausible_dates
            found.written_dates_checked += sum(
                history.dates.checked(k[0], _row(state, k), _row(after, k)) for k in changed
            )
            for key in change.updated:
                read_write(found.moved, tables[key[0]], _row(state, key), _row(after, key), call.arguments, clock)
            unchanged = self.unchanged.find(call.tool, call.arguments, _lookup(state), _lookup(after))
            found.unchanged_field_writes += bool(unchanged)
            found.writes_changing_nothing += bool(unchanged) and not changed
            # An updated row counts for its owner before and after (a change of owner is a transfer).
            for key in changed:
                for side in (state, after):
                    row = _row(side, key)
                    if row is not None:
                        owners.add(side.owner(key[0], row))
            touched |= change.inserted | change.updated
            created |= change.inserted
            state = after
        owners.discard(None)
        if task_user is None and found.is_write_task:
            task_user = self._user_in_arguments(state, task)
        found.cross_user = len(owners) > 1 or (task_user is not None and bool(owners - {task_user}))

    def _user_in_arguments(self, state: State, task: Task) -> Any:
        """The first user-table key among the gold calls' arguments (None without a user table)."""
        users = self.ownership.users
        for call in task.gold_actions:
            for value in _scalars(call.arguments):
                if users is not None and users in state.tables_with_id(value):
                    return (value,)
        return None
