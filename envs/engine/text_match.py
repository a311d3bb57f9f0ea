"""SQL functions that split and match text as a Python service does, for tools ported from one
(τ³'s knowledge base: BM25 over ``text.lower().split()`` tokens, grep by regular expression).

* ``split_words(text)``: the JSON array of ``text.lower().split()`` — Python's own lowering and
  whitespace splitting (any Unicode whitespace), which SQLite's ``lower`` and ``instr`` cannot
  reproduce;
* ``pattern_count(pattern, text)``: how many non-overlapping matches of the regular expression
  ``pattern`` ``text`` holds, ignoring case (Python's ``len(re.findall(pattern, text, re.I))``); a
  pattern Python cannot compile counts as the literal text, as a service that escapes a bad pattern
  does. Matching runs on RE2, in time linear in the text, so no pattern can stall a call; a pattern
  only Python's backtracking engine runs (a back-reference, a look-around) is matched as the literal
  text as well.

>>> split_words("Annual FEE\\twaived  for Gold")
'["annual", "fee", "waived", "for", "gold"]'
>>> pattern_count("credit.*card|fee", "Credit card FEES and a fee."), pattern_count("*fee", "a *fee")
(3, 1)
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import re2

MAX_PATTERN_CHARS = 1_000
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.case_sensitive = False


def split_words(text: Any) -> str | None:
    if text is None:
        return None
    return json.dumps(str(text).lower().split())


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    try:
        re.compile(pattern, re.IGNORECASE)  # only to learn whether Python reads it; nothing is matched
    except (re.error, RecursionError, OverflowError):
        pattern = re.escape(pattern)
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error:
        return re2.compile(re.escape(pattern), _OPTIONS)


def pattern_count(pattern: Any, text: Any) -> int | None:
    if pattern is None or text is None:
        return None
    pattern = str(pattern)[:MAX_PATTERN_CHARS]
    return sum(1 for _ in _compiled(pattern).finditer(str(text)))


def install_text_match(conn: Any) -> None:
    """Add ``split_words`` and ``pattern_count`` to ``conn`` (an ``sqlite3.Connection``)."""
    conn.create_function("split_words", 1, split_words, deterministic=True)
    conn.create_function("pattern_count", 2, pattern_count, deterministic=True)
