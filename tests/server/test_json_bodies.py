"""REST bodies read by the Rust JSON parser give exactly what ``json.loads`` gives, and the rest
still goes to ``json.loads``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.api.json_bodies import parse_json

from .conftest import API_KEYS, KEY_A


@pytest.mark.parametrize(
    "body",
    [
        b'{"tool": "t", "arguments": {"ids": ["a", "b"], "n": 1, "x": 1.0, "y": -0.0, "z": 1E5}}',
        b'"\\ud800"',  # a lone surrogate escape: the Rust parser refuses it, json.loads reads it
        b'{"k": "\\ud83d\\ude00 \\u00e9"}',
        b"NaN",
        b"-Infinity",
        b"123456789012345678901234567890",
        b"1e400",
        b'{"a": 1, "a": 2}',
        b"5e-324",
        '{"é": "ü"}'.encode(),
    ],
)
def test_a_body_reads_as_json_loads_reads_it(body: bytes) -> None:
    expected, got = json.loads(body), parse_json(body)
    assert repr(got) == repr(expected) and type(got) is type(expected)


def test_malformed_json_is_the_same_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        parse_json(b'{"tool": ')


def test_rest_calls_read_through_the_rust_parser_keep_their_errors(make_server, tmp_path: Any) -> None:
    farm = make_server(api_keys=API_KEYS)
    with farm.http(KEY_A) as client:
        episode = client.post("/episodes", json={"task_id": "retail-001"}).json()["episode_id"]
        surrogate = b'{"tool": "find_user_id_by_email", "arguments": {"email": "a\\ud800@b.c"}}'
        r = client.post(f"/episodes/{episode}/calls", content=surrogate, headers={"content-type": "application/json"})
        assert r.status_code == 200 and r.json()["is_error"] and "email" in r.json()["message"], r.text
        broken = client.post(
            f"/episodes/{episode}/calls", content=b'{"tool": ', headers={"content-type": "application/json"}
        )
        assert broken.status_code == 422, broken.text
        ok = client.post(
            f"/episodes/{episode}/calls", json={"tool": "find_user_id_by_email", "arguments": {"email": "x@y.z"}}
        )
        assert ok.status_code == 200 and "is_error" in ok.json(), ok.text
