"""SQL fragments for τ³ banking_knowledge's tools (``banking_tools``): records read and written as JSON,
tau2's record listings, its deterministic ids, and its texts.

tau2's banking tools answer with text, and a refusal is text too (``"Error: ..."``, not an exception),
so a tool here is: a ``query`` step that works out the refusal, if any (``err``), ``exec`` steps that
change nothing when there is one, and a ``return`` of the refusal or the success text.
"""

from __future__ import annotations

import json
from typing import Any

NL = "char(10)"
TODAY = "'11/14/2025'"  # tau2's fixed date for the domain (MM/DD/YYYY)


def lit(text: str) -> str:
    """A constant of ours as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def json_lit(value: Any) -> str:
    return lit(json.dumps(value, separators=(",", ":")))


def cat(*parts: str) -> str:
    """SQL text concatenation."""
    return " || ".join(parts)


def record(table: str, key: str) -> str:
    """The JSON text of ``table``'s record ``key`` (an SQL expression), or NULL."""
    return f"(SELECT record FROM {table} WHERE record_id = {key})"


def field(table: str, key: str, name: str) -> str:
    return f"(SELECT json_extract(record, '$.{name}') FROM {table} WHERE record_id = {key})"


def exists(table: str, key: str) -> str:
    return f"EXISTS (SELECT 1 FROM {table} WHERE record_id = {key})"


def next_position(table: str) -> str:
    return f"(SELECT coalesce(max(position), -1) + 1 FROM {table})"


def insert(table: str, key: str, rec: str, when: str = "1") -> dict[str, Any]:
    """tau2's ``add_to_db``: the record is added after the others unless its id is taken."""
    return {
        "kind": "exec",
        "sql": f"INSERT INTO {table} (record_id, record, position) SELECT {key}, {rec}, {next_position(table)} "
        f"WHERE ({when}) AND NOT {exists(table, key)}",
    }


def update(table: str, key: str, sets: list[tuple[str, str]], when: str = "1") -> dict[str, Any]:
    """tau2's ``update_record_in_db``: fields set in place, new ones after the record's others."""
    args = ", ".join(f"'$.{name}', {value}" for name, value in sets)
    return {
        "kind": "exec",
        "sql": f"UPDATE {table} SET record = json_set(record, {args}) WHERE record_id = {key} AND ({when})",
    }


def sha_id(seed: str, length: int, prefix: str = "") -> str:
    """tau2's ``_deterministic_id``: the first ``length`` hex digits of the seed's SHA-256."""
    body = f"substr(sha256_hex({seed}), 1, {length})"
    return cat(lit(prefix), body) if prefix else body


def num(param: str) -> str:
    """A number as tau2 holds it after ``json.loads(..., parse_int=float)``: always a float, as JSON."""
    return f"json(float_text({param}))"


def boolean(param: str) -> str:
    return f"json(CASE WHEN {param} IS NULL THEN 'null' WHEN {param} THEN 'true' ELSE 'false' END)"


def money(expr: str) -> str:
    """Python's ``f"{x:.2f}"``."""
    return f"python_format(CAST({expr} AS REAL), '.2f')"


def balance(rec: str) -> str:
    """tau2's ``_get_account_balance``: ``current_holdings`` (else ``balance``, else 0), a number or a
    text such as ``"$2,850.00"``, as a float."""
    value = (
        f"CASE WHEN json_type({rec}, '$.current_holdings') IS NOT NULL THEN json_extract({rec}, '$.current_holdings') "
        f"WHEN json_type({rec}, '$.balance') IS NOT NULL THEN json_extract({rec}, '$.balance') ELSE 0 END"
    )
    return (
        "(SELECT CASE WHEN typeof(v) = 'text' THEN CAST(replace(replace(v, '$', ''), ',', '') AS REAL) "
        f"ELSE CAST(coalesce(v, 0) AS REAL) END FROM (SELECT {value} AS v))"
    )


def listing(table: str, where: str, order: str = "position") -> str:
    """tau2's ``query_database_tool`` text for the records of ``table`` matching ``where`` (over ``record``):
    ``Found N record(s) in 'table':`` and each record's fields as Python prints them, or ``No records
    found in 'table'.``"""
    fields = (
        "coalesce((SELECT group_concat('   ' || f.key || ': ' || python_str(f.value, f.type) || char(10), '') "
        "FROM (SELECT key, value, type FROM json_each(t.record) ORDER BY id) AS f), '')"
    )
    block = f"t.n || '. Record ID: ' || t.record_id || char(10) || {fields}"
    rows = f"SELECT row_number() OVER (ORDER BY {order}) AS n, record_id, record FROM {table} WHERE {where}"
    return (
        f"(SELECT CASE WHEN count(*) = 0 THEN {lit(f'No records found in {table!r}.')} "
        f"ELSE 'Found ' || count(*) || {lit(f' record(s) in {table!r}:')} || char(10) || char(10) || "
        f"group_concat(block, char(10)) END FROM (SELECT {block} AS block FROM ({rows}) AS t ORDER BY t.n))"
    )


def where_field(name: str, param: str, rec: str = "record") -> str:
    """A record whose ``name`` equals ``param`` (tau2's ``{"name": value}`` constraint)."""
    return f"json_extract({rec}, '$.{name}') = {param} AND json_type({rec}, '$.{name}') = 'text'"


def first_error(*checks: tuple[str, str]) -> str:
    """``CASE`` of (condition, text) pairs: the first refusal that applies, else NULL."""
    whens = " ".join(f"WHEN {cond} THEN {text}" for cond, text in checks)
    return f"CASE {whens} END"


def titled(values: list[str], param: str) -> str:
    """Python's ``value.replace('_', ' ').title()`` for one of ``values``."""
    table = {v: v.replace("_", " ").title() for v in values}
    return f"json_extract({json_lit(table)}, '$.' || {param})"


def py_list(values: list[str]) -> str:
    """Python's ``str()`` of a list of strings, as an SQL literal."""
    return lit(str(values))
