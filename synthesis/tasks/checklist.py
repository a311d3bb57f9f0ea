"""Checklists written from a task's goals, not copied from what the gold run changed (EnvScaler-style).

For each goal the domain says what must hold afterwards: the record's new status, each effect's new
value (computed in Python from the domain's effect, from the values before the call), the records
an effect inserts, the new record of a create, the new value of an update. It also says what must
*not* change: a refused record keeps its status and the value its rule is about; the user's other
records of the same kind keep their status; the user's money the goals do not touch stays as it
was. The gold run is then scored against this checklist by ``check_env``, so a generated tool that
disagrees with its domain, or a gold chain that breaks a rule, is caught instead of locked in.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from envs.quality.written_dates import names_date_to_come

from ..domains.domain import Domain, Effect, Entity, Transition
from ..domains.sqlgen import literal, pk


def _human(value: Any) -> str:
    return str(value).replace("_", " ") if isinstance(value, str) else str(value)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _one_row(table: str, key_col: str, key: Any, predicate: str) -> str:
    return f"SELECT count(*) = 1 FROM {table} WHERE {key_col} = {literal(key)} AND {predicate}"


def condition(column: str, value: Any) -> str:
    """A SQL predicate that ``column`` holds ``value`` (money compared to the cent)."""
    if value is None:
        return f"{column} IS NULL"
    if isinstance(value, float):
        return f"abs({column} - {literal(value)}) < 0.005"
    if isinstance(value, bool):
        return f"{column} = {int(value)}"
    return f"{column} = {literal(value)}"


class Checklist:
    """Assertions of one task, collected goal by goal."""

    def __init__(self, domain: Domain, clock: datetime, holds: Callable[..., bool] | None = None) -> None:
        self.domain = domain
        self.clock = clock
        self.holds = holds  # the oracle's guard evaluation, for effects that apply only if a condition holds
        self.expected: dict[tuple[str, str, str], Any] = {}  # (table, id, column) -> value after the task
        self.described: dict[tuple[str, str, str], str] = {}
        self.unchanged: dict[tuple[str, str, str], tuple[Any, str]] = {}
        self.inserted: list[tuple[str, dict[str, Any], str]] = []
        self.new_rows: dict[tuple[str, str], dict[str, Any]] = {}  # (table, id) of a create -> its values

    # -- what must hold ------------------------------------------------------------------------------
    def _source(
        self, source: Any, e: Entity, row: dict[str, Any], args: dict[str, Any], parents: dict[str, Any]
    ) -> Any:
        if isinstance(source, str):
            if source.startswith("field:"):
                return row.get(source[6:])
            if source.startswith("param:"):
                return args.get(source[6:])
            if source.startswith("via:"):
                ref_name, _, col = source[4:].partition(".")
                parent = parents.get(ref_name)
                ref = e.reference(ref_name)
                if not col:
                    return row.get(ref.column) if ref else None
                return parent.get(col) if parent else None
            if source == "now":
                return self.clock.strftime("%Y-%m-%d %H:%M:%S")
            if source == "today":
                return self.clock.strftime("%Y-%m-%d")
            if source == "self":
                return row.get(pk(e))
        return source

    def _target(
        self, eff: Effect, e: Entity, row: dict[str, Any], parents: dict[str, Any]
    ) -> tuple[Entity, dict[str, Any], str] | None:
        assert eff.target is not None
        if eff.target.startswith("field:"):
            return e, row, eff.target[6:]
        ref_name, _, col = eff.target[4:].partition(".")
        ref = e.reference(ref_name)
        parent = parents.get(ref_name)
        if ref is None or parent is None:
            return None
        return self.domain.entity(ref.entity), parent, col

    def _current(self, entity: Entity, row: dict[str, Any], col: str) -> Any:
        # a record the task created holds what its earlier effects left there ("set today", then "+21 days")
        made = self.new_rows.get((entity.table, row[pk(entity)]))
        if made is not None and col in made:
            return made[col]
        return self.expected.get((entity.table, row[pk(entity)], col), row.get(col))

    def transition(
        self,
        e: Entity,
        t: Transition,
        row: dict[str, Any],
        args: dict[str, Any],
        parents: dict[str, Any],
        children: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        """What a transition on ``row`` (values before the call; ``parents`` by reference name) leaves."""
        assert e.lifecycle is not None
        key = row[pk(e)]
        self.effects(e, t.effects, row, args, parents, children=children)
        self._expect(e.table, key, e.lifecycle.field, t.to, f"{e.human} {key} is {_human(t.to)}")

    def effects(
        self,
        e: Entity,
        effects: list[Effect],
        row: dict[str, Any],
        args: dict[str, Any],
        parents: dict[str, Any],
        *,
        own_fields: bool = True,
        children: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        """The values effects leave; ``own_fields`` False skips the acted-on record's own columns (a
        new record's defaults are not the user's to know)."""
        for eff in effects:
            if eff.when is not None and (self.holds is None or not self.holds(eff.when, e, row, args)):
                continue  # a condition not met (or not known): the effect does not apply
            if eff.kind == "cascade":
                self._cascade(eff, children.get(eff.entity or "", []) if children else [])
                continue
            if eff.kind == "insert":
                self._insert(eff, e, row, args, parents)
                continue
            target = self._target(eff, e, row, parents)
            if target is None or (not own_fields and target[0] is e):
                continue
            te, trow, col = target
            now = self._current(te, trow, col)
            if eff.kind == "set":
                new = self._source(eff.value, e, row, args, parents)
            elif eff.kind in ("add", "subtract"):
                amount = self._source(eff.amount, e, row, args, parents)
                if not isinstance(now, (int, float)) or not isinstance(amount, (int, float)):
                    continue
                new = now + amount if eff.kind == "add" else now - amount
                new = round(new, 2) if isinstance(new, float) else new
            else:
                new = self._add_days(self._counted_from(col, now), self._source(eff.amount, e, row, args, parents))
                if new is None:
                    continue
            self._expect(te.table, trow[pk(te)], col, new, f"the {_human(col)} of {te.human} {trow[pk(te)]}")

    def _cascade(self, eff: Effect, rows: list[dict[str, Any]]) -> None:
        """Children (as they were before the call) in the cascade's states end in its state."""
        child = self.domain.entity(eff.entity or "")
        assert child.lifecycle is not None
        for row in rows:
            if row.get(child.lifecycle.field) in (eff.states or []):
                key = row[pk(child)]
                self._expect(
                    child.table, key, child.lifecycle.field, eff.value, f"{child.human} {key} is {_human(eff.value)}"
                )

    def _counted_from(self, col: str, value: Any) -> Any:
        """Where days added to ``col`` count from: a date to come that has lapsed counts from now, as the
        tool's ``max(col, :today)`` does (:mod:`..tools.write`)."""
        if not isinstance(value, str) or not names_date_to_come(col):
            return value
        clock = self.clock.strftime("%Y-%m-%d" if len(value) == 10 else "%Y-%m-%d %H:%M:%S")
        return max(value, clock)

    def _add_days(self, value: Any, days: Any) -> Any:
        if not isinstance(value, str) or not isinstance(days, (int, float)):
            return None
        if len(value) == 10:
            return (datetime.strptime(value, "%Y-%m-%d") + timedelta(days=int(days))).strftime("%Y-%m-%d")
        return (datetime.strptime(value, "%Y-%m-%d %H:%M:%S") + timedelta(days=int(days))).strftime("%Y-%m-%d %H:%M:%S")

    def _insert(
        self, eff: Effect, e: Entity, row: dict[str, Any], args: dict[str, Any], parents: dict[str, Any]
    ) -> None:
        assert eff.entity is not None
        other = self.domain.entity(eff.entity)
        values: dict[str, Any] = {}
        for name, source in eff.values.items():
            ref = other.reference(name)
            value = self._source(source, e, row, args, parents)
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                values[ref.column if ref else name] = value
        if values:
            self.inserted.append((other.table, values, f"a new {other.human} is recorded for {e.human} {row[pk(e)]}"))

    def _expect(self, table: str, key: str, col: str, value: Any, description: str) -> None:
        if (table, key) in self.new_rows:  # a later goal changed a record an earlier one created: the new
            self.new_rows[(table, key)][col] = value  # record must exist with what that goal left
            return
        self.expected[(table, key, col)] = value
        self.described[(table, key, col)] = description
        self.unchanged.pop((table, key, col), None)

    def created(self, e: Entity, key: str, values: dict[str, Any], parents: dict[str, Any]) -> None:
        """A create: one new record with the values the user gave, and what its effects leave."""
        if e.create is not None:
            self.effects(e, e.create.effects, {pk(e): key, **values}, values, parents, own_fields=False)
        shown = ", ".join(f"{_human(k)} {_human(v)}" for k, v in list(values.items())[:3])
        kept = dict(values)
        self.new_rows[(e.table, key)] = kept
        self.inserted.append((e.table, kept, f"a new {e.human} with {shown} exists"))

    def updated(self, e: Entity, key: str, col: str, value: Any) -> None:
        self._expect(e.table, key, col, value, f"the {_human(col)} of {e.human} {key} is {_human(value)}")

    # -- what must not change ------------------------------------------------------------------------
    def keep(self, e: Entity, row: dict[str, Any], col: str, why: str) -> None:
        """``row``'s ``col`` must end as it started (unless a goal changes it after all)."""
        cell = (e.table, row[pk(e)], col)
        if cell not in self.expected and row.get(col) is not None:
            self.unchanged[cell] = (row[col], why)

    # -- output -----------------------------------------------------------------------------------
    def assertions(self) -> list[dict[str, str]]:
        """What must hold, then what is recorded, then what must not change: a few of each."""
        must: list[dict[str, str]] = []
        recorded: list[dict[str, str]] = []
        kept: list[dict[str, str]] = []
        for (table, key, col), value in self.expected.items():
            key_col = self._key_column(table)
            must.append(
                {
                    "description": _sentence(self.described[(table, key, col)]),
                    "sql": _one_row(table, key_col, key, condition(col, value)),
                }
            )
        for table, values, description in self.inserted:
            where = " AND ".join(condition(c, v) for c, v in values.items())
            recorded.append(
                {
                    "description": description[:1].upper() + description[1:],
                    "sql": f"SELECT count(*) >= 1 FROM {table} WHERE {where}",
                }
            )
        for (table, key, col), (value, why) in self.unchanged.items():
            key_col = self._key_column(table)
            kept.append(
                {
                    "description": _sentence(why),
                    "sql": _one_row(table, key_col, key, condition(col, value)),
                }
            )
        return must[:6] + recorded[:2] + kept[:3]

    def _key_column(self, table: str) -> str:
        entity = next(e for e in self.domain.entities if e.table == table)
        return pk(entity)
