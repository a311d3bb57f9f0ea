"""Guards as SQL: each domain rule becomes one ``require`` step whose message names the values.

The message is what the agent sees when a rule refuses a call, so it names the record, the value
that fails and the bound it fails against. Each kind has a plain-English description too, which goes
into the tool's description and the policy.
"""

from __future__ import annotations

from typing import Any

from envs.engine.compile import quote_ident
from envs.quality.text import column_words

from ..domains.domain import Domain, Entity, Guard
from ..domains.sqlgen import DomainError, Scope, expr, literal, pk
from ..domains.whole_payments import LEAST


def _span(hours: int) -> str:
    if hours >= 48 and hours % 24 == 0:  # "30 days", but "24 hours"
        days = hours // 24
        return f"{days} day{'s' if days != 1 else ''}"
    return f"{hours} hour{'s' if hours != 1 else ''}"


def _label(source: Any) -> str:
    return str(source).split(":", 1)[-1].replace(".", " ").replace("_", " ")


def _shown(sql: str) -> str:
    """A message placeholder for a bound parameter (``:rec.x`` -> ``{rec.x}``), or the literal."""
    return "{" + sql[1:] + "}" if sql.startswith(":") else sql.strip("'")


def _aggregate(domain: Domain, g: Guard, f: str, at: str) -> tuple[str, str]:
    """FROM/WHERE of a count_max / sum_max guard, and the counted entity's human name."""
    assert g.entity is not None and g.match is not None
    try:
        other = domain.entity(g.entity)
    except KeyError:
        raise DomainError(f"{at}: unknown entity '{g.entity}'") from None
    column_names = {pk(other)} | {a.name for a in other.attributes} | {r.column for r in other.references}
    if other.lifecycle:
        column_names.add(other.lifecycle.field)
    if g.match not in column_names or (g.column and g.column not in column_names):
        raise DomainError(f"{at}: '{g.entity}' has no column '{g.match if g.match not in column_names else g.column}'")
    where = f"FROM {quote_ident(other.table)} WHERE {quote_ident(g.match)} = {f}"
    if g.states:
        if other.lifecycle is None:
            raise DomainError(f"{at}: '{g.entity}' has no lifecycle to filter by states")
        where += f" AND {quote_ident(other.lifecycle.field)} IN ({', '.join(map(literal, g.states))})"
    return where, other.human


def comparison(g: Guard, value: str, bound: str | None = None) -> str:
    """A value-level guard as a SQL predicate over ``value`` (a bound parameter, a column or a
    subquery), against ``bound`` (the SQL of ``amount``) for min / max / differs. Shared by the
    one-record tools and the bulk tools, which test the same rules row by row."""
    if g.kind in ("min", "max", "differs"):
        op = {"min": ">=", "max": "<=", "differs": "IS NOT"}[g.kind]
        return f"{value} {op} {bound}"
    if g.kind in ("future", "past"):
        ref_time = f"datetime(:now, '+{g.hours} hours')" if g.hours else ":now"
        return f"{value} {'>' if g.kind == 'future' else '<='} {ref_time}"
    if g.kind == "within":
        return f"{value} <= :now AND {value} >= datetime(:now, '-{g.hours} hours')"
    if g.kind == "equals":
        return f"{value} IS {literal(g.value)}"
    if g.kind == "not_equals":
        return f"{value} IS NOT {literal(g.value)}"
    if g.kind == "one_of":
        return f"{value} IN ({', '.join(map(literal, g.values or []))})"
    raise ValueError(f"'{g.kind}' is not a comparison of one value")


def guard_step(domain: Domain, e: Entity, g: Guard, at: str, self_id: str, scope: Scope) -> dict[str, Any]:
    """The ``require`` step of one (non-owner) guard."""
    if g.field is None:
        raise DomainError(f"{at}: a '{g.kind}' guard needs 'field'")
    f = expr(g.field, where=at, scope=scope)
    label = _label(g.field)
    who = f"{e.human} {{{self_id}}}"
    value = _shown(f)
    if g.kind in ("min", "max"):
        amount = expr(g.amount, where=at, scope=scope)
        sql = f"SELECT {comparison(g, f, amount)}"
        word = "below the required" if g.kind == "min" else "above the allowed"
        msg = f"The {label} of {who} is {value}, {word} {_shown(amount)}"
    elif g.kind in ("future", "past"):
        sql = f"SELECT {comparison(g, f)}"
        if g.kind == "future":
            when = f"more than {_span(g.hours)} from now" if g.hours else "in the future"
        else:
            when = f"no more than {_span(g.hours)} from now" if g.hours else "in the past"
        msg = f"The {label} of {who} ({value}) must be {when}"
    elif g.kind == "within":
        sql = f"SELECT {comparison(g, f)}"
        msg = f"The {label} of {who} ({value}) must be within the last {_span(g.hours)}"
    elif g.kind == "equals":
        sql = f"SELECT {comparison(g, f)}"
        msg = f"The {label} of {who} is {value}; it must be {g.value}"
    elif g.kind == "not_equals":
        sql = f"SELECT {comparison(g, f)}"
        msg = f"The {label} of {who} is {g.value}, which does not allow this"
    elif g.kind == "one_of":
        sql = f"SELECT {comparison(g, f)}"
        msg = f"The {label} of {who} is {value}; it must be one of {', '.join(map(str, g.values or []))}"
    elif g.kind == "differs":
        other = expr(g.amount, where=at, scope=scope)
        sql = f"SELECT {comparison(g, f, other)}"
        msg = f"The {label} is already {_shown(other)}; choose a different one"
    elif g.kind == "count_max":
        rows, noun = _aggregate(domain, g, f, at)
        amount = expr(g.amount, where=at, scope=scope)
        sql = f"SELECT (SELECT count(*) {rows}) < {amount}"
        limit = _shown(amount)
        msg = f"There are already {limit} or more {noun} records for {label} {value}; the limit is {limit}"
    elif g.kind == "sum_max":
        rows, noun = _aggregate(domain, g, f, at)
        amount = expr(g.amount, where=at, scope=scope)
        added = expr(g.add, where=at, scope=scope) if g.add is not None else "0"
        total = f"(SELECT coalesce(sum({quote_ident(g.column or '')}), 0) {rows})"
        sql = f"SELECT round({total} + {added}, 2) <= {amount}"
        msg = f"The total {_label(g.column)} of {noun} records for {label} {value} would exceed {_shown(amount)}"
    else:  # owner guards are the caller's
        raise DomainError(f"{at}: '{g.kind}' is not a guard with a step of its own")
    return {"kind": "require", "sql": sql, "message": g.message or msg}


