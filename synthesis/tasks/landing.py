"""Where a write leaves a record, judged before the task asks for it (the seed-83 review).

* **Amounts changed by a little.** A person corrects an amount they gave, or changes a quantity, by a
  few percent to some tens of percent, and says the new one as people write it ("39,400"), never a
  value drawn from the column's whole range: an olive-oil entry declared at 47,420.11 is not
  "corrected" to 39.42. Measure 81 (:mod:`envs.quality.moved_values`) counts updates that set an
  amount under a fifth or over five times the one it held.
* **Moves that land ahead.** An extension, a postponement or a renewal that moves a date on by a count
  of days is asked for only where the moved date ends after the clock: a rental that ended two months
  ago, extended by 30 days, still ended a month ago, and the user's "I need more time" is not met.
* **Moves asked for in time.** Nor is an extension or a renewal asked for long before its date comes:
  an offer that expires in eight weeks is not extended by 2 days "just in case". The date lies at
  most :data:`EARLY_DAYS`, or twice the days the move adds, ahead of the clock (a 30-day rental
  extension may be asked two months out, a 2-day one within the week); a reschedule names its own new
  day and may be asked weeks ahead.
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta
from typing import Any

from envs.quality.written_dates import names_date_to_come

from ..domains.domain import Attribute, Entity, Transition

#: Kinds of attribute whose new value is drawn near the old one.
NEAR_KINDS = frozenset({"money", "quantity", "integer"})
#: Words of a count that only goes up: an odometer is read again, never wound back.
RISING = frozenset({"odometer", "mileage", "miles"})
#: How far a change moves an amount: at least, at most (a share of the old amount).
LEAST_CHANGE, MOST_CHANGE = 0.04, 0.35
#: How many days ahead a date may lie when a move of a few days is asked for.
EARLY_DAYS = 7
#: First words of a transition that gives more time (an extension, a renewal); a reschedule or a
#: postponement names its own new day, and asking for it weeks ahead is ordinary.
EXTENDING = frozenset({"extend", "renew"})


def _as_written(value: float, integral: bool) -> float | int:
    """``value`` to three significant figures, as a person writes an amount (39,358.69 -> 39,400;
    58.37 -> 58.4), whole for a whole-number column."""
    if value <= 0:
        return 0 if integral else 0.0
    step: float = 10.0 ** (math.floor(math.log10(value)) - 2)
    if integral:
        whole = max(int(step), 1)
        return max(1, round(value / whole) * whole)
    return round(round(value / step) * step, 2)


def holds_amount(old: Any, a: Attribute) -> bool:
    """Whether ``a`` holds an amount and ``old`` is one to change from (a positive number)."""
    return a.kind in NEAR_KINDS and not isinstance(old, bool) and isinstance(old, int | float) and old > 0


def nearby_amount(old: Any, a: Attribute, schema: dict[str, Any], rng: random.Random) -> float | int | None:
    """A new value of ``a`` near ``old`` (more or less by 4–35 %, rounded as written), inside the
    attribute's range and the tool's bounds where ``old`` was (part of the way to a bound it would
    cross); None where ``a`` holds no amount, ``old`` is none to change from, or ``old`` sits on the
    bound it would move past."""
    if not holds_amount(old, a):
        return None
    integral = a.kind != "money"
    change = rng.uniform(LEAST_CHANGE, MOST_CHANGE)
    rises = bool(set(a.name.split("_")) & RISING)
    value = _as_written(old * (1 + change if rises or rng.random() < 0.5 else 1 - change), integral)
    if value == old or value <= 0:
        value = old + 1 if integral else _as_written(old * (1 + MOST_CHANGE), integral)
    low, high = a.range or (None, None)
    low = schema.get("minimum", low) if low is None else max(low, schema.get("minimum", low))
    high = schema.get("maximum", high) if high is None else min(high, schema.get("maximum", high))
    # past a bound the old value keeps: part of the way to the bound instead (a declared value near
    # the column's top is corrected down a little or up to below it, never drawn anew)
    if high is not None and old <= high < value:
        value = _as_written(old + (high - old) * rng.uniform(0.3, 0.9), integral)
    if low is not None and value < low <= old:
        value = _as_written(old - (old - low) * rng.uniform(0.3, 0.9), integral)
    if value == old or (high is not None and old <= high < value) or (low is not None and value < low <= old):
        return None  # at its bound already, with nowhere to go: the caller draws as before
    return int(value) if integral else float(value)


def moved_date(column: str, value: Any, days: Any, clock: datetime) -> str | None:
    """``value`` of ``column`` moved on by ``days``, as the tool moves it: a date to come that has
    lapsed counts from the clock (the tool's ``max(column, :today)``). None: not a date or a count."""
    if not isinstance(value, str) or isinstance(days, bool) or not isinstance(days, int | float):
        return None
    shape = "%Y-%m-%d" if len(value) == 10 else "%Y-%m-%d %H:%M:%S"
    if names_date_to_come(column):
        value = max(value, clock.strftime(shape))
    try:
        return (datetime.strptime(value, shape) + timedelta(days=int(days))).strftime(shape)
    except ValueError:
        return None


def _day_moves(t: Transition, row: dict[str, Any], args: dict[str, Any]) -> list[tuple[str, Any]]:
    """(column, days) of each date of the record ``t`` moves on by a count of days."""
    out = []
    for eff in t.effects:
        if eff.kind != "add_days" or not (eff.target or "").startswith("field:") or eff.amount is None:
            continue
        amount: Any = eff.amount
        if isinstance(amount, str):
            amount = args.get(amount[6:]) if amount.startswith("param:") else row.get(amount.removeprefix("field:"))
        out.append(((eff.target or "")[6:], amount))
    return out


def lands_past(e: Entity, t: Transition, row: dict[str, Any], args: dict[str, Any], clock: datetime) -> bool:
    """Whether ``t`` on ``row`` moves a date of the record on by some days and leaves it before the clock."""
    for column, amount in _day_moves(t, row, args):
        moved = moved_date(column, row.get(column), amount, clock)
        if moved is not None and moved < clock.strftime("%Y-%m-%d" if len(moved) == 10 else "%Y-%m-%d %H:%M:%S"):
            return True
    return False


def asked_early(t: Transition, row: dict[str, Any], args: dict[str, Any], clock: datetime) -> bool:
    """Whether ``t`` gives more time (:data:`EXTENDING`) to a date of ``row`` still further ahead of the
    clock than anyone would ask it moved: more than :data:`EARLY_DAYS` and twice the days it adds."""
    if t.name.split("_")[0] not in EXTENDING:
        return False
    for column, amount in _day_moves(t, row, args):
        value = row.get(column)
        if not isinstance(value, str) or len(value) < 10 or isinstance(amount, bool):
            continue
        if not isinstance(amount, int | float):
            continue
        try:
            ahead = (datetime.strptime(value[:10], "%Y-%m-%d") - datetime(clock.year, clock.month, clock.day)).days
        except ValueError:
            continue
        if ahead > max(EARLY_DAYS, 2 * int(amount)):
            return True
    return False


def moved_without_need(e: Entity, t: Transition, row: dict[str, Any], args: dict[str, Any], clock: datetime) -> bool:
    """Whether no one would ask for ``t`` on ``row``: its moved date still behind the clock, or its date
    still far ahead."""
    return lands_past(e, t, row, args, clock) or asked_early(t, row, args, clock)
