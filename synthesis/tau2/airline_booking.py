"""The parameters and steps tau2-bench's airline tools share, and the three tools that price and charge:
``book_reservation``, ``update_reservation_flights`` and ``update_reservation_baggages``. Each check
runs in tau2's order with tau2's message, so the first problem tau2 reports is the one reported here.

tau2's arithmetic is kept: prices and payments are whole dollars, a gift card's balance is a float
from which each payment is subtracted in turn (never rounded), and booking makes the ids tau2 makes
(``HATHAT``, ``HATHAU``, ``HATHAV``).
"""

from __future__ import annotations

from typing import Any

from .airline_data import CABINS, RESERVATION_JSON
from .common import string_param, tool

NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")


#: The step that refuses a user id the database does not hold, with tau2's message.
USER_EXISTS: dict[str, Any] = {
    "kind": "query",
    "bind": "user",
    "sql": "SELECT user_id FROM users WHERE user_id = :user_id",
    "message": "User {user_id} not found",
}


def sql_list(values: tuple[str, ...]) -> str:
    """A constant list as a JSON array literal for ``json_each``."""
    return "'[" + ", ".join(f'"{v}"' for v in values) + "]'"


# -- parameters ---------------------------------------------------------------------------------------

RESERVATION_ID = string_param("The reservation id, such as 'ZFA04Y'.")
USER_ID = string_param("The user id, such as 'sara_doe_496'.")
_PAYMENT_ID = string_param(
    "A payment method id from the user's profile, such as 'credit_card_7815826' or 'gift_card_7815826'."
)
_CABIN = {"type": "string", "enum": list(CABINS), "description": "The cabin class."}
DATE = string_param("The date, 'YYYY-MM-DD', such as '2024-05-01'.")
AIRPORT = "An airport's three-letter IATA code, such as '{}'."


def _objects(description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "array",
        "description": description,
        "items": {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        },
    }


_FLIGHTS = _objects(
    "The flights, one object per flight segment.",
    {"flight_number": string_param("The flight number, such as 'HAT001'."), "date": DATE},
)
PASSENGERS = _objects(
    "The passengers.",
    {
        "first_name": string_param("The passenger's first name."),
        "last_name": string_param("The passenger's last name."),
        "dob": string_param("The passenger's date of birth, 'YYYY-MM-DD'."),
    },
)
_PAYMENTS = _objects(
    "How the reservation is paid: the amounts must add up to the total price.",
    {"payment_id": _PAYMENT_ID, "amount": {"type": "integer", "description": "The amount in dollars."}},
)
_BAGS = {"type": "integer", "description": "The total number of checked bags."}
_NONFREE_BAGS = {"type": "integer", "description": "How many of the checked bags are paid for."}

# -- shared steps ---------------------------------------------------------------------------------------

RESERVATION = {
    "kind": "query",
    "bind": "reservation",
    "sql": "SELECT * FROM reservations WHERE reservation_id = :reservation_id",
    "message": "Reservation {reservation_id} not found",
}
_RESERVATION_USER = {
    "kind": "query",
    "bind": "user",
    "sql": "SELECT user_id FROM users WHERE user_id = :reservation.user_id",
    "message": "User {reservation.user_id} not found",
}
RETURN_RESERVATION = {
    "kind": "return",
    "shape": "value",
    "json_columns": ["document"],
    "sql": f"SELECT {RESERVATION_JSON} AS document FROM reservations r WHERE r.reservation_id = :reservation_id",
}
PASSENGER_COUNT = "(SELECT count(*) FROM reservation_passengers WHERE reservation_id = :reservation_id)"

# The requested flight segments, in list order.
_SEGMENTS = """SELECT s.key AS k, json_extract(s.value, '$.flight_number') AS fn, json_extract(s.value, '$.date') AS day
  FROM json_each(:flights) AS s"""


