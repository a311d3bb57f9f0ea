"""A tool result never holds a number JSON cannot carry: every way SQLite can produce one is a
ResultError naming where it is, and the call changes nothing. Text that merely looks like one stays."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from envs.engine import Environment
from envs.errors import ResultError
from envs.formats.spec import EnvSpec
from tests.envs.specs import SHOP


def _env_returning(sql: str) -> Environment:
    spec: dict[str, Any] = copy.deepcopy(SHOP)
    spec["tools"].append(
        {
            "name": "spend_and_report",
            "description": "Take 1 from U1's balance, then return the SQL's row.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            "steps": [
                {"kind": "exec", "sql": "UPDATE accounts SET balance = balance - 1 WHERE account_id = 'U1'"},
                {"kind": "return", "shape": "one", "json_columns": ["parts"], "sql": sql},
            ],
        }
    )
    return Environment(EnvSpec.model_validate(spec))


@pytest.mark.parametrize(
    ("sql", "where"),
    [
        ("SELECT 1e308 * 10 AS total, '[]' AS parts", "inf at total"),
        ("SELECT -1e999 AS total, '[]' AS parts", "-inf at total"),
        ("SELECT json('[1, 1e999]') AS parts", "inf at parts[1]"),
        ("SELECT json_object('a', json_array(2, 1e999)) AS parts", "inf at parts.a[1]"),  # SQLite writes Inf
        ("SELECT '{\"x\": NaN}' AS parts", "nan at parts.x"),
        ("SELECT '-Infinity' AS parts", "-inf at parts"),
    ],
)
def test_a_non_finite_number_in_a_result_is_refused_and_undone(sql: str, where: str) -> None:
    episode = _env_returning(sql).episode()
    balance = episode.query("SELECT balance FROM accounts WHERE account_id = 'U1'")
    with pytest.raises(ResultError, match=rf"^The result holds {re.escape(where)}, a number JSON cannot carry$"):
        episode.call_tool("spend_and_report", {})
    assert episode.query("SELECT balance FROM accounts WHERE account_id = 'U1'") == balance


def test_text_that_only_looks_non_finite_is_returned() -> None:
    sql = "SELECT json_object('note', 'x,Inf,', 'word', 'NaN', 'big', 1e300) AS parts"
    content = _env_returning(sql).episode().call_tool("spend_and_report", {}).content
    assert content == {"parts": {"note": "x,Inf,", "word": "NaN", "big": 1e300}}
