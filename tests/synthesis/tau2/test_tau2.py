"""tau2-bench's domains imported from tau2's own data and checked against tau2's replay of every task.

The data (../shared/tau2, or $ENVFARM_TAU2_DIR) is tau2-bench's, MIT-licensed, and is not part of this
repository; without it the fidelity tests are skipped and say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envs.catalog import load_env_dir
from envs.errors import StateError
from synthesis.tau2 import DOMAINS, Tau2ImportError, domain_folders, import_domain
from synthesis.tau2.fidelity import compare

from .reference import TAU2_DIR, needs_tau2


@needs_tau2
@pytest.mark.parametrize(
    "domain", sorted(set(DOMAINS) - {"telecom", "banking_knowledge"})
)  # test_telecom.py, test_banking.py
def test_every_gold_action_and_final_state_equals_tau2s(catalog: Path, domain: str) -> None:
    env = load_env_dir(catalog / DOMAINS[domain].env_id).environment
    expected = [json.loads(line) for line in (TAU2_DIR / "expected" / f"{domain}.jsonl").read_text().splitlines()]
    report = compare(env, DOMAINS[domain], expected)
    print(f"tau2 {domain}: {report.summary()}")
    assert report.mismatches == []
    assert report.tasks == len(expected) and report.tasks_equal == report.tasks
    assert report.actions == sum(len(r["actions"]) for r in expected)


@needs_tau2
def test_imported_tasks_keep_the_scenario_and_drop_only_failing_gold(catalog: Path) -> None:
    entry = load_env_dir(catalog / "tau2_retail")
    tasks = {t.id: t for t in entry.tasks}
    assert len(tasks) == 114
    first = tasks["tau2_retail-0"]
    assert "#W2378156" in first.instruction
    assert first.user.known_facts == ["You are Yusuf Rossi in zip code 19122."]
    assert [a.tool for a in first.gold_actions][-1] == "exchange_delivered_order_items"
    assert first.reward_basis == ["state"] and first.expects_change
    # Task 105's only action fails in tau2 (gift card too low): nothing left to do, nothing changes.
    assert tasks["tau2_retail-105"].gold_actions == [] and not tasks["tau2_retail-105"].expects_change
    assert "split:test" in tasks["tau2_retail-0"].tags or "split:train" in tasks["tau2_retail-0"].tags
    assert (catalog / "tau2_retail" / "policy.md").read_text() == (TAU2_DIR / "data/retail/policy.md").read_text()


@needs_tau2
def test_retail_tools_refuse_as_tau2_does(catalog: Path) -> None:
    episode = load_env_dir(catalog / "tau2_retail").environment.episode()
    assert episode.call_tool("calculate", {"expression": "(10 + 2.5) / 3"}).content == "4.17"
    with pytest.raises(StateError, match=r"^Invalid characters in expression$"):
        episode.call_tool("calculate", {"expression": "__import__('os')"})
    with pytest.raises(StateError, match=r"^division by zero$"):
        episode.call_tool("calculate", {"expression": "1/0"})
    pending = episode.query("SELECT order_id FROM orders WHERE status = 'pending' LIMIT 1")[0]["order_id"]
    with pytest.raises(StateError, match=r"^Invalid reason$"):
        episode.call_tool("cancel_pending_order", {"order_id": pending, "reason": "bored"})
    with pytest.raises(StateError, match=r"^Non-pending order cannot be cancelled$"):
        episode.call_tool("cancel_pending_order", {"order_id": "#W2611340", "reason": "no longer needed"})
    assert episode.call_tool("transfer_to_human_agents", {"summary": "x"}).content == "Transfer successful"


_SOPHIA = {"first_name": "Sophia", "last_name": "Silva", "dob": "1957-10-05"}


@needs_tau2
def test_airline_booking_checks_and_pays_as_tau2_does(catalog: Path) -> None:
    episode = load_env_dir(catalog / "tau2_airline").environment.episode()
    base = {
        "user_id": "sophia_silva_7557",
        "origin": "ORD",
        "destination": "PHL",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT271", "date": "2024-05-26"}],  # 174 in economy, 3 seats left
        "passengers": [_SOPHIA],
        "total_baggages": 1,
        "nonfree_baggages": 1,
        "insurance": "yes",
    }

    def book(**changes: object) -> Any:
        return episode.call_tool("book_reservation", {**base, "payment_methods": [], **changes}).content

    with pytest.raises(StateError, match=r"^Flight HAT271 not available on date 2024-05-10$"):
        book(flights=[{"flight_number": "HAT271", "date": "2024-05-10"}])
    with pytest.raises(StateError, match=r"^Not enough seats on flight HAT271$"):
        book(passengers=[_SOPHIA] * 4)
    with pytest.raises(StateError, match=r"^Not enough balance in payment method certificate_3887113$"):
        book(payment_methods=[{"payment_id": "certificate_3887113", "amount": 254}])  # a 150 certificate
    with pytest.raises(StateError, match=r"^Payment amount does not add up, total price is 254, but paid 100$"):
        book(payment_methods=[{"payment_id": "credit_card_4196779", "amount": 100}])
    paid = [{"payment_id": "certificate_3887113", "amount": 150}, {"payment_id": "gift_card_5094406", "amount": 104}]
    reservation = book(payment_methods=paid)
    assert isinstance(reservation, dict) and reservation["reservation_id"] == "HATHAT"
    assert reservation["created_at"] == "2024-05-15T15:00:00" and reservation["status"] is None
    user = episode.call_tool("get_user_details", {"user_id": "sophia_silva_7557"}).content
    assert "certificate_3887113" not in user["payment_methods"]  # a certificate is used up
    assert user["payment_methods"]["gift_card_5094406"]["amount"] == 170.0 and user["reservations"][-1] == "HATHAT"
    seats = episode.query(
        "SELECT available_seats FROM flight_dates WHERE flight_number = 'HAT271' AND date = '2024-05-26'"
    )
    assert json.loads(seats[0]["available_seats"])["economy"] == 2
    assert book(payment_methods=[{"payment_id": "credit_card_4196779", "amount": 254}])["reservation_id"] == "HATHAU"


@needs_tau2
def test_airline_changes_refuse_and_cancel_as_tau2_does(catalog: Path) -> None:
    episode = load_env_dir(catalog / "tau2_airline").environment.episode()
    bags = {"reservation_id": "WUNA5K", "total_baggages": 2, "nonfree_baggages": 1}
    with pytest.raises(StateError, match=r"^Certificate cannot be used to update reservation$"):
        episode.call_tool("update_reservation_baggages", {**bags, "payment_id": "certificate_8045380"})
    with pytest.raises(StateError, match=r"^Gift card balance is not enough$"):
        episode.call_tool(
            "update_reservation_baggages", {**bags, "nonfree_baggages": 9, "payment_id": "gift_card_5094406"}
        )
    with pytest.raises(StateError, match=r"^Number of passengers does not match$"):
        episode.call_tool("update_reservation_passengers", {"reservation_id": "WUNA5K", "passengers": [_SOPHIA] * 2})
    with pytest.raises(StateError, match=r"^Reservation NOPE00 not found$"):
        episode.call_tool("cancel_reservation", {"reservation_id": "NOPE00"})
    # tau2 cancels a reservation again (its flights flown or not) and refunds every entry once more.
    episode.call_tool("cancel_reservation", {"reservation_id": "WUNA5K"})
    again = episode.call_tool("cancel_reservation", {"reservation_id": "WUNA5K"}).content
    assert [p["amount"] for p in again["payment_history"]] == [260, -260, -260, 260]
    sent = [
        episode.call_tool("send_certificate", {"user_id": "sophia_silva_7557", "amount": 100}).content for _ in "ab"
    ]
    assert sent == [
        "Certificate certificate_3221322 added to user sophia_silva_7557 with amount 100.",
        "Certificate certificate_3221323 added to user sophia_silva_7557 with amount 100.",
    ]


def test_a_folder_without_tau2_data_is_refused_with_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(Tau2ImportError, match=r"no tau2 domain in .*db.json, tasks.json and policy.md"):
        domain_folders(tmp_path)
    (tmp_path / "retail").mkdir()
    (tmp_path / "retail" / "db.json").write_text('{"products": {}, "users": {}, "orders": {}}')
    with pytest.raises(Tau2ImportError, match=r"tasks.json is missing"):
        import_domain(tmp_path / "retail", tmp_path / "out")
    (tmp_path / "retail" / "policy.md").write_text("Be nice.")
    (tmp_path / "retail" / "tasks.json").write_text(json.dumps([{"id": "7", "initial_state": {"x": 1}}]))
    with pytest.raises(
        Tau2ImportError, match=r"tasks.json: \[0\].initial_state: task '7' has one, which this importer does not apply"
    ):
        import_domain(tmp_path / "retail", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@needs_tau2
def test_bench_row_measures_reset_hash_and_score_on_tau2s_database() -> None:
    from synthesis.bench.tau2 import bench_tau2_retail

    row = bench_tau2_retail(TAU2_DIR / "data", repeat=5)
    assert row["reward"] == 1.0  # the scored episode really solved the task
    assert row["db_json_bytes"] > 2_000_000
    for name in ("reset", "reset_dict_deepcopy", "state_hash", "state_hash_dict_json", "score"):
        assert row[name]["runs"] >= 5 and row[name]["median_ms"] > 0


@needs_tau2
def test_oracle_scores_every_imported_task_1_over_mcp(catalog: Path, tmp_path: Path) -> None:
    from envfarm.cli import main

    out = tmp_path / "oracle"
    args = ["eval", "--agent", "oracle", "--tasks", "all", "--catalog", str(catalog), "--out", str(out)]
    assert main([*args, "--concurrency", "8", "--no-progress", "--max-turns", "60"]) == 0  # banking: 37 gold calls
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    imported = {DOMAINS[d].env_id for d in DOMAINS}
    assert {r["env_id"] for r in records} == imported
    assert [r["task_id"] for r in records if r["reward"] != 1.0] == []
    print(f"tau2 oracle over MCP: {len(records)} tasks at 1.0 ({', '.join(sorted(imported))})")


def test_cli_refuses_a_path_without_tau2_data_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from envfarm.cli import main

    assert main(["import", "tau2", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == f"error: {tmp_path / 'nowhere'} is not a folder\n"
    assert main(["bench", "engine", "--tau2", str(tmp_path), "--out", str(tmp_path / "b.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: no tau2 domain in {tmp_path}") and err.count("\n") == 1
    assert not (tmp_path / "out").exists() and not (tmp_path / "b.json").exists()


@needs_tau2
def test_cli_import_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from envfarm.cli import main

    assert main(["import", "tau2", str(TAU2_DIR / "data" / "retail"), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "tau2_retail: 114 tasks, 550 gold actions (18 fail in tau2 too" in out
    assert f"serve it with: envfarm serve --catalog {tmp_path}" in out
    assert sorted(p.name for p in (tmp_path / "tau2_retail").iterdir()) == [
        "policy.md",
        "seed.json",
        "spec.json",
        "tasks.json",
    ]


@needs_tau2
def test_tau2_users_quote_codes_they_were_given_not_internal_keys(catalog: Path) -> None:
    """tau2's users quote order, reservation and user ids: random or name-made codes its systems show
    customers, so the quality report does not count them as internal keys (docs/synthesis.md)."""
    from envs.quality import quality_report

    report = quality_report(load_env_dir(catalog / env_id) for env_id in ("tau2_airline", "tau2_retail"))
    by_id = {e.env_id: e.counts for e in report.envs}
    for counts in by_id.values():
        assert (counts.internal_key_references, counts.title_references, counts.filler_values) == (0, 0, 0)
    # tau2_airline-7 upgrades a reservation to business, then cancels it (what the cancellation rule
    # allows); in tau2_retail-22 the user regrets a new address and has it set back to the old one
    airline, retail = by_id["tau2_airline"], by_id["tau2_retail"]
    assert (airline.self_undoing_chains, airline.fields_set_twice) == (1, 0)
    assert (retail.self_undoing_chains, retail.fields_set_twice) == (1, 1)
