"""Shared pieces of the tool generators: argument schemas, tool metadata, the builder base."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, get_args

from ..domains.domain import NUMERIC_KINDS, Domain, Entity, Guard, SemanticKind
from ..domains.enforcement import enforced, policy_only
from ..domains.sqlgen import DomainError, pk

#: Kinds stored as text and matched case-insensitively by lookups.
TEXT_KINDS = frozenset(get_args(SemanticKind)) - NUMERIC_KINDS - {"date", "datetime", "boolean"}


@dataclass
class ToolMeta:
    """What a generated tool needs and does, for the dependency graph and the task generator.

    ``inputs`` / ``outputs`` are semantic keys: ``entity.column`` (ids are ``entity.<entity>_id``).
    ``requires`` / ``produces`` are ``entity:state`` pairs a transition needs and leaves.
    """

    tool: str
    kind: str
    entity: str
    role: str  # details | lookup | list | search | transition | create | update
    inputs: dict[str, str] = field(default_factory=dict)  # parameter -> semantic key
    outputs: list[str] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)
    produces: list[str] = field(default_factory=list)
    transition: str | None = None
    attribute: str | None = None
    policy: str = ""  # the action's line in the policy: what it does and every rule about it

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def rule_id(tool: str, index: int) -> str:
    """The id of a tool's ``index``-th rule (its non-owner guards, in order) in ``EnvSpec.rules``."""
    return f"{tool}.{index}"


def a_(noun: str) -> str:
    """'a booking' / 'an account holder'."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def upper_first(text: str) -> str:
    """Capitalize the first letter only ('hsa contribution' -> 'Hsa contribution' is wrong; keep the rest)."""
    return text[:1].upper() + text[1:]


def param_schema(kind: str, values: list[str] | None, description: str) -> dict[str, Any]:
    """The JSON Schema of an argument of a semantic kind."""
    known: dict[str, dict[str, Any]] = {
        "email": {"type": "string", "format": "email"},
        "phone": {"type": "string", "pattern": r"^\+?[0-9]{7,15}$"},
        "date": {"type": "string", "format": "date"},
        "datetime": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"},
        "money": {"type": "number", "minimum": 0},
        "quantity": {"type": "integer", "minimum": 0},
        "integer": {"type": "integer"},
        "percent": {"type": "integer", "minimum": 0, "maximum": 100},
        "rating": {"type": "integer", "minimum": 1, "maximum": 5},
        "boolean": {"type": "boolean"},
    }
    schema = dict(known.get(kind, {"type": "string", "minLength": 1, "maxLength": 200}))
    if kind == "enum":
        schema = {"type": "string", "enum": list(values or [])}
    if description:
        schema["description"] = description
    return schema


def id_schema(entity: Entity) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": f"^{entity.id_prefix}[0-9]+$",
        "description": f"The {entity.human} id, e.g. '{entity.id_prefix}0001'",
    }


def owner_step(record: Entity, key_param: str, bound_as: str, owner_column: str, owner: Entity) -> dict[str, Any]:
    """The step refusing a call on a record (bound as ``bound_as``) that is not the given owner's:
    the agent acts for one customer and never touches another's record."""
    return {
        "kind": "require",
        "sql": f"SELECT :{bound_as}.{owner_column} IS :{owner_column}",
        "message": f"{upper_first(record.human)} {{{key_param}}} does not belong to {owner.human} {{{owner_column}}}",
    }


def object_schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


class ToolBuilderBase:
    """Builds the tools of one domain."""

    def __init__(self, domain: Domain, *, exclude: frozenset[str] = frozenset(), enforce_all: bool = False) -> None:
        self.domain = domain
        self.exclude = exclude  # tools the admission gate rejected
        # every rule checked by the tools, policy-only ones too: the task generator's twin of the
        # environment, on which a call the policy forbids fails like any refused call
        self.enforce_all = enforce_all
        self.tools: list[dict[str, Any]] = []
        self.meta: list[ToolMeta] = []
        self.rules: list[dict[str, Any]] = []

    def add(self, tool: dict[str, Any], meta: ToolMeta, rules: Sequence[tuple[Guard, str]] = ()) -> None:
        """Add a tool; ``rules`` are its rules (guard, plain-English text) in the order of the guards."""
        if tool["name"] in self.exclude:
            return
        if any(t["name"] == tool["name"] for t in self.tools):
            raise DomainError(f"two generated tools are called '{tool['name']}'")
        self.tools.append(tool)
        self.meta.append(meta)
        for i, (guard, text) in enumerate(rules):
            self.rules.append(
                {
                    "id": rule_id(tool["name"], i),
                    "tool": tool["name"],
                    "text": text,
                    "enforced_by": "policy" if policy_only(guard) else "tool",
                }
            )

    def checked(self, guards: list[Guard]) -> list[Guard]:
        """The guards the generated tool checks (every one when building the generator's twin)."""
        return list(guards) if self.enforce_all else enforced(guards)

    def outputs(self, e: Entity) -> list[str]:
        cols = [pk(e)] + [r.column for r in e.references] + [a.name for a in e.attributes]
        return [f"{e.name}.{c}" for c in cols]

    def ref_key(self, e: Entity, column: str) -> str:
        ref = next((r for r in e.references if r.column == column), None)
        return f"{ref.entity}.{ref.entity}_id" if ref else f"{e.name}.{column}"

    # -- reads ----------------------------------------------------------------------------------------


def sample_argument(schema: dict[str, Any], rng: random.Random, clock: datetime) -> Any:
    """A value that satisfies an argument schema of the generated tools."""
    if "enum" in schema:
        return rng.choice(schema["enum"])
    t = schema.get("type")
    if t == "number":
        return round(rng.uniform(1, 50), 2)
    if t == "integer":
        lo, hi = schema.get("minimum", 1), schema.get("maximum", 10)
        return rng.randint(max(lo, 1) if hi > 1 else lo, hi if "maximum" in schema else lo + 9)
    if t == "boolean":
        return rng.random() < 0.5
    if schema.get("format") == "email":
        return f"probe{rng.randint(1000, 9999)}@example.org"
    if schema.get("format") == "date":
        return (clock + timedelta(days=rng.randint(1, 30))).strftime("%Y-%m-%d")
    if "pattern" in schema and schema["pattern"].startswith(r"^\+?"):
        return "+1" + "".join(str(rng.randint(0, 9)) for _ in range(10))
    if "pattern" in schema and schema["pattern"].startswith(r"^\d{4}"):
        return (clock + timedelta(days=rng.randint(1, 30))).strftime("%Y-%m-%d 10:00:00")
    return "Requested by the customer"
