"""Quality measures of how natural a task is: writes that undo earlier ones, fields set twice, filler
in structured fields, internal keys and generated titles in the user's words."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from envs.catalog import CatalogEntry
from envs.check import check_env
from envs.formats.spec import ColumnSpec, EnvSpec, TableSpec
from envs.formats.task import Task
from envs.quality import env_quality, quality_report
from envs.quality.chains import WriteHistory, called_off
from envs.quality.naming import Names, internal_keys, is_lorem_title, is_row_counter
from envs.quality.spec import Ownership
from envs.quality.values import column_kind, fits_kind
from tests.envs.specs import params, tool

_STR = {"type": "string"}
_TITLES = ["Two Account Worker", "Bring Professional Pattern", "Throw Concern", "Fall Finally Nation", "Also Book"]


def _exists(table: str, key: str, bind: str) -> dict[str, Any]:
    return {"kind": "query", "bind": bind, "sql": f"SELECT * FROM {table} WHERE {key} = :{key}", "message": "No"}


def _set_status(name: str, to: str, frm: str) -> dict[str, Any]:
    return tool(
        name,
        [
            _exists("orders", "order_id", "o"),
            {"kind": "require", "sql": f"SELECT :o.status = '{frm}'", "message": f"Not {frm}"},
            {"kind": "exec", "sql": f"UPDATE orders SET status = '{to}' WHERE order_id = :order_id"},
        ],
        parameters=params(order_id=_STR),
    )


def _set_column(table: str, key: str, column: str) -> dict[str, Any]:
    return tool(
        f"set_{column}",
        [
            _exists(table, key, "r"),
            {"kind": "exec", "sql": f"UPDATE {table} SET {column} = :{column} WHERE {key} = :{key}"},
        ],
        parameters=params(**{key: _STR, column: _STR}),
    )


SHOP: dict[str, Any] = {
    "id": "errands",
    "name": "Errands",
    "sector": "retail",
    "description": "Customers, products and orders, built to trigger the naturalness measures.",
    "clock": "2026-03-02T09:00:00",
    "tables": [
        {
            "name": "customers",
            "primary_key": ["customer_id"],
            "columns": [
                {"name": "customer_id", "type": "text"},
                {"name": "email", "type": "text", "unique": True},
                {"name": "phone", "type": "text"},
                {"name": "country", "type": "text"},
                {"name": "balance", "type": "real", "default": 0},
                {"name": "address", "type": "json", "nullable": True},
            ],
        },
        {
            "name": "products",
            "primary_key": ["product_id"],
            "columns": [{"name": "product_id", "type": "text"}, {"name": "title", "type": "text"}],
        },
        {
            "name": "orders",
            "primary_key": ["order_id"],
            "columns": [
                {"name": "order_id", "type": "text"},
                {"name": "customer_id", "type": "text"},
                {"name": "product_id", "type": "text"},
                {"name": "reference", "type": "text", "unique": True},
                {"name": "status", "type": "text", "enum": ["placed", "held", "cancelled"]},
            ],
            "foreign_keys": [
                {"columns": ["customer_id"], "table": "customers", "references": ["customer_id"]},
                {"columns": ["product_id"], "table": "products", "references": ["product_id"]},
            ],
        },
    ],
    "seed": {
        "customers": [
            {"customer_id": "C0001", "email": "ann@example.com", "phone": "+15550100", "country": "Portugal"},
            {"customer_id": "C0002", "email": "bob@example.com", "phone": "+15550101", "country": "Chile"},
        ],
        "products": [{"product_id": f"P{i:04d}", "title": t} for i, t in enumerate(_TITLES, 1)],
        "orders": [
            {
                "order_id": "O0001",
                "customer_id": "C0001",
                "product_id": "P0001",
                "reference": "R-5521",
                "status": "placed",
            },
            {
                "order_id": "O0002",
                "customer_id": "C0001",
                "product_id": "P0002",
                "reference": "R-7310",
                "status": "placed",
            },
            {
                "order_id": "O0003",
                "customer_id": "C0002",
                "product_id": "P0003",
                "reference": "R-1188",
                "status": "held",
            },
        ],
    },
    "tools": [
        tool(
            "find_customer",
            [_exists("customers", "email", "c"), {"kind": "return", "shape": "value", "sql": "SELECT :c.customer_id"}],
            kind="read",
            parameters=params(email=_STR),
        ),
        tool(
            "find_order_by_reference",
            [_exists("orders", "reference", "o"), {"kind": "return", "shape": "value", "sql": "SELECT :o.order_id"}],
            kind="read",
            parameters=params(reference=_STR),
        ),
        tool(
            "create_order",
            [
                {"kind": "query", "bind": "id", "sql": "SELECT new_id('O') AS order_id"},
                {
                    "kind": "exec",
                    "sql": "INSERT INTO orders (order_id, customer_id, product_id, reference, status) "
                    "VALUES (:id.order_id, :customer_id, :product_id, 'R-' || :id.order_id, 'placed')",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT :id.order_id"},
            ],
            parameters=params(customer_id=_STR, product_id=_STR),
        ),
        _set_status("hold_order", "held", "placed"),
        _set_status("release_order", "placed", "held"),
        _set_status("cancel_order", "cancelled", "placed"),
        _set_column("customers", "customer_id", "phone"),
        _set_column("customers", "customer_id", "country"),
    ],
}

ANN = ["My email is ann@example.com."]


def _task(n: int, instruction: str, calls: list[tuple[str, dict[str, Any]]], **extra: Any) -> dict[str, Any]:
    gold = [{"tool": "find_customer", "arguments": {"email": "ann@example.com"}}]
    gold += [{"tool": name, "arguments": args} for name, args in calls]
    user = {"known_facts": ANN}
    return {
        "id": f"errands-{n}",
        "env": "errands",
        "instruction": instruction,
        "user": user,
        "gold_actions": gold,
        **extra,
    }


TASKS = [
    # undoes: an order placed, then cancelled
    _task(1, "Order the product, then cancel that order.", [
        ("create_order", {"customer_id": "C0001", "product_id": "P0003"}),
        ("cancel_order", {"order_id": "O1001"}),
    ]),
    # undoes: held, then placed again
    _task(2, "Hold my order R-5521, then release it.", [
        ("hold_order", {"order_id": "O0001"}), ("release_order", {"order_id": "O0001"}),
    ], expects_change=False),
    # sets the phone twice
    _task(3, "Change my phone to +15550111, then to +15550122.", [
        ("set_phone", {"customer_id": "C0001", "phone": "+15550111"}),
        ("set_phone", {"customer_id": "C0001", "phone": "+15550122"}),
    ]),
    # filler in a structured field
    _task(4, "Set my country to Call me first.", [("set_country", {"customer_id": "C0001", "country": "Call me first"})]),
    # an internal key in the user's words; the order reference is what a customer has
    _task(5, "Hold my order O0002.", [("hold_order", {"order_id": "O0002"})]),
    # a generated title in the user's words
    _task(6, "Hold my order for 'Two Account Worker'.", [("hold_order", {"order_id": "O0001"})]),
    # natural: a reference code, two writes that carry the order on, a real country
    _task(7, "Hold my order R-7310 and set my country to Spain. Then please also book it.", [
        ("hold_order", {"order_id": "O0002"}), ("set_country", {"customer_id": "C0001", "country": "Spain"}),
    ]),
]  # fmt: skip


def _entry(spec: dict[str, Any] | None = None, tasks: list[dict[str, Any]] | None = None) -> CatalogEntry:
    data = copy.deepcopy(SHOP if spec is None else spec)
    task_list = [Task.model_validate(t) for t in copy.deepcopy(TASKS if tasks is None else tasks)]
    return CatalogEntry(spec=EnvSpec.model_validate(data), tasks=task_list)


def _counts(*task_numbers: int) -> tuple[int, int, int, int, int]:
    c = env_quality(_entry(tasks=[TASKS[n - 1] for n in task_numbers])).counts
    return c.self_undoing_chains, c.fields_set_twice, c.filler_values, c.internal_key_references, c.title_references


def test_the_fixture_is_a_valid_environment() -> None:
    entry = _entry()
    report = check_env(entry.spec, entry.tasks)
    assert report.ok, "\n".join(map(str, report.problems))


@pytest.mark.parametrize(
    ("task", "found"),
    [
        (1, (1, 0, 0, 0, 0)),  # the order it placed is called off
        (2, (1, 0, 0, 0, 0)),  # the order is back in the state it had
        (3, (0, 1, 0, 0, 0)),
        (4, (0, 0, 1, 0, 0)),
        (5, (0, 0, 0, 1, 0)),
        (6, (0, 0, 0, 0, 1)),
        (7, (0, 0, 0, 0, 0)),  # 'please also book' names no product: titles are matched as written
    ],
)
def test_each_measure_on_the_task_built_to_trigger_it(task: int, found: tuple[int, ...]) -> None:
    assert _counts(task) == found


def test_totals_and_shares_in_the_report() -> None:
    report = quality_report([_entry()])
    t = report.totals
    assert (t.self_undoing_chains, t.fields_set_twice, t.filler_values) == (2, 1, 1)
    assert (t.internal_key_references, t.title_references) == (1, 1)
    assert t.self_undoing_share == round(2 / 7, 4) and t.internal_key_share == round(1 / 7, 4)
    data = report.to_dict()
    assert data["envs"][0]["named_by_key_or_title"] == {"errands-5": ["o0002"], "errands-6": ["'Two Account Worker'"]}
    assert "self-undoing chains" in report.to_markdown()


# -- the write history, write by write ------------------------------------------------------------
SPEC = EnvSpec.model_validate(SHOP)
ORDER = ("orders", ("O0001",))
ANN_ROW = ("customers", ("C0001",))


def _order(status: str) -> dict[str, Any]:
    return {"order_id": "O0001", "customer_id": "C0001", "product_id": "P0001", "reference": "R-5521", "status": status}


def _ann(phone: str = "+15550100", country: str = "Portugal") -> dict[str, Any]:
    return {"customer_id": "C0001", "email": "ann@example.com", "phone": phone, "country": country}


def test_a_status_back_where_it_was_undoes_and_a_status_moved_on_does_not() -> None:
    h = WriteHistory(SPEC)
    assert h.record({"order_id": "O0001"}, {ORDER: (_order("placed"), _order("held"))}).clean
    back = h.copy().record({"order_id": "O0001"}, {ORDER: (_order("held"), _order("placed"))})
    assert back.undoes == ["orders O0001: status is set back to 'placed'"]
    # the copy kept its own past: the history itself can still move the order on
    assert h.record({"order_id": "O0001"}, {ORDER: (_order("held"), _order("shipped"))}).clean


def test_deleting_what_the_task_inserted_undoes() -> None:
    h = WriteHistory(SPEC)
    assert h.record({}, {ORDER: (None, _order("placed"))}).clean
    assert h.record({}, {ORDER: (_order("placed"), None)}).undoes == [
        "orders O0001 is deleted after this task inserted it"
    ]


def test_calling_off_counts_only_for_a_row_an_earlier_write_touched() -> None:
    fresh = WriteHistory(SPEC)
    assert fresh.record({"order_id": "O0001"}, {ORDER: (_order("placed"), _order("cancelled"))}).clean
    h = WriteHistory(SPEC)
    h.record({"order_id": "O0001"}, {ORDER: (_order("placed"), _order("held"))})
    assert h.record({"order_id": "O0001"}, {ORDER: (_order("held"), _order("cancelled"))}).undoes


@pytest.mark.parametrize(
    ("status", "off"),
    [("cancelled", True), ("late_cancelled", True), ("Consent revoked", True), ("withdrawn", True),
     ("closed", False), ("completed", False), ("cancel_requested", False), (None, False)],
)  # fmt: skip
def test_called_off_statuses(status: str | None, off: bool) -> None:
    assert called_off(status) is off


def test_a_field_set_twice_from_arguments_but_a_counter_may_change_often() -> None:
    h = WriteHistory(SPEC)
    h.record({"phone": "+15550111"}, {ANN_ROW: (_ann(), _ann(phone="+15550111"))})
    twice = h.record({"phone": "+15550122"}, {ANN_ROW: (_ann(phone="+15550111"), _ann(phone="+15550122"))})
    assert twice.sets_twice == ["customers C0001: phone is set again, to '+15550122'"]
    h = WriteHistory(SPEC)  # a balance is not a text column: two top-ups change it twice
    first, second = {**_ann(), "balance": 5.0}, {**_ann(), "balance": 9.0}
    h.record({"amount": 4}, {ANN_ROW: ({**_ann(), "balance": 1.0}, first)})
    assert h.record({"amount": 4}, {ANN_ROW: (first, second)}).clean


def test_a_json_object_is_set_from_the_arguments_it_is_made_of_and_compared_by_value() -> None:
    h = WriteHistory(SPEC)
    lisbon, porto = '{"city": "Lisbon", "zip": "1000"}', '{"city":"Porto","zip":"4000"}'
    assert h.record({"city": "Lisbon", "zip": "1000"}, {ANN_ROW: (_ann(), {**_ann(), "address": lisbon})}).clean
    moved = h.record(
        {"city": "Porto", "zip": "4000"}, {ANN_ROW: ({**_ann(), "address": lisbon}, {**_ann(), "address": porto})}
    )
    assert moved.sets_twice and not moved.undoes
    back = h.record(
        {"city": "Lisbon", "zip": "1000"},
        {ANN_ROW: ({**_ann(), "address": porto}, {**_ann(), "address": '{"zip":"1000","city":"Lisbon"}'})},
    )
    assert back.undoes  # the same object, written with its keys in another order
    seats = WriteHistory(SPEC)  # seats left per cabin: a JSON counter no argument sets
    one, two, three = ({**_ann(), "address": f'{{"economy": {n}}}'} for n in (9, 8, 7))
    assert seats.record({"cabin": "economy"}, {ANN_ROW: (one, two)}).clean
    assert seats.record({"cabin": "economy"}, {ANN_ROW: (two, three)}).clean


def test_filler_is_only_an_argument_value_that_is_no_value_of_the_columns_kind() -> None:
    h = WriteHistory(SPEC)
    verdict = h.record({"country": "Call me first"}, {ANN_ROW: (_ann(), _ann(country="Call me first"))})
    assert verdict.filler == ["customers C0001: 'Call me first' is no name for country"]
    assert WriteHistory(SPEC).record({"country": "Bosnia and Herzegovina"}, {
        ANN_ROW: (_ann(), _ann(country="Bosnia and Herzegovina"))
    }).clean  # fmt: skip


def _column(name: str, type_: str = "text") -> tuple[TableSpec, ColumnSpec]:
    col = ColumnSpec.model_validate({"name": name, "type": type_})
    table = TableSpec.model_validate(
        {
            "name": "t",
            "primary_key": ["t_id"],
            "columns": [{"name": "t_id", "type": "text"}, {"name": "owner_id", "type": "text"}, col.model_dump()],
            "foreign_keys": [{"columns": ["owner_id"], "table": "t", "references": ["t_id"]}],
        }
    )
    return table, col


@pytest.mark.parametrize(
    ("name", "type_", "kind"),
    [("contact_email", "text", "email"), ("phone_number", "text", "phone"), ("billing_zip", "text", "zip"),
     ("portfolio_url", "text", "url"), ("booking_reference", "text", "code"), ("insurance_member_id", "text", "code"),
     ("destination_city", "text", "name"), ("new_carrier", "text", "name"), ("due_on", "date", "date"),
     ("reason", "text", None), ("notes", "text", None), ("number_of_guests", "integer", None)],
)  # fmt: skip
def test_column_kind_from_name_and_type(name: str, type_: str, kind: str | None) -> None:
    table, col = _column(name, type_)
    assert column_kind(table, col) == kind
    assert column_kind(table, table.columns[1]) is None  # a foreign key names a row, not a kind


@pytest.mark.parametrize(
    ("kind", "value", "fits"),
    [("name", "Call me first", False), ("name", "Isle of Man", True), ("name", "14 Elm Street", True),
     ("name", "Smith, Johnson and Brown", True), ("code", "Nothing special", False), ("code", "TRK-4471", True),
     ("phone", "+1 (555) 010-2000", True), ("phone", "call me", False), ("zip", "03907", True),
     ("zip", "Please handle this with care", False), ("url", "https://a.example/x", True), ("url", "a site", False),
     ("email", "a.b@example.org", True), ("date", "2026-03-01", True), ("date", "soon", False)],
)  # fmt: skip
def test_fits_kind(kind: str, value: str, fits: bool) -> None:
    assert fits_kind(kind, value) is fits


# -- internal keys and generated titles -------------------------------------------------------------
@pytest.mark.parametrize(
    ("keys", "counter"),
    [(["BK0001", "BK0002", "BK0004"], True), (["#W2378156", "#W4817420", "#W6304490"], False),
     (["4WQ150", "VAAOXJ"], False), (["noah_brown_6181", "ivan_santos_6635"], False), (["A1", "B2"], False),
     (["HAT001", "HAT002", "HAT003"], True)],
)  # fmt: skip
def test_row_counters(keys: list[str], counter: bool) -> None:
    assert is_row_counter(keys) is counter


def test_internal_keys_are_keys_beside_a_handle_or_customers_rows_numbered_by_a_counter() -> None:
    spec = EnvSpec.model_validate(SHOP)
    keys = internal_keys(spec, Ownership.of(spec), spec.seed)
    # customers: numbered rows of the user table (and their email is a handle); orders: beside the
    # reference a read tool finds them by; products belong to nobody and have no handle
    assert sorted(keys) == ["c0001", "c0002", "o0001", "o0002", "o0003"]
    public = copy.deepcopy(SHOP)  # random order keys and no reference lookup: codes customers may quote
    public["tools"] = [t for t in public["tools"] if t["name"] != "find_order_by_reference"]
    for row, key in zip(public["seed"]["orders"], ["#W2378156", "#W4817420", "#W6304490"], strict=True):
        row["order_id"] = key
    spec = EnvSpec.model_validate(public)
    assert not any(v == "orders" for v in internal_keys(spec, Ownership.of(spec), spec.seed).values())


def test_generated_titles_are_columns_of_lorem_words_matched_as_written() -> None:
    assert is_lorem_title("Two Account Worker") and not is_lorem_title("Jigsaw Puzzle")
    assert not is_lorem_title("two account worker") and not is_lorem_title("Account")
    spec = EnvSpec.model_validate(SHOP)
    names = Names.of(spec, Ownership.of(spec), spec.seed)
    assert set(names.titles) == set(_TITLES)  # products.title; no column of names or emails
    assert names.titles_in("my order for 'Two Account Worker'") == ["Two Account Worker"]
    assert names.titles_in("then please also book it") == []


TICKETS = EnvSpec.model_validate(
    {
        "id": "tickets",
        "name": "Tickets",
        "sector": "real_estate",
        "description": "Repair tickets and their visits.",
        "policy": "Be nice.",
        "tools": [
            tool(
                "get_ticket",
                [_exists("tickets", "ticket_id", "t")],
                parameters=params(ticket_id=_STR),
            )
        ],
        "tables": [
            {
                "name": "tickets",
                "primary_key": ["ticket_id"],
                "columns": [{"name": "ticket_id", "type": "text"}, {"name": "status", "type": "text"}],
            },
            {
                "name": "visits",
                "primary_key": ["visit_id"],
                "columns": [
                    {"name": "visit_id", "type": "text"},
                    {"name": "ticket_id", "type": "text"},
                    {"name": "status", "type": "text"},
                ],
                "foreign_keys": [{"columns": ["ticket_id"], "table": "tickets", "references": ["ticket_id"]}],
            },
        ],
    }
)


def test_calling_off_a_part_of_a_record_the_task_moved_on_undoes() -> None:
    """Reopen and escalate a repair ticket, then cancel its repair visit: the task works against itself."""
    ticket, visit = ("tickets", ("T1",)), ("visits", ("V1",))
    h = WriteHistory(TICKETS)
    t = {"ticket_id": "T1"}
    assert h.record(t, {ticket: ({**t, "status": "resolved"}, {**t, "status": "open"})}).clean
    assert h.record(t, {ticket: ({**t, "status": "open"}, {**t, "status": "escalated"})}).clean
    v = {"visit_id": "V1", "ticket_id": "T1"}
    off = h.record({"visit_id": "V1"}, {visit: ({**v, "status": "scheduled"}, {**v, "status": "cancelled"})})
    assert off.undoes == ["visits V1: 'cancelled' calls off a part of tickets T1 it moved on"]
    # a ticket the task called off, or one it never touched: cancelling its visit is the same intent
    for first in ("cancelled", None):
        h = WriteHistory(TICKETS)
        if first is not None:
            h.record(t, {ticket: ({**t, "status": "open"}, {**t, "status": first})})
        assert h.record({}, {visit: ({**v, "status": "scheduled"}, {**v, "status": "cancelled"})}).clean
