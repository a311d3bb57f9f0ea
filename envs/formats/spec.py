"""The environment spec: tables, seed data, invariants, policy and tools, as pydantic models.

An environment is data, not code. Every model forbids unknown keys, so a typo in a generated or
hand-written spec fails at load time with the JSON path of the mistake. The format is documented
with an example in ``docs/formats.md``; ``envfarm envs schema`` prints its JSON Schema.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from typing import Annotated, Any, Literal

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from .metaschema import check_schema
from .schema_safety import schema_problem
from .sqltext import nondeterminism, prepare

Identifier = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)]
ColumnType = Literal["text", "integer", "real", "boolean", "json", "date", "datetime"]
Scalar = str | int | float | bool | None

#: Who acts: the agent, or (in a dual-control environment) the user on their own device or account.
Side = Literal["agent", "user"]


def _is_empty(value: list[str]) -> bool:
    return not value


def _is_none(value: object) -> bool:
    return value is None


def is_agent(side: str) -> bool:
    """Dumps leave the default side out: an environment without a user side reads as it always did."""
    return side == "agent"


#: Names every statement may use besides arguments and bindings.
BUILTIN_PARAMS = frozenset({"now", "today"})


# Size limits of a spec, checked at load (a stranger's spec must not be able to take the loader,
# the checker or the server down by sheer size: 10,000 tools took 6 s to check, 2,000,000 seed rows
# gigabytes). Each is far above what a hand-written or synthesized environment needs.
MAX_TABLES = 100
MAX_TOOLS = 500
MAX_STEPS = 50  # per tool
MAX_SQL_CHARS = 20_000  # per step
MAX_INVARIANTS = 200
MAX_RULES = 2_000
MAX_SEED_ROWS = 200_000
MAX_SEED_VALUE_CHARS = 100_000
MAX_POLICY_CHARS = 200_000


class Model(BaseModel):
    """Base for every format model: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class ColumnPools(Model):
    """The values a column takes by the value of another: a session's topic by its tutor's subject, a
    licence's type by its business's. Seeds keep it; the quality report counts rows off it."""

    by: str = Field(
        pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$",
        description="A column of the same row, or '<foreign key column>.<column>' of the row it points to",
    )
    values: dict[str, list[str]] = Field(
        min_length=1, description="A value of 'by' -> the values that fit it; a value left out allows any"
    )


_RELATED = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$"


class ColumnBands(Model):
    """The band a money column's amount falls in by the value of another column: a basic wash's fee
    apart from an ultimate one's, a 5x5 unit's rent apart from a 10x20's. Seeds keep it; the quality
    report counts amounts out of their band (measure 102)."""

    by: str = Field(pattern=_RELATED, description="Read as ``ColumnPools.by``")
    values: dict[str, tuple[float, float]] = Field(
        min_length=1, description="A value of 'by' -> the (low, high) the amount falls in; a value left out is free"
    )


class ColumnRatio(Model):
    """A money column that is a share of another amount: a tip of its bill, a deposit of the rent it
    secures. Seeds keep it; the quality report counts shares out of range (measure 103)."""

    of: str = Field(pattern=_RELATED, description="The amount it is a share of, read as ``ColumnPools.by``")
    share: tuple[float, float] = Field(description="The (low, high) fraction of 'of' an amount above zero is")


class ColumnSpec(Model):
    """One typed column. ``enum`` and ``check`` become SQL CHECK constraints."""

    name: Identifier
    type: ColumnType
    description: str = ""
    nullable: bool = False
    unique: bool = False
    default: Scalar = None
    enum: list[str] | None = None
    check: str | None = Field(None, description="SQL expression over this row, e.g. 'price >= 0'")
    pools: ColumnPools | None = Field(
        None, exclude_if=_is_none, description="The values that fit each value of another column"
    )
    bands: ColumnBands | None = Field(None, exclude_if=_is_none, description="An amount's band by another column")
    ratio: ColumnRatio | None = Field(None, exclude_if=_is_none, description="An amount as a share of another")


class ForeignKey(Model):
    """``columns`` of this table reference ``references`` (primary or unique key) of ``table``."""

    columns: list[Identifier] = Field(min_length=1)
    table: Identifier
    references: list[Identifier] = Field(min_length=1)
    on_delete: Literal["restrict", "cascade", "set null", "no action"] = "restrict"


