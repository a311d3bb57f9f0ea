"""Typed errors raised by the environment model.

The hierarchy::

    EnvFarmError
    ├── SpecError               a spec, task or catalog file is invalid (names file and JSON path)
    │   ├── CatalogError        a catalog directory cannot be read
    │   └── SchemaMismatch      the database built from a spec is not the one it declares
    ├── UnknownEnvironment      no environment with that id ("Did you mean ...")
    ├── UnknownTask             no task with that id
    ├── UnknownDialect          no schema dialect of that name (names the field and the value)
    └── ToolError               a tool call failed; the episode state is unchanged
        ├── UnknownTool         no tool with that name in this environment
        ├── ToolArgumentError   arguments do not match the tool's JSON Schema (names the field)
        ├── StateError          a precondition of the tool does not hold (the step's message)
        └── SandboxError        the SQL tried something the sandbox forbids, or ran out of budget
            └── IdLimitReached  the episode has made as many new ids as it may

`ToolError` and its subclasses are *agent-facing*: their message is safe to show to an agent and
is what a server returns as an `isError` tool result. Everything else is for operators.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class EnvFarmError(Exception):
    """Base class of every error envfarm raises on purpose."""


class SpecError(EnvFarmError):
    """A spec, task or catalog file does not validate.

    Attributes:
        source: the file (or other origin) the bad data came from, if known.
        location: the JSON path inside it, e.g. ``tools[3].steps[0].sql``.
    """

    def __init__(self, message: str, *, source: str | None = None, location: str | None = None) -> None:
        self.source = source
        self.location = location
        prefix = ""
        if source:
            prefix += f"{source}: "
        if location:
            prefix += f"at {location}: "
        super().__init__(prefix + message)


class CatalogError(SpecError):
    """A catalog directory is missing or malformed."""


class SchemaMismatch(SpecError):
    """SQLite built a table unlike the spec's declaration: SQL text spliced into the DDL (a CHECK, a
    DEFAULT) added a column, hid one, or cut the rest of the statement off.

    Attributes:
        table: the table's name.
        column: the column that differs (one the spec does not declare, or one missing), if any.
    """

    def __init__(self, message: str, *, table: str, column: str | None = None, location: str | None = None) -> None:
        self.table = table
        self.column = column
        super().__init__(message, location=location)


#: The longest name (of a tool, an environment, a task, an episode) said back in full. MCP allows tool
#: names of 1–128 characters; a longer one a caller sends is no name of ours, and is shown cut.
MAX_NAME_CHARS = 128


def shown_name(name: str) -> str:
    """``name`` as an error message or the call log shows it: whole up to ``MAX_NAME_CHARS``, else its
    start and its length (a megabyte "tool name" must not cost the log a megabyte)."""
    if len(name) <= MAX_NAME_CHARS:
        return name
    return f"{name[:48]}… ({len(name):,} characters)"


def _did_you_mean(name: str, choices: Iterable[str]) -> str:
    if len(name) > MAX_NAME_CHARS:  # no name of ours is that long, and comparing it costs its length
        return ""
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.5)
    if not close:
        return ""
    return " Did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


class UnknownEnvironment(EnvFarmError):
    """No environment with the requested id exists in the catalog."""

    def __init__(self, env_id: str, known: Iterable[str] = ()) -> None:
        self.env_id = env_id
        super().__init__(f"Environment '{shown_name(env_id)}' doesn't exist.{_did_you_mean(env_id, known)}")


class InvalidEnvironment(SpecError):
    """An environment is in the catalog but its files do not validate, so it is not served; the others
    are. Reads as the validation error it wraps (same message, ``source`` and ``location``).

    Attributes:
        env_id: the environment's id.
        reason: the validation error with its file named relative to the catalog, for a server's
            clients (they are not told where the catalog lies).
    """

    def __init__(self, env_id: str, error: SpecError, *, catalog_root: str) -> None:
        Exception.__init__(self, str(error))
        self.source, self.location = error.source, error.location
        self.env_id = env_id
        self.reason = str(error).replace(catalog_root.rstrip("/") + "/", "")

    def served_message(self) -> str:
        """What a client of the server is told."""
        return f"Environment '{self.env_id}' is in the catalog but invalid, so it is not served: {self.reason}"


class UnknownTask(EnvFarmError):
    """No task with the requested id exists."""

    def __init__(self, task_id: str, known: Iterable[str] = ()) -> None:
        self.task_id = task_id
        super().__init__(f"Task '{shown_name(task_id)}' doesn't exist.{_did_you_mean(task_id, known)}")


class UnknownDialect(EnvFarmError):
    """No schema dialect of that name (``envs.schemas.dialects``).

    Attributes:
        value: the name asked for.
        field: where it was asked for (a query parameter, a body field, a CLI option).
    """

    def __init__(self, value: str, known: Iterable[str], *, field: str = "dialect") -> None:
        self.value = value
        self.field = field
        names = list(known)
        super().__init__(
            f"{field}: unknown schema dialect {value!r}; choose one of {', '.join(names)}.{_did_you_mean(value, names)}"
        )


class ToolError(EnvFarmError):
    """A tool call failed. The message is meant for the agent; state is unchanged."""


class UnknownTool(ToolError):
    """The environment has no tool of that name."""

    def __init__(self, name: str, known: Iterable[str] = ()) -> None:
        self.tool = name
        super().__init__(f"Tool '{shown_name(name)}' not found.{_did_you_mean(name, known)}")


class ToolArgumentError(ToolError):
    """The arguments do not satisfy the tool's JSON Schema.

    Attributes:
        field: dotted path of the offending argument ("" for the whole object).
    """

    def __init__(self, message: str, *, field: str = "") -> None:
        self.field = field
        super().__init__(message)


class StateError(ToolError):
    """A precondition of the tool does not hold in the current state (or a constraint failed)."""


class SandboxError(ToolError):
    """The tool's SQL did something the sandbox forbids, or exceeded its step budget."""


class IdLimitReached(SandboxError):
    """``new_id()`` was called after the episode made the most ids it may (or with too long a prefix)."""


class ResultError(ToolError):
    """The tool's result cannot be given as JSON (it holds NaN or an infinity); the call is undone."""
