"""tau2-bench's telecom data, the customer's side, as tables (``user_db.toml``: the phone, its apps, and
the customer's surroundings) over tau2's defaults, with the SQL that rebuilds tau2's user DB."""

from __future__ import annotations

import json
from typing import Any

from .common import boolean_json, money_json
from .telecom_data import cols

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
        "columns": cols("app_name:text", "position:integer", *(f"{p}:boolean" for p in _PERMISSIONS)),
    },
    {
        "name": "surroundings",
        "side": "user",
        "description": "Who and where the customer is, and what the carrier's systems show the phone (one row)",
        "primary_key": ["surroundings_id"],
        "columns": cols(
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
