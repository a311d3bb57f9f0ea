"""Quality measures read from the spec alone, and the spec's ownership structure.

* shapes: a write tool's *skeleton* and a check's *guard kind* are its SQL with every name and value
  replaced by a placeholder, so two tools that differ only in tables, columns and constants share one;
* list parameters and staff tools, from the tool schemas and descriptions;
* the *user table* (whose rows are the people the agent serves) and, for any row, its *owner*: the
  user row reached by following foreign keys — used by the seed and task measures.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..formats.spec import EnvSpec, ForeignKey, QueryStep, RequireStep, TableSpec, ToolSpec
from .text import word_set

_TOKEN = re.compile(
    r"""(?P<skip>\s+|--[^\n]*|/\*.*?\*/)
    |(?P<string>'(?:[^']|'')*')
    |(?P<quoted>"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])
    |(?P<param>[:@$][A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)
    |(?P<number>0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
    |(?P<word>[A-Za-z_]\w*)
    |(?P<op>\|\||->>|->|<=|>=|<>|!=|==|<<|>>|[-+*/%<>=~&|(),.;?])""",
    re.DOTALL | re.VERBOSE,
)
# SQLite keywords kept in a shape (upper-cased). Any other word is a name, unless a "(" follows it:
# then it is a function (lower-cased), except after INTO, where "t (a, b)" is a table and its columns.
_KEYWORDS = word_set(
    """ABORT ALL AND AS ASC BETWEEN BY CASE CAST COLLATE CONFLICT CROSS DEFAULT DELETE DESC DISTINCT DO
    ELSE END ESCAPE EXCEPT EXISTS FAIL FILTER FROM FULL GLOB GROUP HAVING IGNORE IN INNER INSERT INTERSECT
    INTO IS ISNULL JOIN LEFT LIKE LIMIT MATCH NATURAL NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER
    OUTER OVER PARTITION RAISE RECURSIVE REGEXP REPLACE RETURNING RIGHT ROLLBACK SELECT SET THEN UNION
    UPDATE USING VALUES WHEN WHERE WINDOW WITH INTEGER TEXT REAL NUMERIC BLOB FIRST LAST ROWS RANGE
    PRECEDING FOLLOWING UNBOUNDED CURRENT ROW"""
)
_LITERAL_WORDS = frozenset({"TRUE", "FALSE"})
NAME, PARAM, STRING, NUMBER = "<name>", ":p", "'s'", "<n>"
_PLACEHOLDERS = frozenset({NAME, PARAM, STRING, NUMBER})


def sql_shape(sql: str) -> str:
    """``sql`` with names, parameters and literals replaced by placeholders, keywords upper-cased,
    functions lower-cased, whitespace collapsed; a qualified name ``o.total`` is one name, and a
    comma-separated run of the same placeholder is one (a list of like items).

    >>> sql_shape("SELECT o.total FROM orders o WHERE o.id = :order_id AND status = 'open'")
    "SELECT <name> FROM <name> <name> WHERE <name> = :p AND <name> = 's'"
    """
    out: list[str] = []
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(sql) if m.lastgroup != "skip"]
    for i, (kind, text) in enumerate(tokens):
        if kind == "word":
            upper = text.upper()
            follows_paren = i + 1 < len(tokens) and tokens[i + 1][1] == "("
            if upper in _LITERAL_WORDS:
                out.append(NUMBER)
            elif upper in _KEYWORDS:
                out.append(upper)
            elif follows_paren and not (out and out[-1] == "INTO"):
                out.append(text.lower())
            else:
                out.append(NAME)
        elif kind == "quoted":
            out.append(NAME)
        elif kind == "param":
            out.append(PARAM)
        elif kind == "string":
            out.append(STRING)
        elif kind == "number":
            out.append(NUMBER)
        else:
            out.append(text)
        # "<name> . <name>" and "<name> . *" are one qualified name
        if len(out) >= 3 and out[-2] == "." and out[-3] == NAME and out[-1] in (NAME, "*"):
            out[-3:] = [NAME if out[-1] == NAME else f"{NAME}.*"]
        # a list of like items is one item: IN ('a') and IN ('a', 'b') are the same rule
        if len(out) >= 3 and out[-2] == "," and out[-1] == out[-3] and out[-1] in _PLACEHOLDERS:
            del out[-2:]
    return " ".join(out)


def write_skeleton(tool: ToolSpec) -> str:
    """The shape of a tool: its steps in order, each as ``kind: <sql shape>``."""
    return " | ".join(f"{step.kind}: {sql_shape(step.sql)}" for step in tool.steps)


def guard_shapes(tool: ToolSpec) -> list[str]:
    """The shapes of a tool's checks: every ``require`` step (with its mode), and every ``query``
    step that fails with a message when it finds no row (an existence check)."""
    out = []
    for step in tool.steps:
        if isinstance(step, RequireStep):
            out.append(f"require[{step.mode}]: {sql_shape(step.sql)}")
        elif isinstance(step, QueryStep) and step.message and step.expect == "one":
            out.append(f"exists: {sql_shape(step.sql)}")
    return out


def list_parameters(tool: ToolSpec) -> list[str]:
    """Names of the tool's top-level parameters whose JSON type is (or may be) ``array``."""
    out = []
    for name, schema in tool.parameters.get("properties", {}).items():
        kind = schema.get("type") if isinstance(schema, dict) else None
        if kind == "array" or (isinstance(kind, list) and "array" in kind):
            out.append(name)
    return out


# "Warehouse: record ...", "Vault staff: drill ...": a leading role of one to three words. A phrase
# with a determiner ("Settle an ended lease: ...") is a summary, not a role; customer-side roles
# ("Recipient: refund ...") are the user acting on their own records.
_ROLE_MARKER = re.compile(r"^\s*([A-Z][A-Za-z'\-]*(?:\s+[A-Za-z][A-Za-z'\-]*){0,2})\s*:\s")
_NOT_ROLE_WORDS = word_set(
    "a an the one my your our their his her its this that these those some any each every all no "
    "note notes warning important tip example caution"
)
_CUSTOMER_ROLES = word_set(
    "customer user member client guest patient passenger payer recipient sender buyer you owner account"
)
_STAFF_ONLY = re.compile(
    r"\b(?:staff|admin(?:istrator)?s?|back[- ]office|employees?|internal)[- ]only\b"
    r"|\bonly (?:for |by )?(?:staff|admin(?:istrator)?s?|back[- ]office|internal use)\b"
    r"|\bfor internal use\b|\bback[- ]office\b",
    re.IGNORECASE,
)
_STAFF_NAME = re.compile(r"(?:^|_)(?:staff|admin|backoffice)(?:_|$)")


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") else name


def staff_role(tool: ToolSpec, user_table: str | None = None) -> str | None:
    """Why ``tool`` is a staff/back-office action (its role marker or staff-only wording), or None."""
    m = _ROLE_MARKER.match(tool.description)
    if m:
        words = m.group(1).lower().split()
        customer = _CUSTOMER_ROLES | ({_singular(user_table)} if user_table else set())
        if not any(w in _NOT_ROLE_WORDS for w in words) and words[0] not in customer:
            return m.group(1)
    if _STAFF_ONLY.search(tool.description) or _STAFF_NAME.search(tool.name):
        return "staff only"
    return None


def user_table(spec: EnvSpec) -> str | None:
    """The table of the people the agent serves: among tables with an email column, the one that the
    most other tables reference directly or transitively (spec order breaks ties); None if no table
    has an email column."""
    parents = {t.name: {fk.table for fk in t.foreign_keys if fk.table != t.name} for t in spec.tables}
    best: tuple[int, str] | None = None
    for table in spec.tables:
        if not any(c.name == "email" or c.name.endswith("_email") for c in table.columns):
            continue
        reach = sum(
            1 for other in spec.tables if other.name != table.name and _reaches(parents, other.name, table.name)
        )
        if best is None or reach > best[0]:
            best = (reach, table.name)
    return best[1] if best else None


def _reaches(parents: Mapping[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for parent in parents[todo.pop()]:
            if parent == goal:
                return True
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return False


Hop = tuple[ForeignKey, str]  # a foreign key and the table that holds it
MAX_OWNER_HOPS = 4


def owner_paths(spec: EnvSpec, users: str) -> dict[str, list[list[Hop]]]:
    """For each table, the foreign-key paths (at most MAX_OWNER_HOPS long, no table twice) that lead
    to the user table, shortest first, then in foreign-key order."""
    out: dict[str, list[list[Hop]]] = {}
    tables = {t.name: t for t in spec.tables}
    for table in spec.tables:
        found: list[list[Hop]] = []
        todo: deque[tuple[str, list[Hop]]] = deque([(table.name, [])])
        while todo:
            name, path = todo.popleft()
            for fk in tables[name].foreign_keys:
                visited = {table.name, *(fk_.table for fk_, _ in path)}
                if fk.table == users:
                    found.append([*path, (fk, name)])
                elif fk.table not in visited and len(path) + 1 < MAX_OWNER_HOPS:
                    todo.append((fk.table, [*path, (fk, name)]))
        out[table.name] = found
    return out


@dataclass
class State:
    """Rows of every table at one moment, with lazy indexes and owner lookups.

    ``owner(table, row)`` is the user row's key reached by the first owner path that resolves (every
    foreign key set and its row present); the user table's rows own themselves; None: nobody's row
    (a flight, a product, a slot)."""

    spec: EnvSpec
    rows: dict[str, list[dict[str, Any]]]
    users: str | None
    paths: Mapping[str, list[list[Hop]]]
    tables: Mapping[str, TableSpec]
    _index: dict[tuple[str, tuple[str, ...]], dict[tuple[Any, ...], dict[str, Any]]] = field(default_factory=dict)
    _owners: dict[tuple[str, int], Any] = field(default_factory=dict)
    _by_id: dict[Any, list[str]] | None = None
    #: per-row measures computed from this state (rows and their parents never change in a state), by
    #: (measure, table, id(row)): the state holds the rows, so an id is not reused while it lives
    memo: dict[tuple[str, str, int], Any] = field(default_factory=dict)

    def lookup(self, table: str, columns: Iterable[str], values: tuple[Any, ...]) -> dict[str, Any] | None:
        """The row of ``table`` whose ``columns`` equal ``values`` (a primary or unique key)."""
        cols = tuple(columns)
        index = self._index.get((table, cols))
        if index is None:
            index = self._index[(table, cols)] = {tuple(r[c] for c in cols): r for r in self.rows.get(table, [])}
        return index.get(values)

    def key(self, table: str, row: Mapping[str, Any]) -> tuple[Any, ...]:
        """The primary key of ``row``."""
        return tuple(row[c] for c in self.tables[table].primary_key)

    def parent(self, fk: ForeignKey, row: Mapping[str, Any]) -> dict[str, Any] | None:
        """The row that ``row`` references through ``fk`` (None if unset or missing)."""
        values = tuple(row.get(c) for c in fk.columns)
        return None if None in values else self.lookup(fk.table, fk.references, values)

    def owner(self, table: str, row: dict[str, Any]) -> Any:
        """The key of the user row that owns ``row`` (see the class docstring)."""
        if self.users is None:
            return None
        if table == self.users:
            return self.key(table, row)
        memo = (table, id(row))
        if memo not in self._owners:
            self._owners[memo] = self._resolve_owner(table, row)
        return self._owners[memo]

    def _resolve_owner(self, table: str, row: dict[str, Any]) -> Any:
        for path in self.paths.get(table, []):
            current: dict[str, Any] | None = row
            for fk, _ in path:
                current = self.parent(fk, current) if current is not None else None
            if current is not None:
                return self.key(self.users or "", current)
        return None

    def patched(self, tables: dict[str, dict[tuple[Any, ...], dict[str, Any] | None]]) -> State:
        """This state with rows replaced, inserted (by primary key) or deleted (``None``), table by table:
        each patched table keeps primary-key order, as a dump reads it; the other tables keep their rows
        and indexes. A table whose keys cannot be ordered is not patched here (``TypeError``)."""
        rows = dict(self.rows)
        for table, by_key in tables.items():
            pk = self.tables[table].primary_key
            kept, seen = [], set()
            for r in self.rows.get(table, []):
                key = tuple(r[c] for c in pk)
                if key not in by_key:
                    kept.append(r)
                elif (new := by_key[key]) is not None:  # updated in place: the order stays
                    kept.append(new)
                    seen.add(key)
            if inserted := [r for k, r in by_key.items() if r is not None and k not in seen]:
                kept.extend(inserted)
                kept.sort(key=lambda r: tuple(r[c] for c in pk))
            rows[table] = kept
        after = State(self.spec, rows, self.users, self.paths, self.tables)
        after._index = {k: v for k, v in self._index.items() if k[0] not in tables}
        return after

    def tables_with_id(self, value: Any) -> list[str]:
        """Tables with a one-column primary key equal to ``value`` (spec order)."""
        if self._by_id is None:
            self._by_id = {}
            for t in self.spec.tables:
                if len(t.primary_key) == 1:
                    for r in self.rows.get(t.name, []):
                        self._by_id.setdefault(r[t.primary_key[0]], []).append(t.name)
        try:
            return self._by_id.get(value, [])
        except TypeError:  # an unhashable argument (a list or object) names no row
            return []


@dataclass(frozen=True)
class Ownership:
    """The ownership structure of one spec: its user table and owner paths, computed once."""

    spec: EnvSpec
    users: str | None
    paths: Mapping[str, list[list[Hop]]]
    tables: Mapping[str, TableSpec]

    @classmethod
    def of(cls, spec: EnvSpec) -> Ownership:
        users = user_table(spec)
        paths = owner_paths(spec, users) if users else {}
        return cls(spec, users, paths, {t.name: t for t in spec.tables})

    def state(self, rows: dict[str, list[dict[str, Any]]]) -> State:
        """A :class:`State` over ``rows`` (table -> rows)."""
        return State(self.spec, rows, self.users, self.paths, self.tables)
