"""JSON Schemas of the file formats, for LLM generators and editors (``envfarm envs schema``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import TypeAdapter

from .spec import EnvSpec
from .task import Task

SchemaKind = Literal["spec", "task", "tasks"]
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def format_schema(kind: SchemaKind) -> dict[str, Any]:
    """The JSON Schema of an environment spec, a task, or a tasks file (a list of tasks).

    >>> format_schema("task")["title"]
    'Task'
    """
    if kind == "spec":
        schema = EnvSpec.model_json_schema()
    elif kind == "task":
        schema = Task.model_json_schema()
    elif kind == "tasks":
        schema = TypeAdapter(list[Task]).json_schema()
        schema["title"] = "Tasks"
    else:
        raise ValueError(f"unknown schema kind '{kind}'; expected spec, task or tasks")
    return {"$schema": _DIALECT, **schema}
