"""Calls no gold action makes, compared with what tau2 itself does with them: each call's result and
the final database hash (tau2's ``get_db_hash``: SHA-256 of ``json.dumps(db.model_dump(),
sort_keys=True, default=str)``), and, where envfarm differs on purpose, the difference docs/tau2.md
documents.

The expected values were recorded by running tau2 1.0.1's own code (the commit the reference data's
README names) on the same calls through ``Environment.get_response``, under Python 3.11 and
pydantic 2.14. A result that is a record is kept as the SHA-256 of its JSON with sorted keys, so
no tau2 data is copied here; it is equal when the record is (as in ``synthesis.tau2.fidelity``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from envs.catalog import load_env_dir
from envs.errors import ToolArgumentError, ToolError
from synthesis.tau2 import DOMAINS, export_db

from .reference import needs_tau2

_RETAIL_HASH = "b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c"
_AIRLINE_HASH = "124e39a664b56402bcd09cb8a6a9cece6acb8462337c969799d5658e3250f263"
_EXCHANGE = {"order_id": "#W4817420", "payment_method_id": "gift_card_8168843"}  # a delivered order
_BAGS = {"reservation_id": "VAAOXJ", "payment_id": "credit_card_1052991"}

# name: (domain, calls, [(error, result or "sha256:" of the record)], final DB hash), as tau2 gave them
TAU2: dict[str, tuple[str, list[tuple[str, dict[str, Any]]], list[tuple[bool, str]], str]] = {
    "calculate_990_terms": (
        "retail",
        [("calculate", {"expression": "+".join(["1.5"] * 990)})],
        [(False, "1485.0")],
        _RETAIL_HASH,
    ),
    "calculate_2000_terms": (
        "retail",
        [("calculate", {"expression": "+".join(["1"] * 2000)})],
        [(False, "2000.0")],
        _RETAIL_HASH,
    ),
    "calculate_large_powers": (
        "retail",
        [
            ("calculate", {"expression": "2 ** 50001 // 2 ** 50000"}),
            ("calculate", {"expression": "10 ** 30000 // 10 ** 29999"}),
            ("calculate", {"expression": "2 ** 3000 // 2 ** 2999 * 1.5"}),
        ],
        [(False, "2.0"), (False, "10.0"), (False, "3.0")],
        _RETAIL_HASH,
    ),
    "exchange_of_no_items": (  # tau2's sum starts at the integer 0 and stays one
        "retail",
        [("exchange_delivered_order_items", {**_EXCHANGE, "item_ids": [], "new_item_ids": []})],
        [(False, "sha256:550b5d559b7805aaa4b8cdc822b0de5214569741bae41d0e59f646aa22e24030")],
        "d2c55899e22c0003ea27bfa27c877ec31cdfc62367302732bbe53fba44749542",
    ),
    "exchange_of_items": (
        "retail",
        [("exchange_delivered_order_items", {**_EXCHANGE, "item_ids": ["6777246137"], "new_item_ids": ["6777246137"]})],
        [(False, "sha256:fcbf93e3d4a5041cdf8818788934cad3f7d767a6d3b9eec5bd7ef6fef42d661d")],
        "f5ecd72e7bb687bb02044514ee87712529294301d0f51db8f4809362991f423e",
    ),
    "think_retail": ("retail", [("think", {"thought": "x"})], [(True, "Error: Tool 'think' not found.")], _RETAIL_HASH),
    "think_airline": (
        "airline",
        [("think", {"thought": "x"})],
        [(True, "Error: Tool 'think' not found.")],
        _AIRLINE_HASH,
    ),
    "baggages_and_certificate": (
        "airline",
        [
            ("update_reservation_baggages", {**_BAGS, "total_baggages": 3, "nonfree_baggages": 2}),
            ("send_certificate", {"user_id": "lei_rossi_3206", "amount": 250}),
        ],
        [
            (False, "sha256:ba920ce69025e29c79a8ff0b6da4f6e241325d2fcaadc02ad4ad1d0ff0b2e848"),
            (False, "Certificate certificate_3221322 added to user lei_rossi_3206 with amount 250."),
        ],
        "3620ea6a96a45db3cf2be64612a3e5fd0d812b49126b8ca7e0f26150bf57d47f",
    ),
}


def _replay(catalog: Path, domain: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[tuple[bool, str]], str]:
    """Each call's outcome as tau2 writes it (records hashed), and the final DB hash as tau2 computes it."""
    episode = load_env_dir(catalog / DOMAINS[domain].env_id).environment.episode()
    outcomes = []
    for name, arguments in calls:
        try:
            value = episode.call_tool(name, arguments).content
        except ToolError as exc:
            outcomes.append((True, f"Error: {exc}"))
            continue
        if not isinstance(value, str):
            value = "sha256:" + hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()
        outcomes.append((False, value))
    db = json.dumps(export_db(episode, DOMAINS[domain]), sort_keys=True, default=str)
    return outcomes, hashlib.sha256(db.encode()).hexdigest()


@needs_tau2
@pytest.mark.parametrize("case", sorted(TAU2))
def test_result_and_db_hash_equal_tau2s(catalog: Path, case: str) -> None:
    domain, calls, results, db_hash = TAU2[case]
    assert _replay(catalog, domain, calls) == (results, db_hash)


@needs_tau2
def test_a_whole_number_float_is_the_integer_unlike_tau2(catalog: Path) -> None:
    """docs/tau2.md: ``nonfree_baggages: 2.0`` and ``amount: 250.0`` act as 2 and 250. tau2 keeps the
    Python float, so its state then shows 2.0 (hash 044b6091…, not the integer call's 3620ea6a…) and
    its message says 'with amount 250.0.'; envfarm gives exactly what the integer call gives."""
    _, calls, results, db_hash = TAU2["baggages_and_certificate"]
    as_floats = [(name, {k: float(v) if isinstance(v, int) else v for k, v in args.items()}) for name, args in calls]
    assert as_floats[0][1]["nonfree_baggages"] == 2.0 and isinstance(as_floats[1][1]["amount"], float)
    assert _replay(catalog, "airline", as_floats) == (results, db_hash)


@needs_tau2
def test_documented_limits_of_calculate(catalog: Path) -> None:
    """docs/tau2.md: an expression is an argument like any other (4,096 characters unless the server
    allows more), and integers that would grow too costly to compute are refused; tau2 has neither."""
    episode = load_env_dir(catalog / "tau2_retail").environment.episode()
    with pytest.raises(ToolArgumentError, match=r"a text of 4,097 characters; at most 4,096 are accepted"):
        episode.call_tool("calculate", {"expression": "1" + "+1" * 2048})
    with pytest.raises(ToolError, match=r"^the power's result would have about 1,228,093,895 bits, too many"):
        episode.call_tool("calculate", {"expression": "9 ** 9 ** 9"})
    with pytest.raises(ToolError, match=r"^the numbers grow too large to compute"):
        episode.call_tool("calculate", {"expression": "*".join(["3 ** 40000"] * 300)})
