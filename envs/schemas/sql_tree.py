"""SQL text as a tree of tokens grouped by parentheses: enough to read a SELECT's columns.

Strings, quoted names and comments are told apart by ``envs.formats.sqltext``'s scanner, so a ``(`` or a
keyword inside a string literal is never taken for code. Nothing here runs or rewrites SQL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from ..formats.sqltext import _segments


@dataclass(frozen=True)
class Tok:
    """One token."""

    kind: str  # word (lower-cased), name (a quoted identifier), str, num, op
    text: str


Node = Union[Tok, "Group"]


class Group(list[Node]):
    """What a pair of parentheses holds."""


_TOKEN = re.compile(
    r"\s+|([A-Za-z_][A-Za-z0-9_$]*|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|\|\||<>|[<>!=]=|==|<<|>>|:\w+(?:\.\w+)*|\S)"
)


def parse(sql: str) -> Group | None:
    """``sql`` as a tree of tokens grouped by parentheses, or None where they do not balance.

    >>> parse("SELECT count(*) AS 'n' -- why")
    [Tok(kind='word', text='select'), Tok(kind='word', text='count'), [Tok(kind='op', text='*')], \
Tok(kind='word', text='as'), Tok(kind='str', text='n')]
    """
    stack: list[Group] = [Group()]
    for code, text in _segments(sql):
        if not code:
            if text[0] in '"`[':
                stack[-1].append(Tok("name", text[1:-1]))
            elif text[0] == "'":
                stack[-1].append(Tok("str", text[1:-1].replace("''", "'")))
            continue
        for m in _TOKEN.finditer(text):
            tok = m.group(1)
            if tok is None:
                continue
            if tok == "(":
                stack.append(Group())
            elif tok == ")":
                if len(stack) < 2:
                    return None
                inner = stack.pop()
                stack[-1].append(inner)
            elif tok[0].isalpha() or tok[0] == "_":
                stack[-1].append(Tok("word", tok.lower()))
            elif tok[0].isdigit() or (tok[0] == "." and len(tok) > 1):
                stack[-1].append(Tok("num", tok))
            else:
                stack[-1].append(Tok("op", tok))
    return stack[0] if len(stack) == 1 else None


def is_word(node: Node | None, *words: str) -> bool:
    """Whether ``node`` is one of the (lower-case, unquoted) ``words``."""
    return isinstance(node, Tok) and node.kind == "word" and node.text in words


def split_list(nodes: Sequence[Node], *, on: str = ",") -> list[list[Node]]:
    """``nodes`` split at each ``on`` operator (a comma: the items of a list)."""
    parts: list[list[Node]] = [[]]
    for n in nodes:
        if isinstance(n, Tok) and n.kind == "op" and n.text == on:
            parts.append([])
        else:
            parts[-1].append(n)
    return parts


def name_of(node: Node | None) -> str | None:
    """The identifier ``node`` spells (lower-cased), if it is one."""
    if isinstance(node, Tok) and (node.kind == "name" or (node.kind == "word" and node.text not in KEYWORDS)):
        return node.text.lower()
    return None


_KEYWORD_TEXT = """
select from where group by having order limit offset window union intersect except all distinct as on using
join left right full inner outer cross natural and or not is in like glob regexp match between escape case when
then else end null collate asc desc exists cast with recursive values true false over filter
"""
#: Words that are never a column's name or an alias (as far as reading a SELECT goes).
KEYWORDS = frozenset(_KEYWORD_TEXT.split())
CLAUSES = frozenset({"where", "group", "having", "order", "limit", "window"})
COMPOUND = frozenset({"union", "intersect", "except"})
JOINS = frozenset({"join", "left", "right", "full", "inner", "outer", "cross", "natural"})


def is_op(node: Node | None, *ops: str) -> bool:
    """Whether ``node`` is one of the operators ``ops``."""
    return isinstance(node, Tok) and node.kind == "op" and node.text in ops
