"""tau2-bench's airline data as tables: the rows of ``db.json`` and the SQL that rebuilds tau2's JSON
records from them (``FLIGHT_JSON``, ``USER_JSON``, ``RESERVATION_JSON``). Tool results and the
exported database use the same SQL, so they can never disagree.

tau2 keeps documents (a flight holds its status per date; a user holds its payment methods and the
ids of its reservations; a reservation holds its flights, passengers and payments). Here they are
rows, with a ``position`` wherever tau2's order of a list or dict shows in a result. Value objects
that no tool changes piecemeal (an address, the saved passengers, a date's seats and prices by
cabin) are JSON columns.
"""

from __future__ import annotations

from typing import Any

from .common import money_json, ordered

CABINS: tuple[str, ...] = ("basic_economy", "economy", "business")
FLIGHT_STATUSES: tuple[str, ...] = ("available", "on time", "flying", "landed", "cancelled", "delayed")
#: The times each status of a flight date carries, in tau2's field order.
STATUS_TIMES = {
    "available": (),
    "on time": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "flying": ("actual_departure_time_est", "estimated_arrival_time_est"),
    "landed": ("actual_departure_time_est", "actual_arrival_time_est"),
    "cancelled": (),
    "delayed": ("estimated_departure_time_est", "estimated_arrival_time_est"),
}
_ADDRESS_FIELDS = ("address1", "address2", "city", "country", "state", "zip")
_PASSENGER_FIELDS = ("first_name", "last_name", "dob")
TIME_COLUMNS = (
    "estimated_departure_time_est",
    "estimated_arrival_time_est",
    "actual_departure_time_est",
    "actual_arrival_time_est",
)


def _text(name: str, description: str = "", *, nullable: bool = False) -> dict[str, Any]:
    column: dict[str, Any] = {"name": name, "type": "text"}
    if description:
        column["description"] = description
    if nullable:
        column["nullable"] = True
    return column


def _position(description: str) -> dict[str, Any]:
    return {"name": "position", "type": "integer", "description": description}


TABLES: list[dict[str, Any]] = [
    {
        "name": "flights",
        "primary_key": ["flight_number"],
        "columns": [
            _text("flight_number"),
            _position("order in db.json (search results follow it)"),
            _text("origin", "IATA code"),
            _text("destination", "IATA code"),
            _text("scheduled_departure_time_est", "HH:MM:SS"),
            _text("scheduled_arrival_time_est", "HH:MM:SS, with '+1' when it lands the next day"),
        ],
    },
    {
        "name": "flight_dates",
        "primary_key": ["flight_number", "date"],
        "columns": [
            _text("flight_number"),
            _text("date", "YYYY-MM-DD"),
            _position("order among the flight's dates"),
            {"name": "status", "type": "text", "enum": list(FLIGHT_STATUSES)},
            {"name": "available_seats", "type": "json", "nullable": True, "description": "cabin -> seats (available)"},
            {"name": "prices", "type": "json", "nullable": True, "description": "cabin -> price (available)"},
            *(_text(name, "YYYY-MM-DDTHH:MM:SS", nullable=True) for name in TIME_COLUMNS),
        ],
        "foreign_keys": [{"columns": ["flight_number"], "table": "flights", "references": ["flight_number"]}],
    },
    {
        "name": "users",
        "primary_key": ["user_id"],
        "columns": [
            _text("user_id"),
            _position("order in db.json"),
            _text("first_name"),
            _text("last_name"),
            {"name": "address", "type": "json"},
            _text("email"),
            _text("dob", "YYYY-MM-DD"),
            {"name": "saved_passengers", "type": "json", "description": "[{first_name, last_name, dob}]"},
            {"name": "membership", "type": "text", "enum": ["gold", "silver", "regular"]},
        ],
    },
    {
        "name": "payment_methods",
        "primary_key": ["user_id", "payment_method_id"],
        "columns": [
            _text("user_id"),
            _text("payment_method_id"),
            _position("order among the user's payment methods"),
            {"name": "source", "type": "text", "enum": ["credit_card", "gift_card", "certificate"]},
            _text("brand", nullable=True),
            _text("last_four", nullable=True),
            {"name": "amount", "type": "real", "nullable": True, "description": "gift card or certificate balance"},
        ],
        "foreign_keys": [{"columns": ["user_id"], "table": "users", "references": ["user_id"]}],
    },
    {
        "name": "reservations",
        "primary_key": ["reservation_id"],
        "columns": [
            _text("reservation_id"),
            _text("user_id"),
            {"name": "user_position", "type": "integer", "description": "place in the user's list of reservations"},
            _text("origin"),
            _text("destination"),
            {"name": "flight_type", "type": "text", "enum": ["round_trip", "one_way"]},
            {"name": "cabin", "type": "text", "enum": list(CABINS)},
            _text("created_at", "YYYY-MM-DDTHH:MM:SS"),
            {"name": "total_baggages", "type": "integer"},
            {"name": "nonfree_baggages", "type": "integer"},
            {"name": "insurance", "type": "text", "enum": ["yes", "no"]},
            {"name": "status", "type": "text", "nullable": True, "enum": ["cancelled"]},
        ],
        "foreign_keys": [{"columns": ["user_id"], "table": "users", "references": ["user_id"]}],
    },
    {
        "name": "reservation_flights",
        "primary_key": ["reservation_id", "position"],
        "columns": [
            _text("reservation_id"),
            _position("order in the reservation"),
            _text("flight_number"),
            _text("origin"),
            _text("destination"),
            _text("date", "YYYY-MM-DD"),
            {"name": "price", "type": "integer", "description": "per passenger, in dollars"},
        ],
        "foreign_keys": [
            {"columns": ["reservation_id"], "table": "reservations", "references": ["reservation_id"]},
            {"columns": ["flight_number"], "table": "flights", "references": ["flight_number"]},
        ],
    },
    {
        "name": "reservation_passengers",
        "primary_key": ["reservation_id", "position"],
        "columns": [
            _text("reservation_id"),
            _position("order in the reservation"),
            _text("first_name"),
            _text("last_name"),
            _text("dob", "YYYY-MM-DD"),
        ],
        "foreign_keys": [{"columns": ["reservation_id"], "table": "reservations", "references": ["reservation_id"]}],
    },
    {
        "name": "reservation_payments",
        "primary_key": ["reservation_id", "position"],
        "columns": [
            _text("reservation_id"),
            _position("order in the payment history"),
            _text("payment_id", "the payment method charged (refunds are negative)"),
            {"name": "amount", "type": "integer"},
        ],
        "foreign_keys": [{"columns": ["reservation_id"], "table": "reservations", "references": ["reservation_id"]}],
    },
]

