"""Names from a run (environments, sectors, failure signatures, model names) as text, whatever they
hold: a sector named ``$$`` would otherwise be mathtext to matplotlib (and fail the figure), and
``<script>`` or ``|`` would be markup in summary.md. The page escapes with ``html.escape``."""

from __future__ import annotations

import re

# Markdown's inline syntax, HTML, GitHub's math ($) and table cells (|); an underscore only where it
# could start or end emphasis (env_07 stays as it is: CommonMark reads no emphasis inside a word).
_MARKDOWN_SPECIAL = re.compile(r"[\\`*\[\]|~$<>&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def one_line(value: object) -> str:
    """``value`` as text on one line: a newline would end a table row or a list item."""
    return " ".join(str(value).split())


def markdown_text(value: object) -> str:
    """``value`` as Markdown that renders as exactly its text."""
    return _MARKDOWN_SPECIAL.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), one_line(value))


def markdown_code(value: object) -> str:
    """``value`` as a Markdown code span, fenced by more backticks than it holds in a row."""
    text = one_line(value)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plot_text(value: object) -> str:
    """``value`` as matplotlib text: ``$`` escaped, so nothing is read as mathtext."""
    return str(value).replace("$", r"\$")
