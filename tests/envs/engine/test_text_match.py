"""Text split and matched as Python does, inside SQL (``envs.engine.text_match``): the same words as
``str.lower().split()``, the same match counts as ``re.findall`` for what both engines read, and no
pattern that can stall a call."""

from __future__ import annotations

import json
import re

import pytest

from envs.engine.text_match import pattern_count, split_words
from envs.formats.knowledge_modes import document_tools
from envs.formats.spec import EnvSpec

TEXT = "The Gold card's annual FEE is $95.\nFees\u00a0are waived\tin year one; see fee-schedule (2026) or fee|charge."


def test_split_words_is_pythons_lower_and_split():
    for text in (TEXT, "", "   ", "ÉCOLE straße İstanbul", "a\u2003b\u3000c"):
        assert json.loads(split_words(text) or "null") == text.lower().split()
    assert split_words(None) is None


@pytest.mark.parametrize(
    "pattern",
    ["fee", "FEE", "fee|charge", "f.e", "fee[s]?", r"\$\d+", r"\bfee\b", "card.*fee", "(fee)(s)", "", "^the", "one;$"],
)
def test_pattern_count_is_pythons_findall_count_ignoring_case(pattern: str):
    assert pattern_count(pattern, TEXT) == len(re.findall(pattern, TEXT, re.IGNORECASE))


def test_a_pattern_python_cannot_read_counts_as_its_text():
    for bad in ("fee(", "*fee", "fee[", "(?P<x"):
        assert pattern_count(bad, TEXT + " " + bad) == 1, bad
    assert pattern_count(r"(fee)\1", "feefee fee") == 0  # a back-reference: read as its own text


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|a)*b", "(.*a){20}"])
def test_no_pattern_stalls(pattern: str):
    """Patterns that take a backtracking engine exponential time end at once on RE2."""
    assert pattern_count(pattern, "a" * 20_000 + "!") is not None


def test_document_tools_are_read_tools_over_documents_and_tables_no_tool_changes():
    def tool(name: str, kind: str, sql: str) -> dict[str, object]:
        step = "exec" if kind == "write" else "return"
        return {"name": name, "description": name, "kind": kind, "steps": [{"kind": step, "sql": sql}]}

    text = {"type": "text"}
    spec = EnvSpec.model_validate(
        {
            "id": "kb",
            "name": "KB",
            "sector": "s",
            "description": "d",
            "tables": [
                {
                    "name": "docs",
                    "primary_key": ["doc_id"],
                    "full_text": ["title", "body"],
                    "columns": [{"name": n, **text} for n in ("doc_id", "title", "body")],
                },
                {"name": "doc_words", "primary_key": ["word"], "columns": [{"name": "word", **text}]},
                {"name": "cards", "primary_key": ["card_id"], "columns": [{"name": "card_id", **text}]},
            ],
            "tools": [
                tool("search", "read", "SELECT d.* FROM docs d JOIN doc_words w ON w.word = d.title"),
                tool("card_terms", "read", "SELECT * FROM cards, docs"),
                tool("cards", "read", "SELECT * FROM cards"),
                tool("close_card", "write", "DELETE FROM cards WHERE card_id = 'x'"),
            ],
        }
    )
    assert document_tools(spec) == {"search"}  # card_terms also reads a table a tool changes