def _segments_available(passengers: str, kept: str = "0") -> dict[str, Any]:
    """tau2's checks of each new segment, in list order: the flight, its date, its status, the seats
    left in the cabin. ``kept`` says when a segment is one the reservation already has (no check)."""
    return {
        "kind": "require",
        "mode": "empty",
        "message": "{problem}",
        "sql": f"""SELECT CASE
    WHEN f.flight_number IS NULL THEN 'Flight ' || n.fn || ' not found'
    WHEN d.date IS NULL THEN 'Flight ' || n.fn || ' not found on date ' || n.day
    WHEN d.status != 'available' THEN 'Flight ' || n.fn || ' not available on date ' || n.day
    ELSE 'Not enough seats on flight ' || n.fn END AS problem
  FROM ({_SEGMENTS}) AS n
  LEFT JOIN flights AS f ON f.flight_number = n.fn
  LEFT JOIN flight_dates AS d ON d.flight_number = n.fn AND d.date = n.day
  WHERE NOT ({kept}) AND (f.flight_number IS NULL OR d.date IS NULL OR d.status != 'available'
         OR json_extract(d.available_seats, '$.' || :cabin) < {passengers})
  ORDER BY n.k LIMIT 1""",
    }


def _payment_for_update(total: str) -> list[dict[str, Any]]:
    """tau2's payment for a change of flights or bags: any method but a certificate; a gift card must
    cover ``total`` and is charged (or refunded, when negative) at once; a non-zero total is recorded."""
    return [
        {
            "kind": "query",
            "bind": "method",
            "sql": "SELECT source, amount FROM payment_methods "
            "WHERE user_id = :user.user_id AND payment_method_id = :payment_id",
            "message": "Payment method not found",
        },
        {
            "kind": "require",
            "message": "Certificate cannot be used to update reservation",
            "sql": "SELECT :method.source != 'certificate'",
        },
        {
            "kind": "require",
            "message": "Gift card balance is not enough",
            "sql": f"SELECT NOT (:method.source = 'gift_card' AND :method.amount < {total})",
        },
        {
            "kind": "exec",
            "sql": f"""UPDATE payment_methods SET amount = amount - {total}
  WHERE user_id = :user.user_id AND payment_method_id = :payment_id AND source = 'gift_card' AND {total} != 0""",
        },
        {
            "kind": "exec",
            "sql": f"""INSERT INTO reservation_payments (reservation_id, position, payment_id, amount)
  SELECT :reservation_id, (SELECT count(*) FROM reservation_payments WHERE reservation_id = :reservation_id),
         :payment_id, {total} WHERE {total} != 0""",
        },
    ]


# A segment the reservation already has (same flight and date, cabin unchanged): tau2 keeps it as is.
_KEPT = """:cabin = :reservation.cabin AND EXISTS (SELECT 1 FROM reservation_flights AS rf
  WHERE rf.reservation_id = :reservation_id AND rf.flight_number = n.fn AND rf.date = n.day)"""

# The new list of segments: a kept one as it was (its first match), a new one at today's cabin price.
_NEW_SEGMENTS = f"""SELECT n.k,
    coalesce(old.flight_number, n.fn) AS flight_number, coalesce(old.origin, f.origin) AS origin,
    coalesce(old.destination, f.destination) AS destination, coalesce(old.date, n.day) AS date,
    coalesce(old.price, json_extract(d.prices, '$.' || :cabin)) AS price
  FROM ({_SEGMENTS}) AS n
  LEFT JOIN reservation_flights AS old ON :cabin = :reservation.cabin AND old.reservation_id = :reservation_id
    AND old.position = (SELECT min(rf.position) FROM reservation_flights AS rf
                        WHERE rf.reservation_id = :reservation_id AND rf.flight_number = n.fn AND rf.date = n.day)
  LEFT JOIN flights AS f ON f.flight_number = n.fn
  LEFT JOIN flight_dates AS d ON d.flight_number = n.fn AND d.date = n.day"""


