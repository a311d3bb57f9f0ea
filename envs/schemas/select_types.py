"""What each column of a spec's SELECT holds, read from its text and the tables' column types.

The result of a return step is a row of SQLite values, some of them JSON text that the engine
nests. Its output schema (``envs.schemas.output_schemas``) is only as exact as what can be told of each
column before any call, so this reads the SELECT the way SQLite would type it:

* a column taken from a table (``o.status``, ``t.*``, through a derived table or a CTE) has that
  column's type, ``enum`` and description, and may be null where the column is nullable or its
  table is LEFT JOINed;
* a computed one is typed by what it is: a literal, ``count``/``length`` (integers), ``sum``,
  ``round``, arithmetic (numbers), ``||``, ``lower``, ``date`` (text), a comparison (0 or 1),
  ``coalesce``/``CASE``/``iif`` (the union of their branches), a scalar subquery (its column, null
  when no row can come back);
* JSON functions (``json``, ``json_object``, ``json_group_array``) give text whose JSON is known
  too: an object with those keys, an array of such items.

Whatever cannot be told is :data:`Value` ``UNKNOWN``: any SQL value. Nothing here guesses from
data, and a name SQLite reports differently from the text is not trusted (``envs.schemas.output_schemas``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..formats.spec import TableSpec
from .sql_functions import AGGREGATES, call
from .sql_tree import CLAUSES, COMPOUND, JOINS, Group, Node, Tok, is_op, is_word, name_of, parse, split_list
from .sql_values import BOOL, NULL, STRING, UNKNOWN, Value, column_value, union

# -- scopes --------------------------------------------------------------------------------------------


@dataclass
class Source:
    """A table, derived table or CTE in a FROM clause, as its columns (in order)."""

    alias: str
    columns: dict[str, Value] | None  # None: not known (a table-valued function)


@dataclass
class Scope:
    """The tables, CTEs and FROM sources a SELECT's names are looked up in, then its outer query's."""

    tables: Mapping[str, TableSpec]
    ctes: dict[str, dict[str, Value] | None] = field(default_factory=dict)
    sources: list[Source] = field(default_factory=list)
    parent: Scope | None = None

    def child(self) -> Scope:
        return Scope(self.tables, dict(self.ctes), [], self)

    def lookup(self, name: str, qualifier: str | None = None) -> Value:
        """The column ``name`` (of the source aliased ``qualifier``) seen from here, or UNKNOWN."""
        scope: Scope | None = self
        while scope is not None:
            unknown = False
            for src in scope.sources:
                if qualifier is not None and src.alias != qualifier:
                    continue
                if src.columns is not None and name in src.columns:
                    return src.columns[name]
                if qualifier is not None:
                    return UNKNOWN
                unknown |= src.columns is None
            if unknown:  # it may be a column of the source that cannot be read
                return UNKNOWN
            scope = scope.parent
        return UNKNOWN


# -- SELECT -----------------------------------------------------------------------------------------


Column = tuple[str | None, Value]  # (the name the text gives it, if plain; what it holds)


def select_columns(sql: str, tables: Sequence[TableSpec]) -> list[Column] | None:
    """(name, value) of each column ``sql`` gives, ``*`` expanded; None when it cannot be read.

    >>> from envs.formats.spec import TableSpec
    >>> t = TableSpec.model_validate({"name": "orders", "primary_key": ["id"], "columns": [
    ...     {"name": "id", "type": "text"}, {"name": "total", "type": "real", "nullable": True}]})
    >>> [(n, v.schema, v.nullable) for n, v in select_columns("SELECT o.id, round(o.total, 2) AS t, "
    ...     "(SELECT count(*) FROM orders) n FROM orders o WHERE o.id = :id", [t])]
    [('id', {'type': 'string'}, False), ('t', {'type': 'number'}, True), ('n', {'type': 'integer'}, False)]
    """
    tree = parse(sql)
    if tree is None:
        return None
    nodes = list(tree)
    while nodes and isinstance(nodes[-1], Tok) and nodes[-1].text == ";":
        nodes.pop()
    return _select(nodes, Scope({t.name.lower(): t for t in tables}))


def _select(nodes: Sequence[Node], outer: Scope) -> list[Column] | None:
    scope = outer.child()
    i = 0
    if is_word(nodes[0] if nodes else None, "with"):
        i = 1 + is_word(nodes[1] if len(nodes) > 1 else None, "recursive")
        while i < len(nodes):
            name, i = name_of(nodes[i]), i + 1
            renames = None
            if i < len(nodes) and isinstance(nodes[i], Group):
                renames = [name_of(p[0]) if len(p) == 1 else None for p in split_list(nodes[i])]  # type: ignore[arg-type]
                i += 1
            if name is None or not is_word(nodes[i] if i < len(nodes) else None, "as") or i + 1 >= len(nodes):
                return None
            body = nodes[i + 1]
            while isinstance(body, Tok) and i + 2 < len(nodes):  # AS [NOT] MATERIALIZED (...)
                i += 1
                body = nodes[i + 1]
            if not isinstance(body, Group):
                return None
            cols = _through(_select(list(body), scope))
            scope.ctes[name] = _as_source(cols, renames)
            i += 2
            if i < len(nodes) and isinstance(nodes[i], Tok) and nodes[i].text == ",":  # type: ignore[union-attr]
                i += 1
                continue
            break
    arms: list[list[Node]] = [[]]
    for n in nodes[i:]:
        if is_word(n, *COMPOUND):
            arms.append([])
        elif not (is_word(n, "all") and not arms[-1]):
            arms[-1].append(n)
    typed = [_simple_select(arm, scope) for arm in arms]
    first = typed[0]
    if first is None or any(t is None or len(t) != len(first) for t in typed):
        return None
    return [(first[k][0], union([t[k][1] for t in typed if t is not None])) for k in range(len(first))]


def _as_source(cols: list[Column] | None, renames: list[str | None] | None) -> dict[str, Value] | None:
    if cols is None:
        return None
    names = [n for n, _ in cols]
    if renames is not None and len(renames) == len(cols):
        names = renames
    return {n: v for n, (_, v) in zip(names, cols, strict=True) if n is not None}


def _simple_select(nodes: Sequence[Node], scope: Scope) -> list[Column] | None:
    if not nodes or not is_word(nodes[0], "select"):
        return None
    i = 1
    if is_word(nodes[i] if i < len(nodes) else None, "distinct", "all"):
        i += 1
    end = next((k for k in range(i, len(nodes)) if is_word(nodes[k], "from", *CLAUSES)), len(nodes))
    if end < len(nodes) and is_word(nodes[end], "from"):
        stop = next((k for k in range(end + 1, len(nodes)) if is_word(nodes[k], *CLAUSES)), len(nodes))
        if not _from(nodes[end + 1 : stop], scope):
            return None
    out: list[Column] = []
    for item in split_list(nodes[i:end]):
        if not item:
            return None
        if isinstance(item[-1], Tok) and item[-1].text == "*":
            qualifier = name_of(item[0]) if len(item) == 3 else None
            if len(item) not in (1, 3):
                return None
            for src in scope.sources:
                if qualifier is not None and src.alias != qualifier:
                    continue
                if src.columns is None:
                    return None
                out.extend(src.columns.items())
            continue
        alias = None
        if len(item) >= 3 and is_word(item[-2], "as"):
            alias, item = name_of(item[-1]) or (item[-1].text if isinstance(item[-1], Tok) else None), item[:-2]
        elif len(item) >= 2 and name_of(item[-1]) is not None and _operand_end(item[-2]):
            alias, item = name_of(item[-1]), item[:-1]
        value = expression(item, scope)
        if alias is None and len(item) in (1, 3):
            alias = name_of(item[-1]) if len(item) == 1 or is_op(item[1], ".") else None
        out.append((alias, value))
    return out


def _operand_end(node: Node) -> bool:
    """Whether ``node`` may end an expression (so a name after it is an alias)."""
    if isinstance(node, Group) or name_of(node) is not None:
        return True
    return node.kind in ("str", "num") or is_word(node, "end", "null")


def _from(nodes: Sequence[Node], scope: Scope) -> bool:
    """Read a FROM clause into ``scope.sources``; False when its shape is not understood."""
    i, outer_join = 0, False
    while i < len(nodes):
        node = nodes[i]
        columns: dict[str, Value] | None = None
        name = None
        joined: list[Source] | None = None  # a parenthesized join: its tables are sources already
        if isinstance(node, Group):
            if node and is_word(node[0], "select", "with"):
                columns = _as_source(_through(_select(list(node), scope)), None)
            else:
                before = len(scope.sources)
                if not _from(list(node), scope):
                    return False
                joined = scope.sources[before:]
            i += 1
        elif (name := name_of(node)) is not None:
            i += 1
            if i < len(nodes) and isinstance(nodes[i], Group):  # a table-valued function
                i += 1
            elif name in scope.ctes:
                columns = scope.ctes[name]
            elif name in scope.tables:
                columns = {c.name.lower(): column_value(c) for c in scope.tables[name].columns}
        else:
            return False
        alias = name or ""
        if is_word(nodes[i] if i < len(nodes) else None, "as"):
            i += 1
        if i < len(nodes) and name_of(nodes[i]) is not None:
            alias, i = name_of(nodes[i]) or alias, i + 1
        if joined is None:
            scope.sources.append(Source(alias, columns))
            joined = scope.sources[-1:]
        if outer_join:
            _may_be_null(joined)
        # skip ON / USING up to the next source
        while i < len(nodes) and not is_op(nodes[i], ",") and not is_word(nodes[i], *JOINS):
            i += 1
        outer_join = False
        while i < len(nodes) and (is_op(nodes[i], ",") or is_word(nodes[i], *JOINS)):
            if is_word(nodes[i], "left"):
                outer_join = True
            elif is_word(nodes[i], "right", "full"):
                _may_be_null(scope.sources)
                outer_join = is_word(nodes[i], "full")
            i += 1
    return True


def _may_be_null(sources: Sequence[Source]) -> None:
    """The sources are outer-joined: each of their columns may be null."""
    for src in sources:
        if src.columns is not None:
            src.columns = {k: replace(v, nullable=True) for k, v in src.columns.items()}


def _through(cols: list[Column] | None) -> list[Column] | None:
    """Columns seen from outside a derived table or CTE: JSON text loses its subtype there."""
    if cols is None:
        return None
    return [(n, replace(v, subtype=False) if v.json is not None else v) for n, v in cols]


# -- expressions -------------------------------------------------------------------------------------


def expression(nodes: Sequence[Node], scope: Scope) -> Value:
    """What the expression ``nodes`` gives (UNKNOWN where it cannot be told)."""
    if not nodes:
        return UNKNOWN
    if len(nodes) >= 3 and is_word(nodes[-2], "collate"):
        return expression(nodes[:-2], scope)
    if len(nodes) == 1:
        return _atom(nodes[0], scope)
    first, second = nodes[0], nodes[1]
    if len(nodes) == 3 and is_op(second, ".") and name_of(first) and name_of(nodes[2]):
        return scope.lookup(name_of(nodes[2]) or "", name_of(first))
    if is_word(first, "case") and is_word(nodes[-1], "end"):
        return _case(nodes[1:-1], scope)
    if len(nodes) == 2 and is_word(first, "exists") and isinstance(second, Group):
        return Value(dict(BOOL), False)
    if any(is_word(n, *_LOGICAL) or is_op(n, *_COMPARISONS) for n in nodes):
        return Value(dict(BOOL))
    for ops in (("|", "&", "<<", ">>"), ("+", "-"), ("*", "/", "%")):
        parts = _operands(nodes, ops)
        if parts is not None:
            values = [expression(p, scope) for p in parts]
            if ops[0] == "|":
                return Value({"type": "integer"}, any(v.nullable for v in values))
            whole = all(v.schema.get("type") == "integer" for v in values)
            divides = any(is_op(n, "/", "%") for n in nodes)
            return Value({"type": "integer" if whole else "number"}, divides or any(v.nullable for v in values))
    if is_op(first, "-", "+") and len(nodes) == 2:  # a sign
        v = _atom(second, scope)
        return Value({"type": v.schema.get("type") if v.schema.get("type") == "integer" else "number"}, v.nullable)
    parts = _operands(nodes, ("||",))
    if parts is not None:
        return Value(dict(STRING), any(expression(p, scope).nullable for p in parts))
    if isinstance(second, Group) and (name_of(first) is not None or is_word(first, "cast")):
        value = (
            call(first.text.lower(), second, lambda part: expression(part, scope))
            if isinstance(first, Tok)
            else UNKNOWN
        )
        if len(nodes) == 2:
            return value
        if is_word(nodes[2], "filter", "over"):  # an aggregate over a filter or window: may be null
            return replace(value, nullable=True)
    return UNKNOWN


_LOGICAL = frozenset({"or", "and", "not", "is", "in", "like", "glob", "regexp", "match", "between"})
_COMPARISONS = ("=", "==", "<", ">", "<=", ">=", "<>", "!=")


def _operands(nodes: Sequence[Node], ops: Sequence[str]) -> list[list[Node]] | None:
    """``nodes`` split at binary operators ``ops`` (a sign after an operator is not one)."""
    parts: list[list[Node]] = [[]]
    for n in nodes:
        if is_op(n, *ops) and parts[-1] and not (isinstance(parts[-1][-1], Tok) and parts[-1][-1].kind == "op"):
            parts.append([])
        else:
            parts[-1].append(n)
    return parts if len(parts) > 1 else None


def _atom(node: Node, scope: Scope) -> Value:
    if isinstance(node, Group):
        if node and is_word(node[0], "select", "with"):
            return _scalar_subquery(list(node), scope)
        parts = split_list(node)
        return expression(parts[0], scope) if len(parts) == 1 else UNKNOWN
    if node.kind == "str":
        return Value(dict(STRING), False, literals=(node.text,))
    if node.kind == "num":
        whole = node.text.isdigit()
        return Value({"type": "integer" if whole else "number"}, False)
    if is_word(node, "null"):
        return NULL
    if is_word(node, "true", "false"):
        return Value(dict(BOOL), False)
    if is_word(node, "current_date", "current_time", "current_timestamp"):
        return Value(dict(STRING), False)
    name = name_of(node)
    return scope.lookup(name) if name is not None else UNKNOWN


def _scalar_subquery(nodes: list[Node], scope: Scope) -> Value:
    """A ``(SELECT ...)`` value: its one column; null when no row comes back, which an aggregate
    query without GROUP BY or HAVING (exactly one row) rules out."""
    cols = _select(nodes, scope)
    if cols is None or len(cols) != 1:
        return UNKNOWN
    value = cols[0][1]
    if value.json is not None and value.subtype:
        value = replace(value, subtype=None)
    one_row = (
        is_word(nodes[0], "select")
        and not any(is_word(n, "group", "having", "limit", *COMPOUND) for n in nodes)
        and _aggregates(nodes)
    )
    return value if one_row else replace(value, nullable=True)


def _aggregates(nodes: Sequence[Node]) -> bool:
    """Whether the select list of ``nodes`` calls an aggregate function (outside subqueries)."""
    end = next((k for k, n in enumerate(nodes) if is_word(n, "from", *CLAUSES)), len(nodes))

    def walk(seq: Sequence[Node]) -> bool:
        for k, n in enumerate(seq):
            if isinstance(n, Group):
                if n and is_word(n[0], "select", "with"):
                    continue
                if (
                    k > 0
                    and name_of(seq[k - 1]) in AGGREGATES
                    and (len(split_list(n)) == 1 or seq[k - 1] not in _MINMAX)
                ):
                    return True
                if walk(n):
                    return True
        return False

    return walk(nodes[1:end])


_MINMAX = (Tok("word", "min"), Tok("word", "max"))


def _case(nodes: Sequence[Node], scope: Scope) -> Value:
    branches: list[Value] = []
    has_else = False
    current: list[Node] | None = None
    for n in nodes:
        if is_word(n, "then", "else"):
            if current is not None:
                branches.append(expression(current, scope))
            current, has_else = [], has_else or is_word(n, "else")
        elif is_word(n, "when"):
            if current is not None:
                branches.append(expression(current, scope))
            current = None
        elif current is not None:
            current.append(n)
    if current is not None:
        branches.append(expression(current, scope))
    if not branches:
        return UNKNOWN
    value = union(branches)
    return value if has_else else replace(value, nullable=True)
