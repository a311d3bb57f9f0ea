"""The SQL functions the engine adds for exact arithmetic: rounding, float text, expressions."""

from __future__ import annotations

import random
import sqlite3

import pytest

from envs.engine.arithmetic import MAX_EXPRESSION_CHARS, WORK_LIMIT
from envs.engine.functions import arithmetic, arithmetic_error, install_functions


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
        ("9**9**9", "the power's result would have about 1,228,093,895 bits, too many to compute"),
        ("((2))**(9**9)", "the power's result would have about 387,420,490 bits, too many to compute"),
        ("1**(9**9) + (-1)**(9**9)", None),  # a base of 1 or -1 never grows
        ("1+(x)", "'x' is not arithmetic"),
        ("f(" + "1+" * 60 + "1)", f"'f({'1+' * 37}1...' is not arithmetic"),
    ],
)
def test_arithmetic_errors_say_why(expression: str, message: str | None) -> None:
    assert (arithmetic(expression) is None) == (message is not None)
    assert arithmetic_error(expression) == message


def test_a_long_chain_is_summed_without_python_recursion() -> None:
    """The tree is walked with a stack of its own, and a long text is parsed on a fresh thread, so
    2,900 terms are computed however deep the caller's stack is (Python's parser stops near 2,990
    chained operators, as eval() does, with the message Python gives)."""

    def nested(depth: int) -> float | None:
        return nested(depth - 1) if depth else arithmetic("+".join(["1"] * 2_900))

    assert nested(200) == 2_900.0
    assert arithmetic_error("+".join(["1"] * 3_000)) == "maximum recursion depth exceeded during ast construction"
    assert arithmetic(" + ".join(["19.99"] * 1_000)) == eval(" + ".join(["19.99"] * 1_000))


@pytest.mark.parametrize(
    ("expression", "value"),
    [("2 ** 50001 // 2 ** 50000", 2.0), ("10 ** 30000 // 10 ** 29999", 10.0), ("3 ** 120000 // 3 ** 119999", 3.0)],
)
def test_large_exact_integers_are_computed_when_they_stay_cheap(expression: str, value: float) -> None:
    assert arithmetic(expression) == value


@pytest.mark.parametrize(
    "expression",
    [
        "*".join(["3**49999"] * 40) + "//" + "*".join(["3**49999"] * 40),  # each power is cheap, the products not
        "*".join(["3**4000"] * 1000),
        "3**180000 % 3**90000",
        "(1,)*10**9",  # a tuple repeated a billion times would fill the memory
    ],
)
def test_integer_work_is_bounded_before_it_is_done(expression: str) -> None:
    """What the schoolbook methods would spend is counted before each operation; past the limit the
    expression is refused (the refusal is checked by count, not by time)."""
    assert arithmetic(expression) is None
    assert arithmetic_error(expression) == (
        f"the numbers grow too large to compute (more than {WORK_LIMIT:,} digit operations)"
    )


def test_an_expression_longer_than_any_argument_is_refused() -> None:
    assert arithmetic("1" * MAX_EXPRESSION_CHARS) is None  # Python refuses it (more than 4,300 digits)
    assert arithmetic_error("1" * (MAX_EXPRESSION_CHARS + 1)) == "expression longer than 65,536 characters"


def test_functions_are_there_in_every_episode() -> None:
    from envs.catalog import load_env

    episode = load_env("retail").environment.episode()
    row = episode.query("SELECT round_half_even(2.675, 2) AS r, arithmetic('1+1') AS a, arithmetic_error('1/0') AS e")
    assert row == [{"r": 2.67, "a": 2.0, "e": "division by zero"}]


def test_python_texts_and_ids_as_python_makes_them() -> None:
    """What a service ported from Python shows: ``str()`` of its values, ``json.dumps``, ``format`` and
    SHA-256 ids (tau2's banking tools print records with ``str`` and name new ones by digest)."""
    import hashlib
    import json

    conn = sqlite3.connect(":memory:")
    install_functions(conn)
    record = '{"name":"Ann","limit":1500.0,"n":3,"ok":true,"gone":null,"tags":["a",1.50],"at":{"x":"it\'s"}}'
    rows = conn.execute("SELECT key, python_str(value, type) FROM json_each(?) ORDER BY id", (record,)).fetchall()
    expected = {k: (v if isinstance(v, str) else str(v)) for k, v in json.loads(record).items()}
    assert dict(rows) == expected and [k for k, _ in rows] == list(expected)
    assert conn.execute("SELECT python_str(?)", (record,)).fetchone()[0] == str(json.loads(record))
    assert conn.execute("SELECT python_json(?, 2, 1)", ('{"a": 100, "b": "é"}',)).fetchone()[0] == json.dumps(
        {"a": 100.0, "b": "é"}, indent=2
    )
    assert conn.execute("SELECT python_json('{\"a\": [1, 2]}')").fetchone()[0] == '{"a": [1, 2]}'
    assert conn.execute("SELECT python_format(0.125, '.2f'), python_format(2.675, '.2f')").fetchone() == (
        "0.12",
        "2.67",
    )
    assert conn.execute("SELECT python_format('x', '.2f'), python_json('{'), python_str('[')").fetchone() == (
        None,
        None,
        None,
    )
    assert (
        conn.execute("SELECT sha256_hex('dispute:u1:t1')").fetchone()[0] == hashlib.sha256(b"dispute:u1:t1").hexdigest()
    )


def test_python_json_errors_are_pythons_own() -> None:
    import json

    conn = sqlite3.connect(":memory:")
    install_functions(conn)
    for text in ("", "{", '{"a": 1,}', "[1, 2", "nul"):
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            assert conn.execute("SELECT python_json_error(?)", (text,)).fetchone()[0] == str(exc)
    assert conn.execute("SELECT python_json_error('{\"a\": [1]}'), python_json_error(NULL)").fetchone() == (None, None)