def _column(column: str) -> str:
    """A column as a person names it (``envs.quality.text.column_words``), an id column as the thing
    it names: ``card_account_id`` is the card account.

    >>> _column("renews_on"), _column("departs_at"), _column("card_account_id")
    ('renewal date', 'departure time', 'card account')
    """
    return column_words(column[:-3]) if column.endswith("_id") and column != "_id" else column_words(column)


def _subject(domain: Domain, g: Guard, entity: str | None) -> tuple[str, str]:
    """(whose, what): the record a guard's field belongs to and the field in words."""
    source = str(g.field)
    if source.startswith("via:"):  # "the flight's departure time"
        ref, _, col = source[4:].partition(".")
        return ref.replace("_", " "), _column(col) if col else ""
    if source.startswith("param:"):  # a value the caller gives: "the amount requested", not the record's
        return "", f"{_column(source[6:])} requested"
    return entity or "", _column(source.split(":", 1)[-1])


def _flag(whose: str, field: str, value: Any) -> str:
    """A yes/no field as a condition: ``is_available`` True is "the cabin must be available"."""
    words = field.split()
    holder = f"the {whose}" if whose else "it"
    if words and words[0] in ("is", "has"):
        verb = "be" if words[0] == "is" else "have"
        rest = " ".join(words[1:])
    else:
        verb, rest = "be marked", field
    return f"{holder} must {'' if value else 'not '}{verb} {rest}"


def describe_guard(domain: Domain, g: Guard, entity: str | None = None) -> str | None:
    """The rule in plain English, for tool descriptions and the policy; ``entity`` is the human
    name of the record the rule is about (the transition's)."""
    if not g.field:
        return None
    whose, field = _subject(domain, g, entity)
    label = f"{whose}'s {field}" if whose else field
    amount = _column(_label(g.amount).replace(" ", "_")) if isinstance(g.amount, str) else g.amount
    the = "the " if isinstance(g.amount, str) else ""
    if g.kind == "min" and g.amount == LEAST:
        return f"the {label} must be above 0"
    if g.kind == "min":
        return f"the {label} must be at least {the}{amount}"
    if g.kind == "max":
        if amount == 0:
            return f"the {label} must be 0"
        return f"the {label} must be at most {the}{amount}"
    if g.kind == "future":
        return (
            f"the {label} must be more than {_span(g.hours)} away" if g.hours else f"the {label} must be in the future"
        )
    if g.kind == "past":
        return f"the {label} must " + (f"be no more than {_span(g.hours)} away" if g.hours else "have passed")
    if g.kind == "within":
        return f"the {label} must be within the last {_span(g.hours)}"
    if g.kind in ("equals", "not_equals") and isinstance(g.value, bool):
        return _flag(whose, field, g.value if g.kind == "equals" else not g.value)
    shown = str(g.value).replace("_", " ")
    status = field == "status" and whose
    if g.kind == "equals":
        return f"the {whose} must be {shown}" if status else f"the {label} must be {shown}"
    if g.kind == "not_equals":
        return f"not when the {whose} is {shown}" if status else f"not when the {label} is {shown}"
    if g.kind == "one_of":
        return f"the {label} must be one of {', '.join(str(v).replace('_', ' ') for v in g.values or [])}"
    if g.kind == "differs":
        return f"the {label} must differ from {the}{amount}"
    noun = domain.entity(g.entity).human if g.entity else "record"
    plural = domain.entity(g.entity).table.replace("_", " ") if g.entity else "records"
    states = f"{' or '.join(s.replace('_', ' ') for s in g.states)} " if g.states else ""
    per = _column(source) if (source := str(g.field).split(":", 1)[-1].split(".")[-1]) else "record"
    if g.kind == "count_max":
        if amount == 1:
            return f"only if the {per} has no {states}{noun} yet"
        return f"at most {the}{amount} {states}{plural} per {per}"
    if g.kind == "sum_max":
        total = _column(g.column or "amount")
        return f"the {states}{plural} of one {per} may total at most {the}{amount} in {total}"
    return None
