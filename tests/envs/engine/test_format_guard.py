"""The printf/format guard gives SQLite's own results, and gives up at once where SQLite would first
write out a value past the length limit and then drop it."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.engine.format_guard import install_format_guard, too_long
from envs.engine.sandbox import LIMITS

LIMIT = LIMITS[sqlite3.SQLITE_LIMIT_LENGTH]


def connections() -> tuple[sqlite3.Connection, sqlite3.Connection]:
    guarded, raw = sqlite3.connect(":memory:"), sqlite3.connect(":memory:")
    for conn in (guarded, raw):
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, LIMIT)
    install_format_guard(guarded, LIMIT)
    return guarded, raw


GUARDED, RAW = connections()


def outcome(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> object:
    """The value, or that the statement failed (a blob formatted as text is not UTF-8: Python cannot read
    SQLite's own result back, and the guard, which reads it on its private connection, fails the call)."""
    try:
        return conn.execute(sql, args).fetchone()[0]
    except sqlite3.OperationalError:
        return "<failed>"


def both(sql: str, *args: object) -> tuple[object, object]:
    return outcome(GUARDED, sql, args), outcome(RAW, sql, args)


conversion = st.builds(
    lambda flags, width, precision, length, kind: f"%{flags}{width}{precision}{length}{kind}",
    st.text(alphabet="-+ 0#,!", max_size=3),
    st.sampled_from(["", "*", "3", "12", "2000001", "4294967297"]),
    st.sampled_from(["", ".", ".*", ".2", ".10", ".2000001", ".4294967297", ".6442450945"]),
    st.sampled_from(["", "l", "ll"]),
    st.sampled_from([*"dixXofeEgGszqQwcnTSry%", "c", "c"]),
)
#: Sizes near the limit and past it, and the int64 and int32 wrap-arounds SQLite applies to a ``*``.
sizes = st.sampled_from([LIMIT - 1, LIMIT, LIMIT + 1, -(LIMIT + 1), 2**32 - LIMIT - 1, 2**32 + LIMIT + 1, 2**63 - 1])
argument = st.one_of(
    st.none(),
    st.integers(-(10**12), 10**12),
    sizes,
    sizes.map(float),
    sizes.map(str),
    sizes.map(lambda n: f" {n}x"),
    st.floats(),
    st.text(max_size=8),
    st.binary(max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(conversion, st.text(alphabet="ab ", max_size=3)), max_size=4), st.lists(argument, max_size=5))
def test_any_format_gives_sqlites_own_result(pieces, args):
    fmt = "".join(pieces)
    marks = ", ".join(["?"] * (1 + len(args)))
    for name in ("printf", "format"):
        guarded, raw = both(f"SELECT {name}({marks})", fmt, *args)
        assert guarded == raw, (fmt, args)


@pytest.mark.parametrize(
    ("sql", "args"),
    [
        ("SELECT printf('%.*c', ?, 'x')", (LIMIT - 1,)),  # just fits: the same long string
        ("SELECT printf('%.*c', ?, 'x')", (LIMIT + 1,)),  # just past: NULL from both
        ("SELECT printf('%*d', ?, 7)", (LIMIT + 1,)),
        ("SELECT printf('%.*d', ?, 7)", (LIMIT + 1,)),
        ("SELECT printf('%.*s', ?, 'abc')", (LIMIT + 1,)),  # a string's precision caps: 'abc' from both
        ("SELECT printf('%.*c', ?, 'x')", (-(LIMIT + 1),)),  # a negative precision counts by its size
        ("SELECT printf('%.*c%.*c', ?, 'x', ?, 'y')", (3, LIMIT + 1)),
        ("SELECT printf()", ()),
        ("SELECT printf('ab%.\u0663\u0660\u0660\u0660\u0660\u0660\u0660c', 'x')", ()),  # not digits to SQLite
        ("SELECT printf('%.*c', ?, 'x')", ("\u0663\u0660\u0660\u0660\u0660\u0660\u0660",)),
        ("SELECT printf('%.*c', ?, 'x')", ("3_000_000",)),  # Python's int() reads these; SQLite does not
        ("SELECT printf(NULL, 1)", ()),
    ],
)
def test_at_the_length_limit_the_guard_agrees_with_sqlite(sql, args):
    guarded, raw = both(sql, *args)
    assert guarded == raw


def test_a_bomb_gives_null_without_writing_it_out():
    assert too_long("%.*c", (999_999_999, "x"), LIMIT) and not too_long("%.*s", (999_999_999, "x"), LIMIT)
    calls = 0

    def count() -> int:
        nonlocal calls
        calls += 1
        return 0

    GUARDED.set_progress_handler(count, 1000)
    try:
        # SQLite's own printf would spend seconds on each of these; the guard never reaches the VM's loop
        assert GUARDED.execute("SELECT printf('%.*c', 999999999, 'a'), format('%999999999d', 1)").fetchone() == (
            None,
            None,
        )
    finally:
        GUARDED.set_progress_handler(None, 0)
    assert calls < 5
