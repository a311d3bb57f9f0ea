"""tau2-bench's telecom data, the carrier's side, as tables (``db.toml``: plans, customers, lines, bills,
devices), with the SQL that rebuilds tau2's records from the rows. Tool results and the exported
database use the same SQL. The customer's side is ``telecom_phone``.

Dates are kept as tau2 shows them (``2025-02-25``), date-times as tau2's dump writes them
(``2025-01-15 10:30:00``), and every list whose order tau2 shows has a ``position``.
"""

from __future__ import annotations

import json
from typing import Any

from .common import boolean_json, money_json

# -- the carrier's side -----------------------------------------------------------------------------


def cols(*specs: str) -> list[dict[str, Any]]:
    """``name:type`` or ``name:type?`` (nullable)."""
    out = []
    for spec in specs:
        name, kind = spec.split(":")
        out.append({"name": name, "type": kind.rstrip("?"), **({"nullable": True} if kind.endswith("?") else {})})
    return out


AGENT_TABLES: list[dict[str, Any]] = [
    {
        "name": "plans",
        "primary_key": ["plan_id"],
        "columns": cols(
            "plan_id:text",
            "position:integer",
            "name:text",
            "data_limit_gb:real",
            "price_per_month:real",
            "data_refueling_price_per_gb:real",
        ),
    },
    {
        "name": "customers",
        "primary_key": ["customer_id"],
        "columns": cols(
            "customer_id:text",
            "position:integer",
            "full_name:text",
            "date_of_birth:text",
            "email:text",
            "phone_number:text",
            "address:json",
            "account_status:text",
            "payment_methods:json",
            "line_ids:json",
            "bill_ids:json",
            "created_at:text",
            "last_extension_date:text?",
            "goodwill_credit_used_this_year:real",
        ),
    },
    {
        "name": "lines",
        "primary_key": ["line_id"],
        "columns": cols(
            "line_id:text",
            "position:integer",
            "phone_number:text",
            "status:text",
            "plan_id:text",
            "device_id:text?",
            "data_used_gb:real",
            "data_refueling_gb:real",
            "roaming_enabled:boolean",
            "contract_end_date:text?",
            "last_plan_change_date:text?",
            "last_sim_replacement_date:text?",
            "suspension_start_date:text?",
        ),
    },
    {
        "name": "bills",
        "primary_key": ["bill_id"],
        "columns": cols(
            "bill_id:text",
            "position:integer",
            "customer_id:text",
            "period_start:text",
            "period_end:text",
            "issue_date:text",
            "total_due:real",
            "due_date:text",
            "line_items:json",
            "status:text",
        ),
    },
    {
        "name": "devices",
        "primary_key": ["device_id"],
        "columns": cols(
            "device_id:text",
            "position:integer",
            "device_type:text",
            "model:text",
            "imei:text?",
            "is_esim_capable:boolean",
            "activated:boolean",
            "activation_date:text?",
            "last_esim_transfer_date:text?",
        ),
    },
]

PLAN_JSON = (
    "json_object('plan_id', p.plan_id, 'name', p.name, 'data_limit_gb', {}, 'price_per_month', {}, "
    "'data_refueling_price_per_gb', {})".format(
        money_json("p.data_limit_gb"), money_json("p.price_per_month"), money_json("p.data_refueling_price_per_gb")
    )
)
_ADDRESS = (
    "json_object("
    + ", ".join(f"'{f}', json_extract(c.address, '$.{f}')" for f in ("street", "city", "state", "zip_code"))
    + ")"
)
_METHODS = (
    "json((SELECT json_group_array(json_object('method_type', json_extract(m.value, '$.method_type'), "
    "'account_number_last_4', json_extract(m.value, '$.account_number_last_4'), "
    "'expiration_date', json_extract(m.value, '$.expiration_date'))) "
    "FROM (SELECT value FROM json_each(c.payment_methods) ORDER BY key) AS m))"
)
CUSTOMER_JSON = (
    "json_object('customer_id', c.customer_id, 'full_name', c.full_name, 'date_of_birth', c.date_of_birth, "
    f"'email', c.email, 'phone_number', c.phone_number, 'address', {_ADDRESS}, "
    f"'account_status', c.account_status, 'payment_methods', {_METHODS}, 'line_ids', json(c.line_ids), "
    "'bill_ids', json(c.bill_ids), 'created_at', c.created_at, 'last_extension_date', c.last_extension_date, "
    f"'goodwill_credit_used_this_year', {money_json('c.goodwill_credit_used_this_year')})"
)
LINE_JSON = (
    "json_object('line_id', l.line_id, 'phone_number', l.phone_number, 'status', l.status, 'plan_id', l.plan_id, "
    f"'device_id', l.device_id, 'data_used_gb', {money_json('l.data_used_gb')}, "
    f"'data_refueling_gb', {money_json('l.data_refueling_gb')}, "
    f"'roaming_enabled', {boolean_json('l.roaming_enabled')}, "
    "'contract_end_date', l.contract_end_date, 'last_plan_change_date', l.last_plan_change_date, "
    "'last_sim_replacement_date', l.last_sim_replacement_date, 'suspension_start_date', l.suspension_start_date)"
)
_ITEM_AMOUNT = money_json("json_extract(i.value, '$.amount')")
_ITEMS = (
    "json((SELECT json_group_array(json_object('description', json_extract(i.value, '$.description'), "
    f"'amount', {_ITEM_AMOUNT}, "
    "'date', json_extract(i.value, '$.date'), 'item_type', json_extract(i.value, '$.item_type'))) "
    "FROM (SELECT value FROM json_each(b.line_items) ORDER BY key) AS i))"
)
BILL_JSON = (
    "json_object('bill_id', b.bill_id, 'customer_id', b.customer_id, 'period_start', b.period_start, "
    "'period_end', b.period_end, 'issue_date', b.issue_date, "
    f"'total_due', {money_json('b.total_due')}, 'due_date', b.due_date, 'line_items', {_ITEMS}, 'status', b.status)"
)
DEVICE_JSON = (
    "json_object('device_id', d.device_id, 'device_type', d.device_type, 'model', d.model, 'imei', d.imei, "
    f"'is_esim_capable', {boolean_json('d.is_esim_capable')}, 'activated', {boolean_json('d.activated')}, "
    "'activation_date', d.activation_date, 'last_esim_transfer_date', d.last_esim_transfer_date)"
)

