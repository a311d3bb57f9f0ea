"""Measure 38: write calls that set a field from their arguments to the value the row already holds."""

from __future__ import annotations

import copy
from typing import Any

from envs import paths
from envs.catalog import Catalog
from envs.check import check_env
from envs.formats.spec import EnvSpec
from envs.quality import env_quality
from envs.quality.unchanged import NamedField, named_fields
from tests.envs.quality.test_quality import TRAVEL, _entry, _task
from tests.envs.specs import params, tool

_STR = {"type": "string"}


def _with_tools(*tools: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(TRAVEL)
    spec["tools"] += list(tools)
    return spec


#: Sets a booking's seat and flight, the flight cast; re-books several bookings onto one flight.
REBOOK = tool(
    "rebook",
    [
        {"kind": "query", "bind": "b", "sql": "SELECT * FROM bookings WHERE booking_id = :booking_id"},
        {
            "kind": "exec",
            "sql": "UPDATE bookings SET seat = :seat, flight_id = CAST(:flight_id AS TEXT), "
            "created_at = :b.created_at WHERE booking_id = :booking_id AND status = 'confirmed'",
        },
    ],
    parameters=params(booking_id=_STR, seat=_STR, flight_id=_STR),
    description="Move a booking to another flight and seat.",
)
#: "Upgrade to a window seat": a fixed value, said by the action's name.
UPGRADE = tool(
    "upgrade_to_window",
    [{"kind": "exec", "sql": "UPDATE bookings SET seat = 'window', created_at = :now WHERE booking_id = :booking_id"}],
    parameters=params(booking_id=_STR),
    description="Move a booking to a window seat.",
)
MOVE_MANY = tool(
    "move_many",
    [
        {
            "kind": "exec",
            "sql": "UPDATE bookings SET flight_id = :flight_id, seat = upper(:seat) "
            "WHERE booking_id IN (SELECT value FROM json_each(:booking_ids))",
        }
    ],
    parameters=params(booking_ids={"type": "array", "items": _STR}, flight_id=_STR, seat=_STR),
    description="Move several bookings to one flight.",
)


def test_fields_set_from_arguments_are_read_off_the_update_steps() -> None:
    spec = EnvSpec.model_validate(_with_tools(REBOOK, MOVE_MANY, UPGRADE))
    assert named_fields(spec.tool("rebook"), spec) == [  # type: ignore[arg-type]
        NamedField("bookings", "seat", "seat", "booking_id"),
        NamedField("bookings", "flight_id", "flight_id", "booking_id"),  # a bound value (:b.x) is not one
    ]
    assert named_fields(spec.tool("move_many"), spec) == [  # type: ignore[arg-type]
        NamedField("bookings", "flight_id", "flight_id", "booking_ids")  # upper(:seat) is the tool's own value
    ]
    # a fixed status is a transition's move (its from-states decide it); an update per item (for_each)
    # names no row by a parameter
    assert named_fields(spec.tool("cancel_booking"), spec) == []  # type: ignore[arg-type]
    assert named_fields(spec.tool("cancel_many"), spec) == []  # type: ignore[arg-type]
    assert named_fields(spec.tool("upgrade_to_window"), spec) == [  # type: ignore[arg-type]
        NamedField("bookings", "seat", None, "booking_id", "window")
    ]


def _measured(spec: dict[str, Any], tasks: list[dict[str, Any]]) -> Any:
    entry = _entry(spec, tasks)
    report = check_env(entry.spec, entry.tasks)
    assert report.ok, "\n".join(map(str, report.problems))
    return env_quality(entry).counts


def test_a_write_setting_the_value_a_field_holds_is_counted() -> None:
    counts = _measured(
        _with_tools(REBOOK, MOVE_MANY, UPGRADE),
        [
            _task(
                1,
                "Give booking B1 the window seat.",
                [("set_seat", {"booking_id": "B1", "seat": "window"})],
                expects_change=False,
            ),
            _task(2, "Give booking B2 the window seat.", [("set_seat", {"booking_id": "B2", "seat": "window"})]),
            # the flight changes, the seat is said again as it is: the call still sets it to what it holds
            _task(3, "Move B1 to TA300.", [("rebook", {"booking_id": "B1", "seat": "window", "flight_id": "F3"})]),
            _task(4, "Move B2 to TA300.", [("rebook", {"booking_id": "B2", "seat": "window", "flight_id": "F3"})]),
            # a fixed value: B1 has the window seat already, B2 has the aisle
            _task(6, "Upgrade B1 to a window seat.", [("upgrade_to_window", {"booking_id": "B1"})]),
            _task(7, "Upgrade B2 to a window seat.", [("upgrade_to_window", {"booking_id": "B2"})]),
            # a list of keys: B1 is on F1 already, B2 is not
            _task(
                5,
                "Move both to TA100.",
                [("move_many", {"booking_ids": ["B1", "B2"], "flight_id": "F1", "seat": "aisle"})],
            ),
        ],
    )
    assert (counts.unchanged_field_tasks, counts.unchanged_field_writes) == (4, 4)
    assert counts.writes_changing_nothing == 1  # task 1: nothing at all changed


def test_the_row_is_compared_as_it_was_just_before_the_call_not_in_the_seed() -> None:
    counts = _measured(
        TRAVEL,
        [
            # window -> aisle -> window: the last call changes the seat back (measure 14), it sets no value it holds
            _task(
                1,
                "Aisle for B1; no, window after all.",
                [
                    ("set_seat", {"booking_id": "B1", "seat": "aisle"}),
                    ("set_seat", {"booking_id": "B1", "seat": "window"}),
                ],
                expects_change=False,
            ),
            # the new booking has the middle seat already: asking for it changes nothing
            _task(
                2,
                "Book me on TA100, in the middle seat.",
                [
                    ("create_booking", {"account_id": "A1", "flight_id": "F1"}),
                    ("set_seat", {"booking_id": "BK1001", "seat": "middle"}),
                ],
            ),
        ],
    )
    assert (counts.unchanged_field_tasks, counts.unchanged_field_writes, counts.writes_changing_nothing) == (1, 1, 1)
    assert counts.self_undoing_chains == 1


def test_reference_environments() -> None:
    cat = Catalog(paths.BUILTIN_CATALOG)
    assert env_quality(cat.get("clinic")).counts.unchanged_field_writes == 0
    # retail-016 fixes the street of an address: the tool takes the whole address, city, state and zip
    # as they are (a tool that takes a record whole restates what it keeps; the call changes the street)
    retail = env_quality(cat.get("retail")).counts
    assert (retail.unchanged_field_tasks, retail.unchanged_field_writes, retail.writes_changing_nothing) == (1, 1, 0)