class TableSpec(Model):
    """A table with its keys and constraints."""

    name: Identifier
    description: str = ""
    columns: list[ColumnSpec] = Field(min_length=1)
    primary_key: list[Identifier] = Field(min_length=1)
    foreign_keys: list[ForeignKey] = []
    unique: list[list[Identifier]] = []
    checks: list[str] = []
    side: Side = Field(
        "agent",
        exclude_if=is_agent,
        description="Whose state the table is: the service's ('agent'), or the user's own device or account "
        "('user'), which only the user's tools change and the agent's tools cannot see",
    )
    full_text: list[Identifier] = Field(
        [],
        exclude_if=_is_empty,
        description="Text columns indexed for full-text search (a document collection): the engine builds the "
        "FTS5 table '<name>_fts' over them, ranked by BM25; tools read the table and search the index, and "
        "none may change the table",
    )

    @model_validator(mode="after")
    def _keys_name_columns(self) -> TableSpec:
        names = [c.name for c in self.columns]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"table '{self.name}' repeats column(s) {sorted(dupes)}")
        known = set(names)
        for label, cols in (
            [("primary_key", self.primary_key)]
            + [(f"unique[{i}]", u) for i, u in enumerate(self.unique)]
            + [(f"foreign_keys[{i}].columns", fk.columns) for i, fk in enumerate(self.foreign_keys)]
        ):
            missing = [c for c in cols if c not in known]
            if missing:
                raise ValueError(f"table '{self.name}' {label} names unknown column(s) {missing}")
        for name in self.full_text:
            column = self.column(name)
            if column is None:
                raise ValueError(f"table '{self.name}' full_text names unknown column '{name}'")
            if column.type != "text":
                raise ValueError(f"table '{self.name}' full_text column '{name}' is {column.type}, not text")
        if len(set(self.full_text)) != len(self.full_text):
            raise ValueError(f"table '{self.name}' full_text names a column twice")
        return self

    @property
    def search_table(self) -> str | None:
        """The FTS5 table the engine builds over ``full_text`` (None without one)."""
        return f"{self.name}_fts" if self.full_text else None

    def column(self, name: str) -> ColumnSpec | None:
        """The column called ``name``, if any."""
        return next((c for c in self.columns if c.name == name), None)


class Invariant(Model):
    """A rule that must hold in every reachable state.

    ``violations`` is a SELECT returning the offending rows; the invariant holds when it returns none.
    """

    name: Identifier
    description: str
    violations: str


class _StepBase(Model):
    sql: str = Field(min_length=1, max_length=MAX_SQL_CHARS)
    for_each: str | None = Field(
        None,
        description="Name of an array argument: run this step once per element, "
        "bound as :item (and :item.<field> for objects) and :index.",
    )


class QueryStep(_StepBase):
    """Run a SELECT and bind its row(s) under ``bind`` for later steps (``:bind.column``)."""

    kind: Literal["query"]
    bind: Identifier
    expect: Literal["one", "optional", "many"] = "one"
    message: str | None = Field(
        None, description="Error when expect='one' and no row matches, e.g. 'Order {order_id} not found'"
    )


class RequireStep(_StepBase):
    """A precondition. ``mode='true'``: the first column of the first row must be truthy.
    ``mode='empty'``: the query returns offending rows and must return none; the message may name
    the first offending row's columns."""

    kind: Literal["require"]
    mode: Literal["true", "empty"] = "true"
    message: str = Field(min_length=1)


class ExecStep(_StepBase):
    """An INSERT, UPDATE or DELETE. ``min_changes`` rows must be affected, else ``message``."""

    kind: Literal["exec"]
    min_changes: int = Field(0, ge=0)
    message: str | None = None


class ReturnStep(_StepBase):
    """The SELECT whose rows are the tool's result. ``json_columns`` hold JSON text to nest.

    With ``shape='one'``, no row is a null result, unless ``message`` is given: then no row fails
    the call with it, the result is always an object, and the tool declares an output schema."""

    kind: Literal["return"]
    shape: Literal["one", "many", "value"] = "many"
    json_columns: list[str] = []
    message: str | None = Field(
        None,
        description="shape 'one' only: the error when no row matches (the result is then always an object)",
    )

    @model_validator(mode="after")
    def _message_needs_one(self) -> ReturnStep:
        if self.message is not None and self.shape != "one":
            raise ValueError("a return step's message applies to shape 'one' only")
        return self


class CallStep(_StepBase):
    """Run another tool of the spec, named by data: the SELECT returns at most one row with columns
    ``tool`` (its name) and ``arguments`` (a JSON object as text; NULL is no arguments). The tool runs
    in the same transaction, with the caller's reach, its arguments checked against its own schema;
    its result is bound as ``bind``. No row: nothing runs and ``bind`` is NULL. The tool named must be
    of the caller's actor, and a read tool may call only read tools."""

    kind: Literal["call"]
    bind: Identifier


