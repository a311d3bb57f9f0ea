"""The catalog quality report: each measure on a small spec built to trigger it, the reference
environments, the files it writes and the ``envfarm envs quality`` command."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from envfarm.cli import cli
from envs import paths
from envs.catalog import Catalog, CatalogEntry
from envs.check import check_env
from envs.formats.spec import EnvSpec, ToolSpec
from envs.formats.task import Task
from envs.quality import EnvQuality, env_quality, quality_report, write_quality_report
from envs.quality.seed import event_column, status_phase
from envs.quality.spec import guard_shapes, sql_shape, staff_role, user_table, write_skeleton
from envs.quality.text import fact_in_instruction
from tests.envs.specs import params, tool

_STR = {"type": "string"}


def _exists(table: str, key: str, bind: str) -> dict[str, Any]:
    sql = f"SELECT * FROM {table} WHERE {key} = :{key}"
    return {"kind": "query", "bind": bind, "sql": sql, "message": f"No {table} {{{key}}}"}


TRAVEL: dict[str, Any] = {
    "id": "travel",
    "name": "Tiny travel",
    "sector": "travel",
    "description": "Accounts, flights, bookings and credits, built to trigger every quality measure.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "accounts",
            "primary_key": ["account_id"],
            "columns": [
                {"name": "account_id", "type": "text"},
                {"name": "email", "type": "text", "unique": True},
                {"name": "name", "type": "text"},
                {"name": "balance", "type": "real"},
            ],
        },
        {
            "name": "flights",
            "primary_key": ["flight_id"],
            "columns": [
                {"name": "flight_id", "type": "text"},
                {"name": "number", "type": "text"},
                {"name": "departs_at", "type": "datetime"},
            ],
        },
        {
            "name": "bookings",
            "primary_key": ["booking_id"],
            "columns": [
                {"name": "booking_id", "type": "text"},
                {"name": "account_id", "type": "text"},
                {"name": "flight_id", "type": "text"},
                {"name": "seat", "type": "text"},
                {"name": "status", "type": "text", "enum": ["confirmed", "flown", "cancelled"]},
                {"name": "created_at", "type": "datetime", "nullable": True},
            ],
            "foreign_keys": [
                {"columns": ["account_id"], "table": "accounts", "references": ["account_id"]},
                {"columns": ["flight_id"], "table": "flights", "references": ["flight_id"]},
            ],
        },
        {
            "name": "credits",
            "primary_key": ["credit_id"],
            "columns": [
                {"name": "credit_id", "type": "text"},
                {"name": "account_id", "type": "text"},
                {"name": "booking_id", "type": "text", "nullable": True},
                {"name": "amount", "type": "real"},
            ],
            "foreign_keys": [
                {"columns": ["account_id"], "table": "accounts", "references": ["account_id"]},
                {"columns": ["booking_id"], "table": "bookings", "references": ["booking_id"]},
            ],
        },
    ],
    "seed": {
        "accounts": [
            {"account_id": "A1", "email": "ann@example.com", "name": "Ann Lee", "balance": 0.0},
            {"account_id": "A2", "email": "bob@example.com", "name": "Bob Roy", "balance": 0.0},
        ],
        "flights": [
            {"flight_id": "F1", "number": "TA100", "departs_at": "2026-03-10 08:00:00"},  # ahead
            {"flight_id": "F2", "number": "TA200", "departs_at": "2026-02-01 08:00:00"},  # past
            {"flight_id": "F3", "number": "TA300", "departs_at": "2026-03-02 07:00:00"},  # today, earlier
        ],
        "bookings": [
            {"booking_id": "B1", "account_id": "A1", "flight_id": "F1", "seat": "window", "status": "confirmed"},
            {"booking_id": "B2", "account_id": "A1", "flight_id": "F2", "seat": "aisle", "status": "confirmed"},
            {"booking_id": "B3", "account_id": "A1", "flight_id": "F1", "seat": "aisle", "status": "flown"},
            {"booking_id": "B4", "account_id": "A2", "flight_id": "F2", "seat": "aisle", "status": "flown"},
            {"booking_id": "B5", "account_id": "A2", "flight_id": "F3", "seat": "middle", "status": "confirmed"},
        ],
        "credits": [
            {"credit_id": "C1", "account_id": "A1", "booking_id": "B1", "amount": 5.0},
            {"credit_id": "C2", "account_id": "A2", "booking_id": "B1", "amount": 5.0},  # Bob's credit, Ann's booking
            {"credit_id": "C3", "account_id": "A1", "booking_id": None, "amount": 5.0},
        ],
    },
    "tools": [
        tool(
            "find_account",
            [_exists("accounts", "email", "a"), {"kind": "return", "shape": "value", "sql": "SELECT :a.account_id"}],
            kind="read",
            parameters=params(email=_STR),
        ),
        tool(
            "cancel_booking",
            [
                _exists("bookings", "booking_id", "b"),
                {"kind": "require", "sql": "SELECT :b.status = 'confirmed'", "message": "Not confirmed"},
                {"kind": "exec", "sql": "UPDATE bookings SET status = 'cancelled' WHERE booking_id = :booking_id"},
                {
                    "kind": "exec",
                    "sql": "INSERT INTO credits (credit_id, account_id, booking_id, amount) "
                    "VALUES (new_id('CR'), :b.account_id, :booking_id, 10)",
                },
            ],
            parameters=params(booking_id=_STR),
            description="Cancel a confirmed booking; 10.00 of credit is added.",
        ),
        tool(
            "create_booking",
            [
                {"kind": "query", "bind": "id", "sql": "SELECT new_id('BK') AS booking_id"},
                {
                    "kind": "exec",
                    "sql": "INSERT INTO bookings (booking_id, account_id, flight_id, seat, status) "
                    "VALUES (:id.booking_id, :account_id, :flight_id, 'middle', 'confirmed')",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT :id.booking_id"},
            ],
            parameters=params(account_id=_STR, flight_id=_STR),
            description="Book a seat on a flight.",
        ),
        tool(
            "set_seat",
            [
                _exists("bookings", "booking_id", "b"),
                {"kind": "exec", "sql": "UPDATE bookings SET seat = :seat WHERE booking_id = :booking_id"},
            ],
            parameters=params(booking_id=_STR, seat=_STR),
            description="Change the seat of a booking.",
        ),
        tool(  # the same skeleton as set_seat: other table, other columns
            "rename_account",
            [
                _exists("accounts", "account_id", "a"),
                {"kind": "exec", "sql": "UPDATE accounts SET name = :name WHERE account_id = :account_id"},
            ],
            parameters=params(account_id=_STR, name=_STR),
            description="Change the name on an account.",
        ),
        tool(
            "cancel_many",
            [
                {
                    "kind": "exec",
                    "for_each": "booking_ids",
                    "sql": "UPDATE bookings SET status = 'cancelled' WHERE booking_id = :item",
                }
            ],
            parameters=params(booking_ids={"type": "array", "items": _STR}),
            description="Cancel several bookings.",
        ),
        tool(
            "mark_flown",
            [
                _exists("bookings", "booking_id", "b"),
                {"kind": "require", "sql": "SELECT :b.status IN ('confirmed', 'checked')", "message": "No"},
                {"kind": "exec", "sql": "UPDATE bookings SET status = 'flown' WHERE booking_id = :booking_id"},
            ],
            parameters=params(booking_id=_STR),
            description="Gate: mark a booking as flown after departure.",
        ),
    ],
}

ANN = ["My email is ann@example.com"]


def _task(n: int, instruction: str, calls: list[tuple[str, dict[str, Any]]], **extra: Any) -> dict[str, Any]:
    gold = [{"tool": "find_account", "arguments": {"email": "ann@example.com"}}]
    gold += [{"tool": name, "arguments": args} for name, args in calls]
    user = {"known_facts": ANN, "reveal_if_asked": extra.pop("reveal", [])}
    return {
        "id": f"travel-{n}",
        "env": "travel",
        "instruction": instruction,
        "user": user,
        "gold_actions": gold,
        **extra,
    }


TASKS = [
    # ambiguous: B2 is confirmed too
    _task(1, "Please cancel my confirmed booking.", [("cancel_booking", {"booking_id": "B1"})], tags=["refusal"]),
    # singled out by its own seat
    _task(2, "Cancel my booking with the window seat.", [("cancel_booking", {"booking_id": "B1"})]),
    # singled out by its flight's number (one hop)
    _task(3, "Cancel my booking on flight TA200.", [("cancel_booking", {"booking_id": "B2"})]),
    # both confirmed bookings are meant: each is singled out
    _task(4, "Cancel both my confirmed bookings.", [("cancel_booking", {"booking_id": b}) for b in ("B1", "B2")]),
    # cross-user: Ann's booking and Bob's
    _task(
        5,
        "Cancel my window seat booking, and my friend's booking on TA300.",
        [("cancel_booking", {"booking_id": "B1"}), ("cancel_booking", {"booking_id": "B5"})],
        tags=["partial-refusal"],
    ),
    # a dependent chain: the seat of the booking just made
    _task(
        6,
        "Book me on TA100 and give me the aisle seat.",
        [
            ("create_booking", {"account_id": "A1", "flight_id": "F1"}),
            ("set_seat", {"booking_id": "BK1001", "seat": "aisle"}),
        ],
        reveal=["My email is ann@example.com", "Any time on Wednesday works"],
    ),
    # information only, with facts to reveal: one already said, one not
    _task(
        7,
        "Hi, I'm ann@example.com. Which of my bookings fly on Wednesday?",
        [],
        expects_change=False,
        reveal=["My email is ann@example.com", "Any time on Wednesday works", "It is for Lisbon"],
    ),
    _task(8, "Please change my name on the account.", [("rename_account", {"account_id": "A1", "name": "Ann Li"})]),
]


def _entry(spec: dict[str, Any] | None = None, tasks: list[dict[str, Any]] | None = None) -> CatalogEntry:
    data = copy.deepcopy(TRAVEL if spec is None else spec)
    env_id = data["id"]
    task_list = [Task.model_validate({**t, "env": env_id}) for t in copy.deepcopy(TASKS if tasks is None else tasks)]
    return CatalogEntry(spec=EnvSpec.model_validate(data), tasks=task_list)


@pytest.fixture(scope="module")
def travel() -> EnvQuality:
    entry = _entry()
    report = check_env(entry.spec, entry.tasks)  # the fixture itself is a valid environment
    assert report.ok, "\n".join(map(str, report.problems))
    return env_quality(entry)


def test_refusal_share_counts_both_tags(travel: EnvQuality) -> None:
    c = travel.counts
    assert (c.tasks, c.refusal_tasks, c.partial_refusal_tasks, c.tasks_with_refusal_tag) == (8, 1, 1, 2)
    assert c.refusal_share == 0.25


def test_write_tool_usage_and_unused_tools(travel: EnvQuality) -> None:
    assert travel.write_tool_usage == {
        "cancel_booking": 0.625,  # 5 of 8 tasks; tasks 4 and 5 call it twice, counted once each
        "create_booking": 0.125,
        "set_seat": 0.125,
        "rename_account": 0.125,
        "cancel_many": 0.0,
        "mark_flown": 0.0,
    }
    assert travel.unused_write_tools == ["cancel_many", "mark_flown"]
    c = travel.counts
    assert (c.write_tools, c.used_write_tools, c.unused_write_tools) == (6, 4, 2)
    assert c.used_write_tool_share == round(4 / 6, 4)


def test_skeletons_abstract_names_and_values(travel: EnvQuality) -> None:
    spec = _entry().spec
    set_seat, rename = spec.tool("set_seat"), spec.tool("rename_account")
    assert set_seat is not None and rename is not None
    assert write_skeleton(set_seat) == write_skeleton(rename)
    assert travel.counts.write_skeletons == 5  # six write tools, two of one shape
    assert sql_shape("SELECT o.total FROM orders o WHERE o.id = :order.id AND s IN ('a', 'b') LIMIT 3") == (
        "SELECT <name> FROM <name> <name> WHERE <name> = :p AND <name> IN ( 's' ) LIMIT <n>"
    )
    assert sql_shape("INSERT INTO t (a, b) VALUES (new_id('X'), json_each(:x))") == (
        "INSERT INTO <name> ( <name> ) VALUES ( new_id ( 's' ) , json_each ( :p ) )"
    )


def test_guard_kinds_are_distinct_check_shapes(travel: EnvQuality) -> None:
    spec = _entry().spec
    cancel, flown = spec.tool("cancel_booking"), spec.tool("mark_flown")
    assert cancel is not None and flown is not None
    assert guard_shapes(cancel) == [
        "exists: SELECT * FROM <name> WHERE <name> = :p",
        "require[true]: SELECT :p = 's'",
    ]
    assert guard_shapes(flown)[1] == "require[true]: SELECT :p IN ( 's' )"
    # one existence check shape (every tool's lookup), '= literal' and 'IN (literals)'
    assert travel.counts.guard_kinds == 3


def test_list_parameters(travel: EnvQuality) -> None:
    assert travel.list_parameters == ["cancel_many.booking_ids"]
    assert (travel.counts.list_parameters, travel.counts.envs_with_list_parameter) == (1, 1)


def test_reference_coherence_counts_the_row_whose_booking_belongs_to_someone_else(travel: EnvQuality) -> None:
    assert (travel.counts.coherence_rows_checked, travel.counts.coherence_violations) == (2, 1)
    coherent = copy.deepcopy(TRAVEL)
    coherent["seed"]["credits"][1]["account_id"] = "A1"
    counts = env_quality(_entry(coherent, [])).counts
    assert (counts.coherence_rows_checked, counts.coherence_violations) == (2, 0)


def test_status_date_contradictions_use_the_flight_departure(travel: EnvQuality) -> None:
    spec = _entry().spec
    where = event_column(spec, spec.table("bookings"))
    assert where is not None and where[0] is not None and where[1].name == "departs_at"  # not created_at
    c = travel.counts
    # B3 is flown but departs next week; B2 is confirmed but departed in February; B5 departed
    # this morning (same day: not a contradiction); B1 and B4 agree with their dates
    assert (c.after_event_rows_checked, c.after_event_in_future) == (2, 1)
    assert (c.before_event_rows_checked, c.before_event_in_past) == (3, 1)
    assert c.status_date_contradictions == 2


def test_a_status_naming_the_opposite_event_says_nothing_of_a_date() -> None:
    # a move-out scheduled lies ahead, the move-in it follows does not
    assert status_phase("move_out_scheduled") == status_phase("move_out_scheduled", "move_out_date") == "before"
    assert status_phase("move_out_scheduled", "move_in_date") is None
    assert status_phase("delivery_scheduled", "delivery_date") == "before"


def test_reveal_facts_already_in_the_instruction(travel: EnvQuality) -> None:
    # task 6: the email is not in its instruction; task 7: the email is, Wednesday and Lisbon are not
    assert (travel.counts.reveal_facts, travel.counts.reveal_facts_in_instruction) == (5, 1)


@pytest.mark.parametrize(
    ("fact", "instruction", "stated"),
    [
        ("My email is ann@example.com", "I'm ann@example.com, hi", True),
        ("My email is ann@example.com", "I'm ann@example.org, hi", False),
        ("Any time on Wednesday morning works", "See Dr. Osei on Wednesday morning", False),
        ("The doctor is Dr. Osei", "I'd like to see Dr. Osei", True),
        ("The fee was 10 dollars", "I paid 100 dollars", False),
        ("The fee was 10 dollars", "I paid $10.00 for it", True),
        ("The request is about my interview with format phone.", "Please cancel my interview with format phone?", True),
        ("If white L isn't available, black in size L is fine", "Change the shirt to size L. Same color.", False),
        ("Yes, go ahead.", "Yes, go ahead. Cancel it.", True),
    ],
)
def test_fact_in_instruction(fact: str, instruction: str, stated: bool) -> None:
    assert fact_in_instruction(fact, instruction) is stated


def test_ambiguous_goals(travel: EnvQuality) -> None:
    # assessed goals: tasks 1, 2, 3 (one each), 4 (two), 5 (two); task 6's target is its own new
    # booking's flight (nobody's row) and then the booking it created; task 8's is Ann herself
    c = travel.counts
    assert c.write_goals == 8
    assert c.ambiguous_goals == 1  # task 1: "my confirmed booking" fits B2 as well


def test_ambiguous_goals_task_by_task() -> None:
    entry = _entry()
    verdicts = {t.id: env_quality(_entry(tasks=[TASKS[i]])).counts for i, t in enumerate(entry.tasks)}
    ambiguous = {tid: (c.ambiguous_goals, c.write_goals) for tid, c in verdicts.items()}
    assert ambiguous == {
        "travel-1": (1, 1),
        "travel-2": (0, 1),
        "travel-3": (0, 1),
        "travel-4": (0, 2),
        "travel-5": (0, 2),  # the window seat; Bob's booking on TA300 (his other one is on TA200)
        "travel-6": (0, 0),
        "travel-7": (0, 0),
        "travel-8": (0, 1),
    }


def test_cross_user_writes(travel: EnvQuality) -> None:
    assert (travel.counts.write_tasks, travel.counts.cross_user_write_tasks) == (7, 1)


def test_staff_tools(travel: EnvQuality) -> None:
    assert travel.staff_tools == {"mark_flown": "Gate"}
    assert travel.counts.staff_tools == 1


@pytest.mark.parametrize(
    ("description", "name", "role"),
    [
        ("Staff: return an order to stock.", "restock", "Staff"),
        ("Vault staff: drill a box.", "drill_box", "Vault staff"),
        ("Payment engine: record a bill payment.", "record_payment", "Payment engine"),
        ("Settle an ended lease: the deposit is returned.", "settle_lease", None),
        ("Recipient: refund a payment you received.", "refund_payment", None),
        ("Note: the fee is not refunded.", "cancel", None),
        ("Traveler: cancel your own trip.", "cancel_trip", None),  # the user table is 'travelers'
        ("Close an account. Staff only.", "close_account", "staff only"),
        ("Override a fee.", "admin_override_fee", "staff only"),
        ("Find an account by email.", "find_account", None),
    ],
)
def test_staff_role(description: str, name: str, role: str | None) -> None:
    t = ToolSpec.model_validate(tool(name, [{"kind": "return", "sql": "SELECT 1"}], description=description))
    assert staff_role(t, "travelers") == role


def test_dependent_write_chains(travel: EnvQuality) -> None:
    # task 6 sets the seat of the booking it just created; task 4's second cancel changes nobody's
    # row the first one touched (Ann's balance is not kept), task 5 neither
    assert travel.counts.dependent_chain_tasks == 1
    assert travel.counts.dependent_chain_share == 0.125


def test_user_table_is_the_most_referenced_table_with_an_email() -> None:
    assert user_table(_entry().spec) == "accounts"
    assert user_table(Catalog(paths.BUILTIN_CATALOG).get("clinic").spec) == "patients"


def test_reference_environments() -> None:
    cat = Catalog(paths.BUILTIN_CATALOG)
    report = quality_report(cat.get(i) for i in ("retail", "clinic"))
    by_id = {e.env_id: e for e in report.envs}
    retail, clinic = by_id["retail"].counts, by_id["clinic"].counts
    for c in (retail, clinic):
        assert c.replay_errors == 0
        assert c.unused_write_tools == 0 and c.staff_tools == 0
        assert c.cross_user_write_tasks == 0
        assert c.coherence_violations == 0 and c.status_date_contradictions == 0
        assert (c.self_undoing_chains, c.fields_set_twice, c.filler_values) == (0, 0, 0)
        assert (c.internal_key_references, c.title_references) == (0, 0)
    assert retail.coherence_rows_checked > 0  # an order's user is its payment method's user
    assert clinic.before_event_rows_checked > 0  # booked appointments, dated by their slot
    assert retail.list_parameters == 5 and clinic.list_parameters == 0
    # retail-008 ships to the address it just added; retail-016 to the address it just fixed
    assert retail.dependent_chain_tasks == 2
    t = report.totals
    assert t.tasks == retail.tasks + clinic.tasks == 28
    assert t.envs_with_list_parameter == 1
    assert t.write_skeletons == retail.write_skeletons + clinic.write_skeletons  # nothing shared


def test_totals_count_a_shared_skeleton_once() -> None:
    twin = copy.deepcopy(TRAVEL)
    twin["id"] = "travel_twin"
    report = quality_report([_entry(), _entry(twin)])
    assert [e.env_id for e in report.envs] == ["travel", "travel_twin"]
    assert report.totals.tasks == 16 and report.totals.write_tools == 12
    assert report.totals.write_skeletons == 5 and report.totals.guard_kinds == 3
    assert report.totals.list_parameters == 2 and report.totals.envs_with_list_parameter == 2
    assert report.totals.refusal_share == 0.25


def test_write_quality_report_is_deterministic(tmp_path: Path) -> None:
    report = quality_report([_entry()])
    json_path, md_path = write_quality_report(report, tmp_path / "out")
    first = (json_path.read_bytes(), md_path.read_bytes())
    write_quality_report(quality_report([_entry()]), tmp_path / "out")
    assert (json_path.read_bytes(), md_path.read_bytes()) == first
    data = json.loads(json_path.read_text())
    assert data["totals"]["coherence_violations"] == 1
    assert data["envs"][0]["unused_write_tool_names"] == ["cancel_many", "mark_flown"]
    md = md_path.read_text()
    assert md.index("| measure | total |") < md.index("| environment |")
    assert "| travel | 8 |" in md


def _write_catalog(root: Path) -> Path:
    data = copy.deepcopy(TRAVEL)
    directory = root / "travel"
    directory.mkdir(parents=True)
    (directory / "seed.json").write_text(json.dumps(data.pop("seed")))
    (directory / "spec.json").write_text(json.dumps(data))
    (directory / "tasks.json").write_text(json.dumps(TASKS))
    return root


def test_cli_quality(tmp_path: Path) -> None:
    root = _write_catalog(tmp_path / "catalog")
    runner = CliRunner()
    env = {"COLUMNS": "200", "ENVFARM_CATALOG": None}
    result = runner.invoke(cli, ["envs", "quality", "--json", "--catalog", str(root)], env=env)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["totals"]["cross_user_write_tasks"] == 1
    assert [e["env_id"] for e in data["envs"]] == ["travel"]
    result = runner.invoke(cli, ["envs", "quality", "travel", "--catalog", str(root)], env=env)
    assert result.exit_code == 0, result.output
    assert "Totals" in result.stdout and "cross-user write tasks" in result.stdout
    result = runner.invoke(cli, ["envs", "quality", "nosuch", "--catalog", str(root)], env=env)
    assert result.exit_code == 1
    assert result.stderr == "error: Environment 'nosuch' doesn't exist.\n"
