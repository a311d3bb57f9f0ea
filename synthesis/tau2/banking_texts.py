"""tau2's own descriptions of banking_knowledge's discoverable tools, read from a tau2 checkout at import time.

Unlocking a tool (``unlock_discoverable_agent_tool``) or handing one to the customer
(``give_discoverable_user_tool``) shows the tool's description and parameters as tau2 parses them
from the method's docstring (``parse_discoverable_tool_docstring``, ``format_discoverable_tool_for_agent``
in its ``tools.py``). The descriptions this repository ships are its own words; when the folder being
imported sits in a tau2 checkout (``data/tau2/domains/banking_knowledge`` beside
``src/tau2/domains/banking_knowledge/tools.py``), or a ``tools.py`` is put in the folder, the docstrings are
read from it — parsed, never run — and those results are tau2's text exactly.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .banking_tools import info_text
from .inputs import Tau2ImportError, read_text

#: Where tau2's ``tools.py`` is looked for, relative to the banking_knowledge data folder.
SOURCES = ("tools.py", "../../../../src/tau2/domains/banking_knowledge/tools.py")
_DECORATOR = "is_discoverable_tool"
_ARGS = re.compile(r"\n\s*Args:\s*\n")
_RETURNS = re.compile(r"\n\s*Returns:\s*\n")
_ARG = re.compile(r"^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$", re.MULTILINE)
_OPTIONAL = re.compile(r",?\s*optional", re.IGNORECASE)


def find_source(data_dir: Path) -> Path | None:
    """tau2's ``tools.py`` for the folder, if there is one."""
    for relative in SOURCES:
        path = (data_dir / relative).resolve()
        if path.is_file():
            return path
    return None


def parse_docstring(name: str, docstring: str) -> tuple[str, str]:
    """tau2's description of a tool and what unlocking it shows (``Tool: …\\nDescription: …\\nParameters: …``),
    parsed from its docstring as tau2 parses it."""
    parts = _ARGS.split(docstring, maxsplit=1)
    description = parts[0].strip()
    params: list[tuple[str, str, bool, str]] = []
    if len(parts) > 1:
        section = _RETURNS.split(parts[1], maxsplit=1)[0]
        seen: dict[str, int] = {}
        for match in _ARG.finditer(section):
            type_info = match.group(2) or "string"
            kind = _OPTIONAL.sub("", type_info).strip() or "string"
            entry = (match.group(1), kind, "optional" not in type_info.lower(), match.group(3).strip())
            if match.group(1) in seen:  # a dict keeps the first position and the last value
                params[seen[match.group(1)]] = entry
            else:
                seen[match.group(1)] = len(params)
                params.append(entry)
    return description, info_text(name, description, params)


def tool_texts(source: Path) -> dict[str, tuple[str, str]]:
    """Every discoverable tool of tau2's ``tools.py``: its description and what unlocking it shows.

    Raises:
        Tau2ImportError: the file is not Python.
    """
    try:
        tree = ast.parse(read_text(source), filename=str(source))
    except SyntaxError as exc:
        raise Tau2ImportError(f"{source}: not Python ({exc.msg}, line {exc.lineno})") from None
    found: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Name) and target.id == _DECORATOR:
                found[node.name] = parse_docstring(node.name, ast.get_docstring(node, clean=True) or "")
    return found
