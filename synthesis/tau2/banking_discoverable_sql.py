"""What τ³ banking_knowledge's discoverable tools are built of, beyond ``banking_sql``: the refusal check
and the answer that gives the refusal first (``check``, ``answer``), Python's ways with text and records
that tau2's methods rely on (``joined``, ``when``, ``empty``, ``get``, ``pyval``, ``pystr``, ``iso_date``,
``age_days``, ``one_of``), the arguments as tau2 echoes them (``user_args_indented``), the read tool that
lists a table's records (``records_of``), and the bank account record most account tools read
(``ACCOUNT``).

Arguments reach the tools as ``call_discoverable_*_tool`` passes them: tau2 reads the JSON with
``parse_int=float``, so every number is a float (``num``), and a record keeps it so.
"""

from __future__ import annotations

from typing import Any

from .banking_sql import first_error, json_lit, listing, lit, where_field
from .banking_tool_spec import Discoverable, Param

NL = "char(10)"
OK = ":chk.err IS NULL"


def joined(*parts: str) -> str:
    """Python's ``"\\n".join(parts)`` of SQL text expressions."""
    return f" || {NL} || ".join(parts)


def check(err: str, **values: str) -> dict[str, Any]:
    cols = "".join(f", {v} AS {k}" for k, v in values.items())
    return {"kind": "query", "bind": "chk", "sql": f"SELECT {err} AS err{cols}"}


def answer(text: str) -> dict[str, Any]:
    return {"kind": "return", "shape": "value", "sql": f"SELECT coalesce(:chk.err, {text})"}


def empty(param: str) -> str:
    """Python's ``not value`` for a text argument."""
    return f"coalesce({param}, '') = ''"


def get(rec: str, key: str, default: str = "''") -> str:
    """Python's ``rec.get(key, default)`` of a record's text value (NULL for a JSON null)."""
    return f"CASE WHEN json_type({rec}, '$.{key}') IS NOT NULL THEN {rec} ->> '$.{key}' ELSE {default} END"


def iso_date(text: str) -> str:
    """``MM/DD/YYYY`` as ``YYYY-MM-DD`` (NULL when it is no such date)."""
    iso = f"(substr({text}, 7, 4) || '-' || substr({text}, 1, 2) || '-' || substr({text}, 4, 2))"
    return f"CASE WHEN {text} GLOB '[0-9][0-9]/[0-9][0-9]/[0-9][0-9][0-9][0-9]' AND date({iso}) IS {iso} THEN {iso} END"


def age_days(rec: str) -> str:
    """tau2's ``get_account_age_days``: whole days from ``date_opened`` to now; 0 for no date."""
    opened = iso_date(get(rec, "date_opened"))
    return f"coalesce(CAST(julianday('2025-11-14 03:40:00') - julianday({opened}) AS INTEGER), 0)"


def user_args_indented(pairs: list[tuple[str, str]]) -> str:
    """``json.dumps(args, indent=2)`` of the named values in their order."""
    body = " || ',' || char(10) || ".join(lit('  "' + k + '": ') + " || " + v for k, v in pairs)
    return "'{' || char(10) || " + body + " || char(10) || '}'"


def pystr(param: str) -> str:
    """A text argument as Python's ``json.dumps`` writes it."""
    return f"python_json(json_quote({param}))"


def one_of(param: str, values: list[str]) -> str:
    return f"{param} IN (SELECT value FROM json_each({json_lit(values)}))"


def when(cond: str, text: str) -> str:
    """A line added only when ``cond`` holds (``result_parts.append`` under an ``if``)."""
    return f"CASE WHEN {cond} THEN {NL} || {text} ELSE '' END"


def pyval(rec: str, key: str, default: str) -> str:
    """Python's ``str(rec.get(key, default))`` of a record's field."""
    return f"coalesce(python_str({rec} -> '$.{key}'), {lit(default)})"


ACCOUNT = "(SELECT record FROM accounts WHERE record_id = :account_id)"


def records_of(
    name: str, description: str, param: Param, table: str, column: str, done: str, header: str, none: str
) -> Discoverable:
    """A read tool that lists ``table``'s records whose ``column`` is the argument (tau2's pattern: a line
    saying it is done, the tool's name, a header, then the listing or ``none``)."""
    arg = f":{param.name}"
    found = listing(table, where_field(column, arg))
    return Discoverable(
        name,
        description,
        (param,),
        False,
        [
            check(first_error((empty(arg), lit(f"Error: Missing required parameter: {param.name}")))),
            {"kind": "query", "bind": "found", "sql": f"SELECT {found} AS text"},
            answer(
                joined(
                    lit(done),
                    "''",
                    lit(f"Executed: {name}"),
                    f"{lit(header)} || {arg} || ':'",
                    "CASE WHEN :found.text LIKE '%No records found%' OR :found.text LIKE '%No results found%' "
                    f"THEN {NL} || {lit(none)} ELSE :found.text END",
                )
            ),
        ],
    )