Step = Annotated[QueryStep | RequireStep | ExecStep | ReturnStep | CallStep, Field(discriminator="kind")]
#: How deep ``call`` steps may nest (a tool that calls a tool that calls ...).
MAX_CALL_DEPTH = 8
_DML = re.compile(r"^\s*(with\b.*?\)\s*)?(insert|update|delete|replace)\b", re.IGNORECASE | re.DOTALL)


class ToolSpec(Model):
    """A tool: JSON-Schema parameters and ordered steps run in one transaction."""

    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]*$", max_length=64)]
    description: str = Field(min_length=1)
    kind: Literal["read", "write"]
    actor: Side = Field(
        "agent",
        exclude_if=is_agent,
        description="Who calls it: the agent, or the user ('user': reads any table, writes only the user's)",
    )
    also_writes: list[Identifier] = Field(
        [],
        exclude_if=_is_empty,
        description="Dual control: tables of the other side this tool may also read and write, where the two "
        "sides' systems mirror each other (the carrier's line status shown on the phone, a payment made on the "
        "phone marking the carrier's bill paid)",
    )
    listed: bool = Field(
        True,
        exclude_if=lambda listed: listed,
        description="False: the tool is never shown to its actor nor callable directly; only another tool's "
        "'call' step runs it (tools unlocked by what the agent finds, dispatched by name)",
    )
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}, "additionalProperties": False}
    )
    steps: list[Step] = Field(min_length=1, max_length=MAX_STEPS)

    @field_validator("parameters")
    @classmethod
    def _parameters_are_object_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        if schema.get("type") != "object":
            raise ValueError('parameters must be a JSON Schema with "type": "object" at the root')
        if (problem := schema_problem(schema)) is not None:  # first: check_schema would follow a bad $ref
            raise ValueError(f"parameters is not a safe schema {problem}")
        try:
            check_schema(schema)
        except jsonschema.SchemaError as exc:
            path = "/".join(str(p) for p in exc.absolute_path) or "(root)"
            raise ValueError(f"parameters is not valid JSON Schema at {path}: {exc.message}") from exc
        return schema

    @model_validator(mode="after")
    def _steps_are_coherent(self) -> ToolSpec:
        properties: dict[str, Any] = self.parameters.get("properties", {})
        known = set(properties) | BUILTIN_PARAMS
        returns = [i for i, s in enumerate(self.steps) if s.kind == "return"]
        if len(returns) > 1 or (returns and returns[0] != len(self.steps) - 1):
            raise ValueError(f"tool '{self.name}': a 'return' step may appear once, as the last step")
        for i, step in enumerate(self.steps):
            where = f"tool '{self.name}' steps[{i}]"
            scope = set(known)
            if step.for_each is not None:
                if step.kind in ("query", "return", "call"):
                    raise ValueError(f"{where}: for_each is allowed on 'require' and 'exec' steps only")
                prop = properties.get(step.for_each)
                if prop is None or prop.get("type") != "array":
                    raise ValueError(f"{where}: for_each '{step.for_each}' must name an array parameter")
                scope |= {"item", "index"}
            if bad := nondeterminism(step.sql):
                raise ValueError(f"{where}: {', '.join(bad)} is not deterministic; use :now / :today or new_id()")
            unknown = sorted(prepare(step.sql).roots - scope)
            if unknown:
                raise ValueError(
                    f"{where}: SQL uses :{unknown[0]}, which is neither a parameter nor an earlier "
                    f"binding (known: {', '.join(sorted(scope)) or 'none'})"
                )
            if step.kind == "exec" and not _DML.match(step.sql):
                raise ValueError(f"{where}: an 'exec' step must be INSERT, UPDATE or DELETE")
            if step.kind == "exec" and self.kind == "read":
                raise ValueError(f"{where}: read tool '{self.name}' has an 'exec' step")
            if step.kind in ("query", "call"):
                if step.bind in known:
                    raise ValueError(f"{where}: bind '{step.bind}' shadows a parameter or binding")
                known.add(step.bind)
        return self

    @property
    def required_params(self) -> list[str]:
        """Names the JSON Schema marks required."""
        return list(self.parameters.get("required", []))