# -- the documents tau2 returns, rebuilt in SQL -----------------------------------------------------


def cabin_map(column: str) -> str:
    """A cabin -> number JSON column in tau2's cabin order (the engine stores JSON with sorted keys)."""
    return "json_object(" + ", ".join(f"'{c}', json_extract({column}, '$.{c}')" for c in CABINS) + ")"


def _passengers_json(column: str) -> str:
    """A JSON list of passengers with tau2's field order."""
    fields = ", ".join(f"'{k}', json_extract(sp.value, '$.{k}')" for k in _PASSENGER_FIELDS)
    return f"""(SELECT json_group_array(json_object({fields}))
                     FROM (SELECT value FROM json_each({column}) ORDER BY key) AS sp)"""


def _times(status: str) -> str:
    return "".join(f", '{name}', d.{name}" for name in STATUS_TIMES[status])


FLIGHT_DATE_JSON = f"""json(CASE d.status
  WHEN 'available' THEN json_object('status', d.status, 'available_seats', {cabin_map("d.available_seats")},
                                    'prices', {cabin_map("d.prices")})
  {" ".join(f"WHEN '{s}' THEN json_object('status', d.status{_times(s)})" for s in FLIGHT_STATUSES[1:])} END)"""

FLIGHT_JSON = f"""json_object('flight_number', f.flight_number, 'origin', f.origin, 'destination', f.destination,
  'scheduled_departure_time_est', f.scheduled_departure_time_est,
  'scheduled_arrival_time_est', f.scheduled_arrival_time_est,
  'dates', (SELECT json_group_object(d.date, {FLIGHT_DATE_JSON})
            FROM {ordered("flight_dates", "d.flight_number = f.flight_number", "d")}))"""


def direct_flight_json(flight: str, day: str, date: str) -> str:
    """tau2's ``DirectFlight`` (a search result) from a ``flights`` and a ``flight_dates`` row."""
    return f"""json_object('flight_number', {flight}.flight_number, 'origin', {flight}.origin,
  'destination', {flight}.destination, 'status', 'available',
  'scheduled_departure_time_est', {flight}.scheduled_departure_time_est,
  'scheduled_arrival_time_est', {flight}.scheduled_arrival_time_est, 'date', {date},
  'available_seats', {cabin_map(f"{day}.available_seats")}, 'prices', {cabin_map(f"{day}.prices")})"""


ADDRESS_JSON = "json_object(" + ", ".join(f"'{k}', json_extract(u.address, '$.{k}')" for k in _ADDRESS_FIELDS) + ")"

PAYMENT_METHOD_JSON = f"""json(CASE m.source
  WHEN 'credit_card' THEN json_object('source', m.source, 'id', m.payment_method_id,
                                      'brand', m.brand, 'last_four', m.last_four)
  ELSE json_object('source', m.source, 'id', m.payment_method_id, 'amount', {money_json("m.amount")}) END)"""

USER_JSON = f"""json_object(
  'user_id', u.user_id, 'name', json_object('first_name', u.first_name, 'last_name', u.last_name),
  'address', {ADDRESS_JSON}, 'email', u.email, 'dob', u.dob,
  'payment_methods', (SELECT json_group_object(m.payment_method_id, {PAYMENT_METHOD_JSON})
                      FROM {ordered("payment_methods", "m.user_id = u.user_id", "m")}),
  'saved_passengers', {_passengers_json("u.saved_passengers")}, 'membership', u.membership,
  'reservations', (SELECT json_group_array(ur.reservation_id)
                   FROM (SELECT reservation_id FROM reservations WHERE user_id = u.user_id
                         ORDER BY user_position) AS ur))"""