#: tau2 table -> (FROM clause, key, record SQL, ORDER BY): the agent DB as tau2 dumps it.
AGENT_DOCUMENTS: dict[str, tuple[str, str, str, str]] = {
    "plans": ("plans p", "p.plan_id", PLAN_JSON, "p.position"),
    "customers": ("customers c", "c.customer_id", CUSTOMER_JSON, "c.position"),
    "lines": ("lines l", "l.line_id", LINE_JSON, "l.position"),
    "bills": ("bills b", "b.bill_id", BILL_JSON, "b.position"),
    "devices": ("devices d", "d.device_id", DEVICE_JSON, "d.position"),
}


def _date_time(value: Any) -> Any:
    """A TOML date-time string as tau2's dump writes a datetime (``2025-01-15 10:30:00``)."""
    return None if value is None else str(value).replace("T", " ")


def _text(value: Any) -> Any:
    return None if value is None else str(value)


def agent_seed(db: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``db.toml`` as rows, each number a float where tau2's model keeps a float."""
    rows: dict[str, list[dict[str, Any]]] = {t["name"]: [] for t in AGENT_TABLES}
    for i, p in enumerate(db.get("plans", [])):
        rows["plans"].append(
            {
                "plan_id": p["plan_id"],
                "position": i,
                "name": p["name"],
                **{k: float(p[k]) for k in ("data_limit_gb", "price_per_month", "data_refueling_price_per_gb")},
            }
        )
    for i, c in enumerate(db.get("customers", [])):
        rows["customers"].append(
            {
                "customer_id": c["customer_id"],
                "position": i,
                **{k: c[k] for k in ("full_name", "date_of_birth", "email", "phone_number", "address")},
                "account_status": c.get("account_status", "Pending Verification"),
                "payment_methods": c["payment_methods"],
                "line_ids": c["line_ids"],
                "bill_ids": c["bill_ids"],
                "created_at": _date_time(c.get("created_at", "2025-01-01 00:00:00")),
                "last_extension_date": _text(c.get("last_extension_date")),
                "goodwill_credit_used_this_year": float(c["goodwill_credit_used_this_year"]),
            }
        )
    for i, line in enumerate(db.get("lines", [])):
        rows["lines"].append(
            {
                **{k: line[k] for k in ("line_id", "phone_number", "status", "plan_id")},
                "position": i,
                "device_id": line.get("device_id"),
                "data_used_gb": float(line["data_used_gb"]),
                "data_refueling_gb": float(line["data_refueling_gb"]),
                "roaming_enabled": bool(line["roaming_enabled"]),
                **{
                    k: _text(line.get(k))
                    for k in (
                        "contract_end_date",
                        "last_plan_change_date",
                        "last_sim_replacement_date",
                        "suspension_start_date",
                    )
                },
            }
        )
    for i, b in enumerate(db.get("bills", [])):
        items = [
            {**item, "amount": float(item["amount"]), "date": str(item["date"])} for item in b.get("line_items", [])
        ]
        rows["bills"].append(
            {
                **{k: b[k] for k in ("bill_id", "customer_id", "status")},
                "position": i,
                **{k: str(b[k]) for k in ("period_start", "period_end", "issue_date", "due_date")},
                "total_due": float(b["total_due"]),
                "line_items": items,
            }
        )
    for i, d in enumerate(db.get("devices", [])):
        rows["devices"].append(
            {
                **{k: d[k] for k in ("device_id", "device_type", "model")},
                "position": i,
                "imei": d.get("imei"),
                "is_esim_capable": bool(d["is_esim_capable"]),
                "activated": bool(d["activated"]),
                "activation_date": _date_time(d.get("activation_date")),
                "last_esim_transfer_date": _date_time(d.get("last_esim_transfer_date")),
            }
        )
    return rows


def export_agent_db(episode: Any) -> dict[str, dict[str, Any]]:
    """The carrier's side in tau2's shape, each table as ``{key: record}`` in list order."""
    out: dict[str, dict[str, Any]] = {}
    for table, (source, key, document, order) in AGENT_DOCUMENTS.items():
        rows = episode.query(f"SELECT {key} AS key, {document} AS document FROM {source} ORDER BY {order}")
        out[table] = {row["key"]: json.loads(row["document"]) for row in rows}
    return out
