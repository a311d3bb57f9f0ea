"""The lexical rewrite of spec SQL: dotted params become SQLite names; strings, quoted names and
comments are never touched."""

from __future__ import annotations

import random
import sqlite3

import pytest

from envs.formats.sqltext import _segments, has_code, nondeterminism, prepare


def test_plain_param_keeps_a_prefixed_name() -> None:
    p = prepare("SELECT * FROM orders WHERE order_id = :order_id")
    assert p.text == "SELECT * FROM orders WHERE order_id = :p_order_id"
    assert p.params == {"p_order_id": "order_id"}
    assert p.roots == {"order_id"}


def test_dotted_params_are_rewritten() -> None:
    p = prepare("UPDATE accounts SET balance = balance + :order.total WHERE account_id = :order.account_id")
    assert p.text == "UPDATE accounts SET balance = balance + :p_order__total WHERE account_id = :p_order__account_id"
    assert p.params == {"p_order__total": "order.total", "p_order__account_id": "order.account_id"}
    assert p.roots == {"order"}


def test_deeply_dotted_and_repeated_params() -> None:
    p = prepare("SELECT :item.address.city, :item.address.city, :index")
    assert p.text == "SELECT :p_item__address__city, :p_item__address__city, :p_index"
    assert p.params == {"p_item__address__city": "item.address.city", "p_index": "index"}
    assert p.roots == {"item", "index"}


def test_rewritten_sql_runs_in_sqlite_with_named_parameters() -> None:
    p = prepare("SELECT :a.b + :c AS total, ':a.b' AS literal")
    conn = sqlite3.connect(":memory:")
    try:
        row = conn.execute(p.text, {"p_a__b": 2, "p_c": 3}).fetchone()
    finally:
        conn.close()
    assert row == (5, ":a.b")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT ':x'",
        "SELECT 'at 12:30'",
        "SELECT 'it''s :x'",
        'SELECT "col:x" FROM t',
        "SELECT `col:x` FROM t",
        "SELECT [col:x] FROM t",
        "SELECT 1 -- :x",
        "SELECT 1 /* :x.y */",
        "SELECT 1 /* unterminated :x",
        "SELECT 'unterminated :x",
    ],
)
def test_params_in_strings_quoted_names_and_comments_are_untouched(sql: str) -> None:
    p = prepare(sql)
    assert p.text == sql
    assert p.params == {}


def test_code_around_strings_and_comments_is_still_rewritten() -> None:
    sql = "SELECT 'it''s :no' || :yes, \"q:no\", :also -- :no\n, :last /* :no */ FROM t WHERE x = ':no'"
    p = prepare(sql)
    assert set(p.params.values()) == {"yes", "also", "last"}
    assert p.text == (
        "SELECT 'it''s :no' || :p_yes, \"q:no\", :p_also -- :no\n, :p_last /* :no */ FROM t WHERE x = ':no'"
    )


def test_doubled_quote_inside_a_string_does_not_end_it() -> None:
    p = prepare("SELECT 'a'':x'")
    assert p.params == {}
    p = prepare("SELECT 'a''', :x")
    assert p.params == {"p_x": "x"}


def test_line_comment_ends_at_newline() -> None:
    p = prepare("SELECT 1 -- :a\n + :b")
    assert p.params == {"p_b": "b"}


def test_colon_not_followed_by_identifier_is_left_alone() -> None:
    p = prepare("SELECT : x, :1")
    assert p.params == {}
    assert p.text == "SELECT : x, :1"


# -- nondeterminism ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        ("SELECT date('now')", ["'now'"]),
        ('SELECT date("now")', ["'now'"]),
        ("SELECT random(), date('now')", ["'now'", "random"]),
        ("SELECT hex(RANDOMBLOB(4)), CURRENT_TIMESTAMP", ["randomblob", "current_timestamp"]),
        ("SELECT current_date, current_time", ["current_date", "current_time"]),
        ("SELECT random(), random()", ["random"]),
    ],
)
def test_nondeterminism_is_found(sql: str, found: list[str]) -> None:
    assert nondeterminism(sql) == found


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT :now, :today",
        "SELECT 'random' AS word",
        "SELECT 'now is the time'",
        "SELECT 1 -- random() and date('now')",
        "SELECT 1 /* CURRENT_TIMESTAMP */",
        "SELECT random_id FROM t",
        "SELECT new_id('ORD')",
    ],
)
def test_deterministic_sql_is_not_flagged(sql: str) -> None:
    assert nondeterminism(sql) == []


def test_has_code_ignores_strings_and_comments() -> None:
    assert has_code("SELECT 1 FROM orders", r"\borders\b")
    assert not has_code("SELECT 'orders' -- orders\n", r"\borders\b")
    assert has_code("select 1 /* x */ UNION select 2", r"\bunion\b")


def _reference_segments(sql: str) -> list[tuple[bool, str]]:
    """The scanner's rules spelled out one character at a time (the oracle for the fast one)."""
    out: list[tuple[bool, str]] = []
    i, n, start = 0, len(sql), 0
    while i < n:
        ch = sql[i]
        if ch in "'\"`[" or sql.startswith(("--", "/*"), i):
            if start < i:
                out.append((True, sql[start:i]))
            if ch == "-":
                j = sql.find("\n", i)
                j = n if j < 0 else j
            elif ch == "/":
                j = sql.find("*/", i + 2)
                j = n if j < 0 else j + 2
            else:
                close, j = ("]" if ch == "[" else ch), i + 1
                while j < n and not (sql[j] == close and not (close != "]" and sql[j + 1 : j + 2] == close)):
                    j += 2 if sql[j] == close else 1
                j = min(j, n - 1) + 1
            out.append((False, sql[i:j]))
            i = start = j
        else:
            i += 1
    if start < n:
        out.append((True, sql[start:]))
    return out


def test_scanner_matches_a_character_by_character_reading() -> None:
    rng = random.Random(5)
    samples = ["SELECT ':a' -- :b\n, [x:y] /* :c */ FROM t WHERE a = :d AND s = 'it''s :e'", "'open", "/* open"]
    samples += ["".join(rng.choice("ab :'\"`[]-/*\n.x") for _ in range(rng.randint(0, 24))) for _ in range(20000)]
    for sql in samples:
        assert list(_segments(sql)) == _reference_segments(sql), sql
        assert "".join(text for _, text in _segments(sql)) == sql