def book_reservation() -> dict[str, Any]:
    passengers = "json_array_length(:passengers)"
    payments = """SELECT p.key AS k, json_extract(p.value, '$.payment_id') AS pid,
    CAST(json_extract(p.value, '$.amount') AS INTEGER) AS amount FROM json_each(:payment_methods) AS p"""
    return tool(
        "book_reservation",
        "Book a reservation for a user: the flights in the given cabin for every passenger, optional travel "
        "insurance (30 dollars a passenger) and paid bags (50 dollars each). The payments must add up to the "
        "total; a gift card or certificate must hold its amount, and a certificate is used up. Returns the "
        "reservation.",
        "write",
        {
            "user_id": USER_ID,
            "origin": string_param(AIRPORT.format("SFO")),
            "destination": string_param(AIRPORT.format("JFK")),
            "flight_type": {"type": "string", "enum": ["one_way", "round_trip"], "description": "The trip type."},
            "cabin": _CABIN,
            "flights": _FLIGHTS,
            "passengers": PASSENGERS,
            "payment_methods": _PAYMENTS,
            "total_baggages": _BAGS,
            "nonfree_baggages": _NONFREE_BAGS,
            "insurance": {"type": "string", "enum": ["yes", "no"], "description": "Whether to add travel insurance."},
        },
        [
            {**USER_EXISTS},
            {
                "kind": "query",
                "bind": "new",
                "sql": f"""SELECT value AS id FROM json_each({sql_list(NEW_RESERVATION_IDS)})
  WHERE value NOT IN (SELECT reservation_id FROM reservations) ORDER BY key LIMIT 1""",
                "message": "Too many reservations",
            },
            _segments_available(passengers),
            {
                "kind": "require",
                "mode": "empty",
                "message": "{problem}",
                "sql": f"""SELECT CASE WHEN m.payment_method_id IS NULL THEN 'Payment method ' || p.pid || ' not found'
    ELSE 'Not enough balance in payment method ' || p.pid END AS problem
  FROM ({payments}) AS p
  LEFT JOIN payment_methods AS m ON m.user_id = :user_id AND m.payment_method_id = p.pid
  WHERE m.payment_method_id IS NULL OR (m.source IN ('gift_card', 'certificate') AND m.amount < p.amount)
  ORDER BY p.k LIMIT 1""",
            },
            {
                "kind": "query",
                "bind": "total",
                "sql": f"""SELECT
    (SELECT coalesce(sum(json_extract(d.prices, '$.' || :cabin)), 0) FROM ({_SEGMENTS}) AS n
       JOIN flight_dates AS d ON d.flight_number = n.fn AND d.date = n.day) * {passengers}
    + CASE WHEN :insurance = 'yes' THEN 30 * {passengers} ELSE 0 END
    + 50 * CAST(:nonfree_baggages AS INTEGER) AS price,
    (SELECT coalesce(sum(p.amount), 0) FROM ({payments}) AS p) AS paid""",
            },
            {
                "kind": "require",
                "message": "Payment amount does not add up, total price is {total.price}, but paid {total.paid}",
                "sql": "SELECT :total.price = :total.paid",
            },
            {
                # tau2 removes a used certificate while paying: named twice, its second use fails.
                "kind": "require",
                "mode": "empty",
                "message": "'{pid}'",
                "sql": f"""SELECT p.pid FROM ({payments}) AS p
  JOIN payment_methods AS m ON m.user_id = :user_id AND m.payment_method_id = p.pid AND m.source = 'certificate'
  WHERE EXISTS (SELECT 1 FROM ({payments}) AS q WHERE q.pid = p.pid AND q.k < p.k) ORDER BY p.k LIMIT 1""",
            },
            {
                "kind": "exec",
                "for_each": "payment_methods",
                "sql": """UPDATE payment_methods SET amount = amount - CAST(:item.amount AS INTEGER)
  WHERE user_id = :user_id AND payment_method_id = :item.payment_id AND source = 'gift_card'""",
            },
            {
                "kind": "exec",
                "sql": """DELETE FROM payment_methods WHERE user_id = :user_id AND source = 'certificate'
  AND payment_method_id IN (SELECT json_extract(value, '$.payment_id') FROM json_each(:payment_methods))""",
            },
            {
                "kind": "exec",
                "for_each": "flights",
                "sql": f"""UPDATE flight_dates SET available_seats = json_set(available_seats, '$.' || :cabin,
    json_extract(available_seats, '$.' || :cabin) - {passengers})
  WHERE flight_number = :item.flight_number AND date = :item.date""",
            },
            {
                "kind": "exec",
                "sql": """INSERT INTO reservations VALUES (:new.id, :user_id,
    (SELECT coalesce(max(user_position) + 1, 0) FROM reservations WHERE user_id = :user_id),
    :origin, :destination, :flight_type, :cabin, replace(:now, ' ', 'T'),
    CAST(:total_baggages AS INTEGER), CAST(:nonfree_baggages AS INTEGER), :insurance, NULL)""",
            },
            {
                "kind": "exec",
                "sql": f"""INSERT INTO reservation_flights
  SELECT :new.id, n.k, n.fn, f.origin, f.destination, n.day, json_extract(d.prices, '$.' || :cabin)
  FROM ({_SEGMENTS}) AS n JOIN flights AS f ON f.flight_number = n.fn
  JOIN flight_dates AS d ON d.flight_number = n.fn AND d.date = n.day""",
            },
            {
                "kind": "exec",
                "sql": """INSERT INTO reservation_passengers
  SELECT :new.id, key, json_extract(value, '$.first_name'), json_extract(value, '$.last_name'),
         json_extract(value, '$.dob') FROM json_each(:passengers)""",
            },
            {
                "kind": "exec",
                "sql": f"INSERT INTO reservation_payments SELECT :new.id, p.k, p.pid, p.amount FROM ({payments}) AS p",
            },
            {
                "kind": "return",
                "shape": "value",
                "json_columns": ["document"],
                "sql": f"SELECT {RESERVATION_JSON} AS document FROM reservations r WHERE r.reservation_id = :new.id",
            },
        ],
    )


