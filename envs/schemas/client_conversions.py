"""What an MCP client that converts tool schemas itself makes of them, run with the client's own code.

Most clients hand an MCP ``inputSchema`` to their model API as it is, and the vendor rules of
``lint`` say whether the API takes it. google-genai does not: behind ``tools=[session]`` its
``mcp_to_gemini_tool`` turns each schema into Gemini's OpenAPI-style ``Schema`` first, and that
conversion fails on what Gemini's own API accepts (``additionalProperties: false`` raises
``'bool' object has no attribute 'items'``). So the conversion is run here as installed, on each
schema in each shape of dialect (``dialects``): the default, which is written for it, and the strict
one, which it cannot take.

google-genai is an optional dependency: when it is not installed nothing is checked, and
:func:`google_genai_conversions` says so by returning None.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from types import SimpleNamespace
from typing import Any, cast

from .dialects import SHAPES, Dialect, in_dialect

GOOGLE_GENAI = "google-genai"
#: Where a client that fails on a dialect's schemas is pointed.
GEMINI_HINT = "connect google-genai without ?dialect=strict on the MCP URL (the default dialect; docs/clients.md)"
_MAX_PROBLEM_CHARS = 200


@dataclass
class Conversions:
    """One client's conversion of every tool, per dialect: the tools it failed on and why."""

    client: str
    version: str
    tools: int = 0
    failures: dict[Dialect, list[tuple[str, str, str]]] = field(default_factory=lambda: {d: [] for d in SHAPES})

    def converted(self, dialect: Dialect) -> int:
        return self.tools - len(self.failures[dialect])

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "version": self.version,
            "tools": self.tools,
            "dialects": {
                d: {
                    "converted": self.converted(d),
                    "failed": [{"env": e, "tool": t, "problem": p} for e, t, p in self.failures[d]],
                }
                for d in SHAPES
            },
        }


def google_genai_version() -> str | None:
    """The installed google-genai's version, or None."""
    try:
        return version(GOOGLE_GENAI)
    except PackageNotFoundError:
        return None


def google_genai_problem(name: str, description: str, input_schema: dict[str, Any]) -> str | None:
    """Why google-genai's ``mcp_to_gemini_tool`` fails on this tool (None: it converts it)."""
    from google.genai._mcp_utils import mcp_to_gemini_tool  # the path behind tools=[session]

    # it reads an MCP tool by attribute (1.x's inputSchema, or input_schema): no mcp object is needed
    tool = SimpleNamespace(name=name, description=description, inputSchema=input_schema)
    try:
        mcp_to_gemini_tool(cast(Any, tool))
    except Exception as exc:  # whatever the client raises is the finding
        return f"{type(exc).__name__}: {exc}"[:_MAX_PROBLEM_CHARS]
    return None


def google_genai_conversions(tools: Iterable[tuple[str, str, str, dict[str, Any]]]) -> Conversions | None:
    """Run google-genai's conversion on (env id, tool name, description, advertised input schema)
    tuples in every dialect; None when google-genai is not installed."""
    installed = google_genai_version()
    if installed is None:
        return None
    out = Conversions(GOOGLE_GENAI, installed)
    for env_id, name, description, advertised in tools:
        out.tools += 1
        for dialect in SHAPES:
            problem = google_genai_problem(name, description, in_dialect(advertised, dialect))
            if problem is not None:
                out.failures[dialect].append((env_id, name, problem))
    return out
