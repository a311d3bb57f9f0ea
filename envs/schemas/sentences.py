"""Description text as sentences, for every schema dialect (``envs.schemas.tool_schemas`` writes it,
``envs.schemas.dialects`` rearranges it). Imports nothing of the engine: ``envfarm mcp`` loads it
before it answers ``initialize``."""

from __future__ import annotations

import re

#: What the description of an optional property ends with (its null means "not given").
OPTIONAL_NOTE = "Optional: null leaves it out."
STOPS = (".", "!", "?")
_PLAIN_WORD = re.compile(r"[a-z][a-z.]*(?:[\s,;:]|$)")  # a first word a sentence capitalizes


def sentence(text: str) -> str:
    """``text`` as a sentence: a plain lowercase first word capitalized ("e.g." -> "E.g."; "kW",
    "item_ids" or "iPhone" are left as written) and a full stop at the end unless it has one.

    >>> sentence("e.g. 'P04' (at most 40 characters)"), sentence("kW to add"), sentence("Done!")
    ("E.g. 'P04' (at most 40 characters).", 'kW to add.', 'Done!')
    """
    text = text.strip().rstrip(",;:").rstrip()
    if not text:
        return text
    if _PLAIN_WORD.match(text):
        text = text[0].upper() + text[1:]
    return text if text.endswith(STOPS) else text + "."
