"""One child wins its parent (the quality report's measure 88, :mod:`envs.quality.won_once`): no load
carries two accepted offers, none a delivered offer while withdrawn.

:func:`settle_won_once` runs once statuses are final and before a parent takes what its winning child
sets on it (``write_rules.carry_parent_effects``: an accepted offer's load covered, which moves only a
load still posted). Per parent the child furthest along keeps the win (a delivered offer before an
accepted one: status order), and a parent closed without being taken (a withdrawn load) is taken
(covered): the win is what closed it. Another winner of it is turned down as the other side's answer
(``declined``) where no row hangs under it; one with rows under it (a delivered offer's invoice) moves
with them to a parent not open that no child holds (a covered or withdrawn load without a winner),
whose dates lie on the same side of the clock as its own parent's (picked up already), and takes
it. Where neither can be done it is left as drawn. A win whose own move sets the parent taken (a
hold converted to a purchase sells its car: ``taking_moves``) has no answer of the other side; a
second one moves to a car sold without one, and the car of each is sold.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from envs.formats.spec import EnvSpec
from envs.quality.one_off import held as still_held
from envs.quality.seed import status_columns
from envs.quality.text import word_set
from envs.quality.won_once import Contest, winners

#: Child statuses in which the other side turned an offer down.
LOST = word_set("declined rejected lost")


def _referenced(spec: EnvSpec, table: str) -> set[Any]:
    """Keys of ``table`` some row of another table points at."""
    out: set[Any] = set()
    for other in spec.tables:
        for fk in other.foreign_keys:
            if fk.table == table and len(fk.columns) == 1 and other.name != table:
                out |= {r.get(fk.columns[0]) for r in spec.seed.get(other.name, [])}
    return out


def _sides(spec: EnvSpec, table: str) -> Callable[[Any], tuple[bool, ...]]:
    """Per key of ``table``, which of its dates lie before the clock: a delivered offer moves only to
    a load picked up in the past, as its own was."""
    t = next(t for t in spec.tables if t.name == table)
    dated = [c.name for c in t.columns if c.type in ("date", "datetime")]
    clock = spec.clock.isoformat(sep=" ")
    rows = {r.get(t.primary_key[0]): r for r in spec.seed.get(table, [])}
    return lambda key: tuple(str(rows[key].get(c) or "") <= clock for c in dated)


def _settle(spec: EnvSpec, contest: Contest, by_parent: dict[Any, list[dict[str, Any]]], rng: random.Random) -> int:
    tables = {t.name: t for t in spec.tables}
    column = status_columns(tables[contest.table])[0]
    order = list(column.enum or [])
    lost = [v for v in order if v in LOST]
    key, parent_key = tables[contest.table].primary_key[0], tables[contest.parent].primary_key[0]
    parent_status = contest.column
    parents = {r[parent_key]: r for r in spec.seed.get(contest.parent, [])}
    held = _referenced(spec, contest.table)
    # a parent taken or closed (withdrawn) with no winner can take one: the win is what closed it
    free = [p for p, r in parents.items() if r.get(parent_status) not in contest.open and p not in by_parent]
    sides = _sides(spec, contest.parent)
    # parents a row of the contest's table still holds (an active hold): a win that takes them would
    # take them from under it
    live = {r.get(contest.via) for r in spec.seed.get(contest.table, []) if still_held(r.get(column.name))}
    changed = 0
    for parent_id in sorted(by_parent, key=str):
        first, *rest = sorted(by_parent[parent_id], key=lambda r: -order.index(r[column.name]))
        taking = [parent_id]
        if contest.set_by_win and parent_id in live:
            # another shopper holds the car: the sale goes to a car sold without one, else stays as drawn
            fits = [p for p in free if sides(p) == sides(parent_id) and p not in live]
            if not fits:
                continue
            first[contest.via] = taking[0] = fits[rng.randrange(len(fits))]
            free.remove(taking[0])
            changed += 1
        for row in rest:
            if row[key] not in held and lost:
                row[column.name] = lost[0]
            elif fits := [p for p in free if sides(p) == sides(parent_id)]:
                row[contest.via] = fits[rng.randrange(len(fits))]
                free.remove(row[contest.via])
                taking.append(row[contest.via])
            else:
                continue
            changed += 1
        for taken in taking:
            held_by = parents[taken].get(parent_status)
            # a win whose own move takes the parent (a hold converted: the car sold) takes it from any state
            if held_by not in contest.taken and (contest.set_by_win or held_by not in contest.open):
                parents[taken][parent_status] = sorted(contest.taken)[0]
                changed += 1
    return changed


def settle_won_once(spec: EnvSpec) -> int:
    """Leave each parent one winning child, and every closed parent with a winner taken (in place);
    returns how many rows changed."""
    rng = random.Random(f"won-once:{spec.id}")
    grouped: dict[Contest, dict[Any, list[dict[str, Any]]]] = {}
    for contest, row, _, _ in list(winners(spec, spec.seed)):
        grouped.setdefault(contest, {}).setdefault(row[contest.via], []).append(row)
    return sum(_settle(spec, contest, by_parent, rng) for contest, by_parent in grouped.items())