def update_reservation_flights() -> dict[str, Any]:
    return tool(
        "update_reservation_flights",
        "Change the flights (and cabin) of a reservation. Give every segment of the whole new itinerary, "
        "changed or not. The fare difference for all passengers is charged to, or refunded to, the given "
        "payment method (not a certificate). Returns the reservation.",
        "write",
        {
            "reservation_id": RESERVATION_ID,
            "cabin": _CABIN,
            "flights": {**_FLIGHTS, "description": "Every flight segment of the new itinerary, in order."},
            "payment_id": _PAYMENT_ID,
        },
        [
            RESERVATION,
            _RESERVATION_USER,
            _segments_available(PASSENGER_COUNT, _KEPT),
            {
                "kind": "query",
                "bind": "segments",
                "sql": f"""SELECT json_group_array(json_object('flight_number', s.flight_number, 'origin', s.origin,
    'destination', s.destination, 'date', s.date, 'price', s.price)) AS list,
    (coalesce(sum(s.price), 0)
     - (SELECT coalesce(sum(price), 0) FROM reservation_flights WHERE reservation_id = :reservation_id))
    * {PASSENGER_COUNT} AS difference
  FROM ({_NEW_SEGMENTS} ORDER BY n.k) AS s""",
            },
            *_payment_for_update(":segments.difference"),
            {"kind": "exec", "sql": "DELETE FROM reservation_flights WHERE reservation_id = :reservation_id"},
            {
                "kind": "exec",
                "sql": """INSERT INTO reservation_flights
  SELECT :reservation_id, key, json_extract(value, '$.flight_number'), json_extract(value, '$.origin'),
         json_extract(value, '$.destination'), json_extract(value, '$.date'), json_extract(value, '$.price')
  FROM json_each(:segments.list)""",
            },
            {"kind": "exec", "sql": "UPDATE reservations SET cabin = :cabin WHERE reservation_id = :reservation_id"},
            RETURN_RESERVATION,
        ],
    )


def update_reservation_baggages() -> dict[str, Any]:
    return tool(
        "update_reservation_baggages",
        "Change the number of checked bags of a reservation. Each added paid bag costs 50 dollars, charged "
        "to the given payment method (not a certificate); removing bags refunds nothing. Returns the "
        "reservation.",
        "write",
        {
            "reservation_id": RESERVATION_ID,
            "total_baggages": {**_BAGS, "description": "The new total number of checked bags."},
            "nonfree_baggages": {**_NONFREE_BAGS, "description": "The new number of paid bags."},
            "payment_id": _PAYMENT_ID,
        },
        [
            RESERVATION,
            _RESERVATION_USER,
            {
                "kind": "query",
                "bind": "bags",
                "sql": "SELECT 50 * max(0, CAST(:nonfree_baggages AS INTEGER) - :reservation.nonfree_baggages) "
                "AS price",
            },
            *_payment_for_update(":bags.price"),
            {
                "kind": "exec",
                "sql": """UPDATE reservations SET total_baggages = CAST(:total_baggages AS INTEGER),
nonfree_baggages = CAST(:nonfree_baggages AS INTEGER) WHERE reservation_id = :reservation_id""",
            },
            RETURN_RESERVATION,
        ],
    )
