"""Lexical helpers for the SQL that specs contain.

Specs name values as ``:order_id`` or ``:order.total`` (a field of an earlier query's row). SQLite's
own parameter syntax has no dots, so each statement is rewritten once, at load time, to plain named
parameters, and the dotted paths are kept to look values up when the statement runs. The scanner
skips string literals, quoted identifiers and comments, so ``'12:30'`` is never mistaken for a
parameter. Nothing here ever puts a *value* into SQL text.
"""

from __future__ import annotations

import functools
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


# Where a non-code piece may start: a quote, a bracketed name, or a comment.
_NOT_CODE_START = re.compile(r"['\"`\[]|--|/\*")


@functools.lru_cache(maxsize=8192)
def _segments(sql: str) -> tuple[tuple[bool, str], ...]:
    """Split SQL into (is_code, text) pieces; strings, quoted names and comments are not code.
    (Cached: loading a catalog scans each statement twice, and synthesized envs share statements.)"""
    out: list[tuple[bool, str]] = []
    n, start = len(sql), 0
    while (m := _NOT_CODE_START.search(sql, start)) is not None:
        i = m.start()
        if start < i:
            out.append((True, sql[start:i]))
        ch = sql[i]
        if ch == "-":
            j = sql.find("\n", i)
            j = n if j < 0 else j
        elif ch == "/":
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
        else:
            close = "]" if ch == "[" else ch
            j = i + 1
            while True:
                j = sql.find(close, j)
                if j < 0:
                    j = n - 1  # unterminated: the rest is the literal
                    break
                if close != "]" and j + 1 < n and sql[j + 1] == close:
                    j += 2  # doubled quote is an escaped quote
                    continue
                break
            j += 1
        out.append((False, sql[i:j]))
        start = j
    if start < n:
        out.append((True, sql[start:]))
    return tuple(out)


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
