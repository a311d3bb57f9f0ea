"""The values a user asks to be told after the writes: "Afterwards, tell me my new balance due."

Each value the gold writes leave that the user asks for is one question. Two such values with the
same name (the balance due of each of two rentals the user pays) are one question about both,
"Afterwards, tell me the new balance due of each.", never the same sentence twice; the reference
answer names each record beside its value, so neither reads as the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .answers import told_value
from .chain import Chain
from .phrasing import Phrasing, column_noun, spoken_column


def _phrase(chain: Chain, tables: Mapping[str, str], user_table: str, table: str, key: Any) -> str:
    """How the user names the record ``key`` of ``table``: their account, else as a request named it."""
    if table == user_table:
        return "my account"
    return next((g.phrase for g in chain.goals if tables.get(g.entity) == table and g.key == key), "my account")


def ask_after_writes(
    chain: Chain,
    tables: Mapping[str, str],
    user_table: str,
    say: Phrasing,
    outputs: list[str],
    sentences: list[str],
) -> None:
    """Add to ``outputs`` each value of ``chain.outputs`` not yet among them (as the writes left it),
    the sentence that tells it to ``sentences`` where they run alongside, and the question asking for
    it to ``chain.requests``, once for all the values of one name (``tables``: each entity's table)."""
    assert chain.episode is not None
    aligned = len(sentences) == len(outputs)  # a sentence for each value, or for none of them
    found: list[tuple[str, Any, str, str]] = []
    for table, key, col in chain.outputs:
        row = chain.episode.rows_by_key(table, [(key,)])[(key,)]
        if row is not None and row.get(col) is not None and str(row[col]) not in outputs:
            found.append((table, key, col, str(row[col])))
            outputs.append(str(row[col]))
    names = Counter(spoken_column(col) for _, _, col, _ in found)
    asked: set[str] = set()
    for table, key, col, _ in found:
        shared = names[spoken_column(col)] > 1
        if aligned:
            phrase = _phrase(chain, tables, user_table, table, key) if shared else "my account"
            sentences.append(told_value(phrase, column_noun(col), now=True))
        question = say.ask_value(col, each=shared)  # drawn for every value, so later draws stay as they were
        if question not in asked:
            asked.add(question)
            chain.requests.append(question)
