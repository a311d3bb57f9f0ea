"""Lexical helpers for the SQL that specs contain.

Specs name values as ``:order_id`` or ``:order.total`` (a field of an earlier query's row). SQLite's
own parameter syntax has no dots, so each statement is rewritten once, at load time, to plain named
parameters, and the dotted paths are kept to look values up when the statement runs. The scanner
skips string literals, quoted identifiers and comments, so ``'12:30'`` is never mistaken for a
parameter. Nothing here ever puts a *value* into SQL text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_PARAM = re.compile(rf":({_IDENT}(?:\.{_IDENT})*)")
# Spellings that read the wall clock or randomness: they would make two runs of the same calls differ.
_NONDETERMINISTIC = re.compile(r"\b(current_timestamp|current_date|current_time|random|randomblob)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PreparedSQL:
    """A statement rewritten to SQLite named parameters.

    Attributes:
        text: SQL with every ``:a.b`` replaced by ``:p_a__b``.
        params: map from the SQLite parameter name to the dotted path it stands for.
    """

    text: str
    params: dict[str, str]

    @property
    def roots(self) -> set[str]:
        """First components of every referenced path (the names a statement needs bound)."""
        return {path.split(".", 1)[0] for path in self.params.values()}


def _segments(sql: str) -> list[tuple[bool, str]]:
    """Split SQL into (is_code, text) pieces; strings, quoted names and comments are not code."""
    out: list[tuple[bool, str]] = []
    i, n, start = 0, len(sql), 0
    while i < n:
        ch = sql[i]
        if ch in "'\"`[":
            close = "]" if ch == "[" else ch
            if start < i:
                out.append((True, sql[start:i]))
            j = i + 1
            while j < n:
                if sql[j] == close:
                    if close != "]" and j + 1 < n and sql[j + 1] == close:
                        j += 2  # doubled quote is an escaped quote
                        continue
                    break
                j += 1
            out.append((False, sql[i : j + 1]))
            i = start = j + 1
        elif sql.startswith("--", i):
            if start < i:
                out.append((True, sql[start:i]))
            j = sql.find("\n", i)
            j = n if j < 0 else j
            out.append((False, sql[i:j]))
            i = start = j
        elif sql.startswith("/*", i):
            if start < i:
                out.append((True, sql[start:i]))
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append((False, sql[i:j]))
            i = start = j
        else:
            i += 1
    if start < n:
        out.append((True, sql[start:]))
    return out


def prepare(sql: str) -> PreparedSQL:
    """Rewrite dotted parameters to SQLite names.

    >>> p = prepare("SELECT * FROM t WHERE a = :order.id AND b = ':x'")
    >>> p.text
    "SELECT * FROM t WHERE a = :p_order__id AND b = ':x'"
    >>> p.params
    {'p_order__id': 'order.id'}
    """
    params: dict[str, str] = {}

    def repl(match: re.Match[str]) -> str:
        path = match.group(1)
        name = "p_" + path.replace(".", "__")
        params[name] = path
        return ":" + name

    pieces = [(_PARAM.sub(repl, text) if code else text) for code, text in _segments(sql)]
    return PreparedSQL(text="".join(pieces), params=params)


def nondeterminism(sql: str) -> list[str]:
    """Constructs in ``sql`` whose value depends on the wall clock or on chance.

    >>> nondeterminism("SELECT date('now'), random()")
    ["'now'", 'random']
    """
    found: list[str] = []
    for code, text in _segments(sql):
        if code:
            found.extend(m.group(1).lower() for m in _NONDETERMINISTIC.finditer(text))
        elif text.lower() in ("'now'", '"now"'):
            found.append("'now'")
    # keep the order of first appearance, but report 'now' literals before function names
    return sorted(set(found), key=lambda f: (not f.startswith("'"), found.index(f)))


def has_code(sql: str, pattern: str) -> bool:
    """True if ``pattern`` (a regex) matches outside strings and comments."""
    rx = re.compile(pattern, re.IGNORECASE)
    return any(code and rx.search(text) for code, text in _segments(sql))
