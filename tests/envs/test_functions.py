"""The SQL functions the engine adds for exact arithmetic: rounding, float text, expressions."""

from __future__ import annotations

import random
import sqlite3

import pytest

from envs.functions import MAX_POWER_BITS, arithmetic, arithmetic_error, install_functions


@pytest.fixture
def conn() -> sqlite3.Connection:
    c = sqlite3.connect(":memory:")
    install_functions(c)
    return c


def test_round_half_even_rounds_the_exact_value_as_python_does(conn: sqlite3.Connection) -> None:
    rng = random.Random(7)
    values = [746.405, 2.675, 0.125, -1.005] + [round(rng.uniform(-2000, 2000), 3) for _ in range(2000)]
    got = [conn.execute("SELECT round_half_even(?, 2)", (v,)).fetchone()[0] for v in values]
    assert got == [round(v, 2) for v in values]
    # SQLite's own round() disagrees on some of them, which is why the function exists.
    assert conn.execute("SELECT round(746.405, 2)").fetchone()[0] != round(746.405, 2)


def test_float_text_keeps_every_digit_inside_json(conn: sqlite3.Connection) -> None:
    value = 0.04999999999999716
    exact = conn.execute("SELECT json_object('a', json(float_text(?)))", (value,)).fetchone()[0]
    lossy = conn.execute("SELECT json_object('a', ?)", (value,)).fetchone()[0]
    assert exact == '{"a":0.04999999999999716}'
    assert lossy != exact
    assert conn.execute("SELECT float_text(8), float_text(NULL)").fetchone() == ("8.0", None)


@pytest.mark.parametrize(
    ("expression", "value"),
    [("2 + 2", 4.0), ("10/3", 10 / 3), ("2**10", 1024.0), ("  (1+2)*3.5", 10.5), ("-2**2", -4.0), ("7//2", 3.0)],
)
def test_arithmetic_follows_python(expression: str, value: float) -> None:
    assert arithmetic(expression) == value
    assert arithmetic_error(expression) is None


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1/0", "division by zero"),
        ("2+", "invalid syntax (<string>, line 1)"),
        ("()", "float() argument must be a string or a real number, not 'tuple'"),
        ("abs(1)", "'abs(1)' is not arithmetic"),
        ("9**9**9", f"the power's result would have more than {MAX_POWER_BITS:,} bits"),
    ],
)
def test_arithmetic_errors_say_why(expression: str, message: str) -> None:
    assert arithmetic(expression) is None
    assert arithmetic_error(expression) == message


def test_functions_are_there_in_every_episode() -> None:
    from envs.catalog import load_env

    episode = load_env("retail").environment.episode()
    row = episode.query("SELECT round_half_even(2.675, 2) AS r, arithmetic('1+1') AS a, arithmetic_error('1/0') AS e")
    assert row == [{"r": 2.67, "a": 2.0, "e": "division by zero"}]
