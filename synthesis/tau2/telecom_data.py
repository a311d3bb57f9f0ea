"""tau2-bench's telecom data as tables: the carrier's side (``db.toml``: plans, customers, lines, bills,
devices) and the customer's side (``user_db.toml``: the phone, its apps, and the customer's
surroundings), with the SQL that rebuilds tau2's records from the rows. Tool results and the exported
databases use the same SQL.

Dates are kept as tau2 shows them (``2025-02-25``), date-times as tau2's dump writes them
(``2025-01-15 10:30:00``), and every list whose order tau2 shows has a ``position``.
"""

from __future__ import annotations

import json
from typing import Any

from .common import boolean_json, money_json

# -- the carrier's side -----------------------------------------------------------------------------


def _cols(*specs: str) -> list[dict[str, Any]]:
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
        "columns": _cols(
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
        "columns": _cols(
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
        "columns": _cols(
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
        "columns": _cols(
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
        "columns": _cols(
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


# -- the customer's side ----------------------------------------------------------------------------

#: The phone's settings with tau2's defaults, in tau2's field order (the APN settings and the VPN
#: details are flattened here, and rebuilt by ``DEVICE_JSON``).
PHONE_DEFAULTS: dict[str, Any] = {
    "sim_card_status": "active",
    "sim_card_missing": False,
    "airplane_mode": False,
    "network_signal_strength": "good",
    "network_technology_connected": "5G",
    "network_connection_status": "connected",
    "battery_level": 80,
    "data_enabled": True,
    "roaming_enabled": False,
    "network_mode_preference": "4g_5g_preferred",
    "apn_name": "internet",
    "apn_reset_at_reboot": False,
    "mms_apn": "mms",
    "mmsc_url": "http://mms.carrier.com/mms/wapenc",
    "mms_proxy": None,
    "mms_port": None,
    "wifi_enabled": False,
    "wifi_connected": False,
    "wifi_ssid": None,
    "wifi_signal_strength": "none",
    "wifi_calling_enabled": False,
    "wifi_calling_mms_over_wifi": False,
    "data_saver_mode": False,
    "vpn_enabled_setting": False,
    "vpn_connected": False,
    "vpn_details": None,
}
_APN_KEYS = {
    "apn_name": "apn_name",
    "reset_at_reboot": "apn_reset_at_reboot",
    "mms_apn": "mms_apn",
    "mmsc_url": "mmsc_url",
    "mms_proxy": "mms_proxy",
    "mms_port": "mms_port",
}
_BOOLEAN = {k for k, v in PHONE_DEFAULTS.items() if isinstance(v, bool)}
_PERMISSIONS = ("sms", "storage", "phone", "network")
DEFAULT_APPS: dict[str, dict[str, bool]] = {
    "messaging": {"sms": True, "storage": True, "phone": True, "network": False},
    "browser": {"sms": False, "storage": True, "phone": False, "network": True},
}
SURROUNDINGS_DEFAULTS: dict[str, Any] = {
    "name": None,
    "phone_number": None,
    "is_abroad": False,
    "roaming_allowed": False,
    "signal_strength": {"2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"},
    "mobile_data_usage_exceeded": False,
    "line_active": True,
    "payment_request": None,
}

_PHONE_TYPES = {k: "boolean" if k in _BOOLEAN else "text" for k in PHONE_DEFAULTS}
_PHONE_TYPES.update(battery_level="integer", mms_port="integer", vpn_details="json")
_NULLABLE = {"mms_apn", "mmsc_url", "mms_proxy", "mms_port", "wifi_ssid", "vpn_details"}

USER_TABLES: list[dict[str, Any]] = [
    {
        "name": "phone",
        "side": "user",
        "description": "The customer's phone: its settings and what it is connected to (one row)",
        "primary_key": ["phone_id"],
        "columns": [
            {"name": "phone_id", "type": "integer"},
            *(
                {"name": k, "type": t, **({"nullable": True} if k in _NULLABLE else {})}
                for k, t in _PHONE_TYPES.items()
            ),
        ],
    },
    {
        "name": "phone_apps",
        "side": "user",
        "description": "The phone's apps and the permissions each has",
        "primary_key": ["app_name"],
        "columns": _cols("app_name:text", "position:integer", *(f"{p}:boolean" for p in _PERMISSIONS)),
    },
    {
        "name": "surroundings",
        "side": "user",
        "description": "Who and where the customer is, and what the carrier's systems show the phone (one row)",
        "primary_key": ["surroundings_id"],
        "columns": _cols(
            "surroundings_id:integer",
            "name:text?",
            "phone_number:text?",
            "is_abroad:boolean",
            "roaming_allowed:boolean",
            "signal_strength:json",
            "mobile_data_usage_exceeded:boolean",
            "line_active:boolean",
            "payment_request:json?",
        ),
    },
]


def user_seed(user_db: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``user_db.toml`` over tau2's defaults, as rows."""
    device = dict(user_db.get("device") or {})
    phone = dict(PHONE_DEFAULTS)
    for key, column in _APN_KEYS.items():
        if key in (device.get("active_apn_settings") or {}):
            phone[column] = device["active_apn_settings"][key]
    apps = device.pop("app_statuses", None)
    for key, value in device.items():
        if key in phone and key != "active_apn_settings":
            phone[key] = value
    surroundings = {**SURROUNDINGS_DEFAULTS, **(user_db.get("surroundings") or {})}
    app_rows = [
        {
            "app_name": name,
            "position": i,
            **{p: bool((status.get("permissions") or {}).get(p, False)) for p in _PERMISSIONS},
        }
        for i, (name, status) in enumerate(
            (apps if apps is not None else {n: {"permissions": p} for n, p in DEFAULT_APPS.items()}).items()
        )
    ]
    return {
        "phone": [{"phone_id": 1, **phone}],
        "phone_apps": app_rows,
        "surroundings": [{"surroundings_id": 1, **surroundings}],
    }


_APN_JSON = (
    "json_object('apn_name', d.apn_name, 'reset_at_reboot', {}, 'mms_apn', d.mms_apn, 'mmsc_url', d.mmsc_url, "
    "'mms_proxy', d.mms_proxy, 'mms_port', d.mms_port)".format(boolean_json("d.apn_reset_at_reboot"))
)
_VPN_JSON = (
    "CASE WHEN d.vpn_details IS NULL THEN NULL ELSE json_object('server_address', "
    "json_extract(d.vpn_details, '$.server_address'), 'protocol', json_extract(d.vpn_details, '$.protocol'), "
    "'server_performance', json_extract(d.vpn_details, '$.server_performance')) END"
)
_APPS_JSON = (
    "json((SELECT json_group_object(a.app_name, json_object('app_name', a.app_name, 'permissions', json_object("
    + ", ".join(f"'{p}', {boolean_json('a.' + p)}" for p in _PERMISSIONS)
    + "))) FROM (SELECT * FROM phone_apps ORDER BY position) AS a))"
)


def _phone_field(key: str) -> str:
    if key == "apn_name":
        return f"'active_apn_settings', {_APN_JSON}"
    if key in _APN_KEYS.values():
        return ""
    if key == "vpn_details":
        return f"'vpn_details', {_VPN_JSON}, 'app_statuses', {_APPS_JSON}"
    return f"'{key}', {boolean_json('d.' + key)}" if key in _BOOLEAN else f"'{key}', d.{key}"


PHONE_JSON = "json_object(" + ", ".join(f for f in map(_phone_field, PHONE_DEFAULTS) if f) + ")"
_AMOUNT_DUE = money_json("json_extract(s.payment_request, '$.amount_due')")
_PAID = boolean_json("json_extract(s.payment_request, '$.paid')")
_PAYMENT_JSON = (
    "CASE WHEN s.payment_request IS NULL THEN NULL ELSE json_object('bill_id', "
    "json_extract(s.payment_request, '$.bill_id'), 'amount_due', "
    f"{_AMOUNT_DUE}, 'paid', {_PAID}) END"
)
SURROUNDINGS_JSON = (
    "json_object('name', s.name, 'phone_number', s.phone_number, 'is_abroad', {}, 'roaming_allowed', {}, "
    "'signal_strength', json(s.signal_strength), 'mobile_data_usage_exceeded', {}, 'line_active', {}, "
    "'payment_request', {})".format(
        boolean_json("s.is_abroad"),
        boolean_json("s.roaming_allowed"),
        boolean_json("s.mobile_data_usage_exceeded"),
        boolean_json("s.line_active"),
        _PAYMENT_JSON,
    )
)


def export_user_db(episode: Any) -> dict[str, dict[str, Any]]:
    """The customer's side in tau2's ``user_db`` shape: ``{"device": {...}, "surroundings": {...}}``."""
    device = episode.query(f"SELECT {PHONE_JSON} AS document FROM phone d")[0]["document"]
    surroundings = episode.query(f"SELECT {SURROUNDINGS_JSON} AS document FROM surroundings s")[0]["document"]
    return {"device": json.loads(device), "surroundings": json.loads(surroundings)}


def export_agent_db(episode: Any) -> dict[str, dict[str, Any]]:
    """The carrier's side in tau2's shape, each table as ``{key: record}`` in list order."""
    out: dict[str, dict[str, Any]] = {}
    for table, (source, key, document, order) in AGENT_DOCUMENTS.items():
        rows = episode.query(f"SELECT {key} AS key, {document} AS document FROM {source} ORDER BY {order}")
        out[table] = {row["key"]: json.loads(row["document"]) for row in rows}
    return out


def object_diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The user DB's diff as tau2's reference gives it: per object, the fields whose value changed."""
    return {
        name: {
            "added": {},
            "changed": {k: v for k, v in after[name].items() if before[name].get(k) != v},
            "removed": [],
        }
        for name in after
    }
