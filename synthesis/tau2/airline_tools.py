"""tau2-bench's 14 airline tools as SQL steps (the ones that charge a payment are in
``airline_booking``), each check in tau2's order with tau2's message."""

from __future__ import annotations

from typing import Any

from .airline_booking import (
    AIRPORT,
    DATE,
    PASSENGER_COUNT,
    PASSENGERS,
    RESERVATION,
    RESERVATION_ID,
    RETURN_RESERVATION,
    USER_EXISTS,
    USER_ID,
    book_reservation,
    sql_list,
    update_reservation_baggages,
    update_reservation_flights,
)
from .airline_data import RESERVATION_JSON, USER_JSON, direct_flight_json
from .common import document_tool, string_param, tool
from .retail_tools import tools as retail_tools

AIRPORTS = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)
_ROUTE = {  # the parameters of both flight searches
    "origin": string_param(AIRPORT.format("JFK")),
    "destination": string_param(AIRPORT.format("LAX")),
    "date": DATE,
}
NEW_CERTIFICATE_IDS = tuple(f"certificate_{n}" for n in (3221322, 3221323, 3221324))


def tools() -> list[dict[str, Any]]:
    shared = {t["name"]: t for t in retail_tools() if t["name"] in ("calculate", "transfer_to_human_agents")}
    return [
        book_reservation(),
        shared["calculate"],
        tool(
            "cancel_reservation",
            "Cancel a whole reservation: every payment is refunded to its payment method. Returns the reservation.",
            "write",
            {"reservation_id": RESERVATION_ID},
            [
                RESERVATION,
                {
                    "kind": "exec",
                    "sql": """INSERT INTO reservation_payments (reservation_id, position, payment_id, amount)
  SELECT reservation_id, position + (SELECT count(*) FROM reservation_payments WHERE reservation_id = :reservation_id),
         payment_id, -amount
  FROM reservation_payments WHERE reservation_id = :reservation_id ORDER BY position""",
                },
                {
                    "kind": "exec",
                    "sql": "UPDATE reservations SET status = 'cancelled' WHERE reservation_id = :reservation_id",
                },
                RETURN_RESERVATION,
            ],
        ),
        document_tool(
            "get_reservation_details",
            "Get a reservation: flights, passengers, payments, bags, insurance.",
            "reservation_id",
            RESERVATION_ID,
            "reservations r",
            "r.reservation_id",
            RESERVATION_JSON,
            "Reservation {reservation_id} not found",
        ),
        document_tool(
            "get_user_details",
            "Get a user's profile: payment methods, saved passengers, membership and reservation ids.",
            "user_id",
            USER_ID,
            "users u",
            "u.user_id",
            USER_JSON,
            "User {user_id} not found",
        ),
        tool(
            "list_all_airports",
            "List every airport served: IATA code and city.",
            "read",
            {},
            [
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["airports"],
                    "sql": "SELECT json_array("
                    + ", ".join(f"json_object('iata', '{code}', 'city', '{city}')" for code, city in AIRPORTS)
                    + ") AS airports",
                }
            ],
        ),
        tool(
            "search_direct_flight",
            "Search direct flights between two airports on a date that can still be booked: times, seats "
            "left and price per cabin.",
            "read",
            _ROUTE,
            [
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["flights"],
                    "sql": f"""SELECT json_group_array(json(flight)) AS flights FROM (
  SELECT {direct_flight_json("f", "d", "NULL")} AS flight
  FROM flights AS f JOIN flight_dates AS d ON d.flight_number = f.flight_number AND d.date = :date
  WHERE f.origin = :origin AND f.destination = :destination AND d.status = 'available' ORDER BY f.position)""",
                }
            ],
        ),
        tool(
            "search_onestop_flight",
            "Search one-stop connections between two airports leaving on a date that can still be booked: "
            "pairs of flights, the second leaving the stop no earlier than the first arrives.",
            "read",
            _ROUTE,
            [
                {
                    # tau2 takes the next day of a first leg landing after midnight as '2024-05-' and the
                    # day of the month plus one, unpadded; reproduced (see docs/tau2.md).
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["pairs"],
                    "sql": f"""WITH first AS (
  SELECT f.*, d.available_seats, d.prices,
    CASE WHEN instr(f.scheduled_arrival_time_est, '+1') > 0
         THEN '2024-05-' || (CAST(substr(:date, -2) AS INTEGER) + 1) ELSE :date END AS next_date
  FROM flights AS f JOIN flight_dates AS d ON d.flight_number = f.flight_number AND d.date = :date
  WHERE f.origin = :origin AND d.status = 'available')
SELECT json_group_array(json(pair)) AS pairs FROM (
  SELECT json_array({direct_flight_json("a", "a", ":date")}, {direct_flight_json("g", "e", "a.next_date")}) AS pair
  FROM first AS a JOIN flights AS g ON g.origin = a.destination AND g.destination = :destination
    AND g.scheduled_departure_time_est >= a.scheduled_arrival_time_est
  JOIN flight_dates AS e ON e.flight_number = g.flight_number AND e.date = a.next_date AND e.status = 'available'
  ORDER BY a.position, g.position)""",
                }
            ],
        ),
        tool(
            "send_certificate",
            "Send a user a travel certificate of the given amount, as compensation. Returns a confirmation.",
            "write",
            {"user_id": USER_ID, "amount": {"type": "integer", "description": "The amount in dollars."}},
            [
                {**USER_EXISTS},
                {
                    "kind": "query",
                    "bind": "new",
                    "sql": f"""SELECT value AS id FROM json_each({sql_list(NEW_CERTIFICATE_IDS)})
  WHERE value NOT IN (SELECT payment_method_id FROM payment_methods WHERE user_id = :user_id)
  ORDER BY key LIMIT 1""",
                    "message": "Too many certificates",
                },
                {
                    "kind": "exec",
                    "sql": """INSERT INTO payment_methods (user_id, payment_method_id, position, source, amount)
  VALUES (:user_id, :new.id, (SELECT coalesce(max(position) + 1, 0) FROM payment_methods WHERE user_id = :user_id),
          'certificate', CAST(:amount AS REAL))""",
                },
                {
                    "kind": "return",
                    "shape": "value",
                    "sql": "SELECT 'Certificate ' || :new.id || ' added to user ' || :user_id || ' with amount ' "
                    "|| CAST(:amount AS INTEGER) || '.'",
                },
            ],
        ),
        shared["transfer_to_human_agents"],
        update_reservation_baggages(),
        update_reservation_flights(),
        tool(
            "update_reservation_passengers",
            "Change the passengers' details of a reservation; the number of passengers cannot change. Returns "
            "the reservation.",
            "write",
            {
                "reservation_id": RESERVATION_ID,
                "passengers": {**PASSENGERS, "description": "Every passenger, in order."},
            },
            [
                RESERVATION,
                {
                    "kind": "require",
                    "message": "Number of passengers does not match",
                    "sql": f"SELECT json_array_length(:passengers) = {PASSENGER_COUNT}",
                },
                {
                    "kind": "exec",
                    "for_each": "passengers",
                    "sql": """UPDATE reservation_passengers
  SET first_name = :item.first_name, last_name = :item.last_name, dob = :item.dob
  WHERE reservation_id = :reservation_id AND position = :index""",
                },
                RETURN_RESERVATION,
            ],
        ),
        tool(
            "get_flight_status",
            "Get the status of a flight on a date: available, on time, delayed, flying, landed or cancelled.",
            "read",
            {"flight_number": string_param("The flight number, such as 'HAT001'."), "date": DATE},
            [
                {
                    "kind": "query",
                    "bind": "flight",
                    "sql": "SELECT flight_number FROM flights WHERE flight_number = :flight_number",
                    "message": "Flight {flight_number} not found",
                },
                {
                    "kind": "query",
                    "bind": "day",
                    "sql": "SELECT status FROM flight_dates WHERE flight_number = :flight_number AND date = :date",
                    "message": "Flight {flight_number} not found on date {date}",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT :day.status"},
            ],
        ),
    ]