class RuleSpec(Model):
    """A rule of the policy about one write tool, and where it lives (docs/formats.md, "Rules").

    ``enforced_by: tool``: a ``require`` step of the tool refuses a call that breaks it;
    ``policy``: only the policy states it, and the tool allows the action, so an agent that acts
    against it changes the state where the task expects none.
    """

    id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9_.:-]+$", max_length=160)]
    tool: Identifier
    text: str = Field(min_length=1, max_length=2_000)
    enforced_by: Literal["tool", "policy"]


class EnvSpec(Model):
    """A whole environment. In the catalog, ``policy`` and ``seed`` live in their own files."""

    format_version: Literal[1] = 1
    id: Identifier
    name: str = Field(min_length=1)
    sector: str = Field(min_length=1)
    description: str = Field(min_length=1)
    policy: str = ""
    clock: datetime = Field(
        datetime(2026, 1, 15, 9, 0, 0),
        description="The fixed 'now' of every episode (ISO 8601, no timezone = UTC)",
    )
    tables: list[TableSpec] = Field(min_length=1, max_length=MAX_TABLES)
    seed: dict[str, list[dict[str, Any]]] = {}
    invariants: list[Invariant] = Field([], max_length=MAX_INVARIANTS)
    tools: list[ToolSpec] = Field(min_length=1, max_length=MAX_TOOLS)
    rules: list[RuleSpec] = Field([], max_length=MAX_RULES, description="The policy's rules about write tools")
    user_guide: str = Field(
        "",
        exclude_if=lambda guide: guide == "",
        description="For the user simulator of a dual-control environment: what the user sees and can do "
        "with their own tools (markdown)",
    )
    knowledge_policies: dict[Literal["full", "required", "none", "embeddings"], str] = Field(
        {},
        exclude_if=lambda policies: not policies,
        description="With a document collection: the agent's policy in an episode whose documents are all in its "
        "prompt (full), only the task's required ones (required), none (none), or searched by meaning "
        "(embeddings), in place of the policy (with the documents appended); {{documents}} marks where they go "
        "(docs/serving.md)",
    )

    @model_validator(mode="after")
    def _within_size_limits(self) -> EnvSpec:
        if len(self.policy) > MAX_POLICY_CHARS:
            raise ValueError(f"policy has {len(self.policy):,} characters; the limit is {MAX_POLICY_CHARS:,}")
        if len(self.user_guide) > MAX_POLICY_CHARS:
            raise ValueError(f"user_guide has {len(self.user_guide):,} characters; the limit is {MAX_POLICY_CHARS:,}")
        for mode, text in self.knowledge_policies.items():
            if len(text) > MAX_POLICY_CHARS:
                raise ValueError(
                    f"knowledge_policies.{mode} has {len(text):,} characters; the limit is {MAX_POLICY_CHARS:,}"
                )
            if mode in ("full", "required") and "{{documents}}" not in text:
                raise ValueError(f"knowledge_policies.{mode} must mark where the documents go with {{{{documents}}}}")
        if self.knowledge_policies and not any(t.full_text for t in self.tables):
            raise ValueError("knowledge_policies needs a document collection (a table with full_text)")
        rows = sum(len(r) for r in self.seed.values())
        if rows > MAX_SEED_ROWS:
            raise ValueError(f"seed has {rows:,} rows; the limit is {MAX_SEED_ROWS:,}")
        for name, table_rows in self.seed.items():
            for j, row in enumerate(table_rows):
                for column, value in row.items():
                    if isinstance(value, str) and len(value) > MAX_SEED_VALUE_CHARS:
                        raise ValueError(
                            f"seed.{name}[{j}].{column} has {len(value):,} characters; "
                            f"the limit is {MAX_SEED_VALUE_CHARS:,}"
                        )
        return self

    @model_validator(mode="after")
    def _references_resolve(self) -> EnvSpec:
        tables = {t.name: t for t in self.tables}
        if len(tables) != len(self.tables):
            raise ValueError("two tables share a name")
        for t in self.tables:
            clash = next((n for n in tables if t.search_table and n.startswith(t.search_table)), None)
            if clash is not None:
                raise ValueError(f"table '{clash}' takes the name of the search index of table '{t.name}'")
        for t in self.tables:
            for i, fk in enumerate(t.foreign_keys):
                target = tables.get(fk.table)
                if target is None:
                    raise ValueError(f"table '{t.name}' foreign_keys[{i}] references unknown table '{fk.table}'")
                missing = [c for c in fk.references if target.column(c) is None]
                if missing:
                    raise ValueError(
                        f"table '{t.name}' foreign_keys[{i}] references unknown column(s) {missing} of '{fk.table}'"
                    )
                if len(fk.references) != len(fk.columns):
                    raise ValueError(f"table '{t.name}' foreign_keys[{i}]: columns and references differ in length")
        for t in self.tables:
            for c in t.columns:
                related = [("pools", "by", c.pools and c.pools.by), ("bands", "by", c.bands and c.bands.by)]
                for field, name, by in [*related, ("ratio", "of", c.ratio and c.ratio.of)]:
                    if by and (problem := _related_problem(t, f"'{name}' ('{by}')", by, tables)):
                        raise ValueError(f"table '{t.name}' column '{c.name}' {field}: {problem}")
        for name, rows in self.seed.items():
            table = tables.get(name)
            if table is None:
                raise ValueError(f"seed names unknown table '{name}'")
            cols = {c.name for c in table.columns}
            for j, row in enumerate(rows):
                extra = sorted(set(row) - cols)
                if extra:
                    raise ValueError(f"seed.{name}[{j}] has unknown column(s) {extra}")
        names = [tool.name for tool in self.tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"tool name(s) {dupes} appear more than once")
        kinds = {tool.name: tool.kind for tool in self.tools}
        for i, rule in enumerate(self.rules):
            if kinds.get(rule.tool) != "write":
                raise ValueError(f"rules[{i}] ('{rule.id}') names '{rule.tool}', which is not a write tool")
        if dupes := sorted(i for i, n in Counter(r.id for r in self.rules).items() if n > 1):
            raise ValueError(f"rule id(s) {dupes} appear more than once")
        return self

    @model_validator(mode="after")
    def _both_sides_hold_together(self) -> EnvSpec:
        actors = {tool.name: tool.actor for tool in self.tools}
        for i, rule in enumerate(self.rules):
            if actors.get(rule.tool) == "user":
                raise ValueError(
                    f"rules[{i}] ('{rule.id}') names the user's tool '{rule.tool}': the policy binds the agent"
                )
        sides = {table.name: table.side for table in self.tables}
        for tool in self.tools:
            for name in tool.also_writes:
                if name not in sides:
                    raise ValueError(f"tool '{tool.name}': also_writes names unknown table '{name}'")
                if sides[name] == tool.actor:
                    raise ValueError(
                        f"tool '{tool.name}': also_writes names '{name}', a table of its own side (the "
                        f"{tool.actor}'s), which it writes anyway"
                    )
            if len(set(tool.also_writes)) != len(tool.also_writes):
                raise ValueError(f"tool '{tool.name}': also_writes names a table twice")
        if not self.dual_control:
            return self
        if not self.tables_of("user"):
            raise ValueError("user tools need a table with side 'user' (the state they change)")
        if not self.tools_of("agent"):
            raise ValueError("every tool is the user's: the agent needs at least one tool")
        if not self.user_guide.strip():
            raise ValueError("user_guide is empty: a dual-control environment tells the user what they see and can do")
        return self

    @property
    def dual_control(self) -> bool:
        """Whether the user acts too: some tool or table is the user's."""
        return any(t.actor == "user" for t in self.tools) or any(t.side == "user" for t in self.tables)

    def tables_of(self, side: Side) -> list[TableSpec]:
        """The tables whose state is ``side``'s."""
        return [t for t in self.tables if t.side == side]

    def tools_of(self, actor: Side) -> list[ToolSpec]:
        """The tools ``actor`` is shown and calls directly (unlisted ones run only through a 'call' step)."""
        return [t for t in self.tools if t.actor == actor and t.listed]

    def rule(self, rule_id: str) -> RuleSpec | None:
        """The rule with id ``rule_id``, if any."""
        return next((r for r in self.rules if r.id == rule_id), None)

    def table(self, name: str) -> TableSpec:
        """The table called ``name`` (KeyError if none)."""
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)

    def tool(self, name: str) -> ToolSpec | None:
        """The tool called ``name``, if any."""
        return next((t for t in self.tools if t.name == name), None)


def _related_problem(table: TableSpec, said: str, by: str, tables: dict[str, TableSpec]) -> str | None:
    """What is wrong with a column's ``pools.by``, ``bands.by`` or ``ratio.of`` (``said``, as the message
    names it; None: nothing): it names no column it can read."""
    fk_column, _, name = by.rpartition(".")
    owner: TableSpec | None = table
    if fk_column:
        fk = next((f for f in table.foreign_keys if f.columns == [fk_column]), None)
        if fk is None:
            return f"{said} names '{fk_column}', which is no one-column foreign key of '{table.name}'"
        owner = tables.get(fk.table)
    if owner is None or owner.column(name) is None:
        return f"{said} names no column '{name}' of '{owner.name if owner else table.name}'"
    return None