RESERVATION_JSON = f"""json_object(
  'reservation_id', r.reservation_id, 'user_id', r.user_id, 'origin', r.origin, 'destination', r.destination,
  'flight_type', r.flight_type, 'cabin', r.cabin,
  'flights', (SELECT json_group_array(json_object('flight_number', rf.flight_number, 'origin', rf.origin,
                'destination', rf.destination, 'date', rf.date, 'price', rf.price))
              FROM {ordered("reservation_flights", "rf.reservation_id = r.reservation_id", "rf")}),
  'passengers', (SELECT json_group_array(json_object('first_name', rp.first_name, 'last_name', rp.last_name,
                   'dob', rp.dob))
                 FROM {ordered("reservation_passengers", "rp.reservation_id = r.reservation_id", "rp")}),
  'payment_history', (SELECT json_group_array(json_object('payment_id', pay.payment_id, 'amount', pay.amount))
                      FROM {ordered("reservation_payments", "pay.reservation_id = r.reservation_id", "pay")}),
  'created_at', r.created_at, 'total_baggages', r.total_baggages, 'nonfree_baggages', r.nonfree_baggages,
  'insurance', r.insurance, 'status', r.status)"""

DOCUMENTS = {  # tau2 table -> (envfarm table alias, key column, document SQL, order)
    "flights": ("flights f", "f.flight_number", FLIGHT_JSON, "f.position"),
    "users": ("users u", "u.user_id", USER_JSON, "u.position"),
    "reservations": ("reservations r", "r.reservation_id", RESERVATION_JSON, "r.reservation_id"),
}


def _passenger(p: dict[str, Any]) -> dict[str, Any]:
    return {k: p[k] for k in _PASSENGER_FIELDS}


def seed(db: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """tau2's airline ``db.json`` as seed rows."""
    rows: dict[str, list[dict[str, Any]]] = {t["name"]: [] for t in TABLES}
    for pos, (number, flight) in enumerate(db["flights"].items()):
        rows["flights"].append(
            {
                "flight_number": number,
                "position": pos,
                **{k: flight[k] for k in ("origin", "destination")},
                **{k: flight[k] for k in ("scheduled_departure_time_est", "scheduled_arrival_time_est")},
            }
        )
        for dpos, (date, day) in enumerate(flight["dates"].items()):
            available = day["status"] == "available"
            rows["flight_dates"].append(
                {
                    "flight_number": number,
                    "date": date,
                    "position": dpos,
                    "status": day["status"],
                    "available_seats": day["available_seats"] if available else None,
                    "prices": day["prices"] if available else None,
                    **{name: day.get(name) for name in TIME_COLUMNS},
                }
            )
    for pos, (user_id, user) in enumerate(db["users"].items()):
        rows["users"].append(
            {
                "user_id": user_id,
                "position": pos,
                "first_name": user["name"]["first_name"],
                "last_name": user["name"]["last_name"],
                "address": {k: user["address"].get(k) for k in _ADDRESS_FIELDS},
                "email": user["email"],
                "dob": user["dob"],
                "saved_passengers": [_passenger(p) for p in user["saved_passengers"]],
                "membership": user["membership"],
            }
        )
        for mpos, (method_id, method) in enumerate(user["payment_methods"].items()):
            rows["payment_methods"].append(
                {
                    "user_id": user_id,
                    "payment_method_id": method_id,
                    "position": mpos,
                    "source": method["source"],
                    "brand": method.get("brand"),
                    "last_four": method.get("last_four"),
                    "amount": None if method.get("amount") is None else float(method["amount"]),
                }
            )
    place = {rid: i for user in db["users"].values() for i, rid in enumerate(user["reservations"])}
    for reservation_id, r in db["reservations"].items():
        rows["reservations"].append(
            {
                "reservation_id": reservation_id,
                "user_id": r["user_id"],
                "user_position": place.get(reservation_id, len(place)),
                **{k: r[k] for k in ("origin", "destination", "flight_type", "cabin", "created_at")},
                **{k: r[k] for k in ("total_baggages", "nonfree_baggages", "insurance")},
                "status": r.get("status"),
            }
        )
        for fpos, f in enumerate(r["flights"]):
            rows["reservation_flights"].append(
                {
                    "reservation_id": reservation_id,
                    "position": fpos,
                    **{k: f[k] for k in ("flight_number", "origin", "destination", "date", "price")},
                }
            )
        for ppos, p in enumerate(r["passengers"]):
            rows["reservation_passengers"].append({"reservation_id": reservation_id, "position": ppos, **_passenger(p)})
        for ppos, p in enumerate(r["payment_history"]):
            rows["reservation_payments"].append(
                {
                    "reservation_id": reservation_id,
                    "position": ppos,
                    "payment_id": p["payment_id"],
                    "amount": p["amount"],
                }
            )
    return rows
