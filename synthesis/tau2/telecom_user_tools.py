"""tau2-bench's 30 telecom user tools (the customer's phone) as SQL steps, each returning tau2's text:
most end with the status bar as it is after the change (``telecom_device``)."""

from __future__ import annotations

from typing import Any

from .common import string_param, tool
from .telecom_device import (
    CAN_SEND_MMS,
    NETWORK_SEARCH,
    SIM_STATUS,
    SPEED,
    STATUS_BAR,
    STATUS_LINE,
    SYNC_ALL,
    network_search,
    speed_description,
)

_PERMISSIONS = ("sms", "storage", "phone", "network")
_MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
_APN_DEFAULTS = {
    "apn_name": "'internet'",
    "reset_at_reboot": "0",
    "mms_apn": "'mms'",
    "mmsc_url": "'http://mms.carrier.com/mms/wapenc'",
    "mms_proxy": "NULL",
    "mms_port": "NULL",
}
_APN_COLUMNS = {"reset_at_reboot": "apn_reset_at_reboot"}
_VPN_DEFAULT = "json_object('server_address', '192.168.1.1', 'protocol', 'OpenVPN', 'server_performance', 'excellent')"


def _on(expr: str, on: str = "ON", off: str = "OFF") -> str:
    return f"CASE WHEN {expr} THEN '{on}' ELSE '{off}' END"


def _phone_text(text: str, *, status_bar: bool = True) -> dict[str, Any]:
    """Return ``text`` (SQL over the phone row ``d`` and surroundings ``s``), then the status bar."""
    tail = f" || char(10) || {STATUS_LINE}" if status_bar else ""
    return {"kind": "return", "shape": "value", "sql": f"SELECT {text}{tail} FROM phone d, surroundings s"}


def _read(name: str, description: str, text: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**tool(name, description, "read", properties or {}, [_phone_text(text, status_bar=False)]), "actor": "user"}


def _write(
    name: str, description: str, steps: list[dict[str, Any]], text: str, properties: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {**tool(name, description, "write", properties or {}, [*steps, _phone_text(text)]), "actor": "user"}


def _set(sql: str, when: str = "1") -> dict[str, Any]:
    return {"kind": "exec", "sql": f"UPDATE phone SET {sql} WHERE {when}"}


_NETWORK_STATUS = (
    " || char(10) || ".join(
        [
            f"'Airplane Mode: ' || {_on('d.airplane_mode')}",
            f"'SIM Card Status: ' || {SIM_STATUS}",
            "'Cellular Connection: ' || d.network_connection_status",
            "'Cellular Signal: ' || d.network_signal_strength",
            "'Cellular Network Type: ' || d.network_technology_connected",
            f"'Mobile Data Enabled: ' || {_on('d.data_enabled', 'Yes', 'No')}",
            f"'Data Roaming Enabled: ' || {_on('d.roaming_enabled', 'Yes', 'No')}",
            f"'Wi-Fi Radio: ' || {_on('d.wifi_enabled')}",
            f"'Wi-Fi Connected: ' || {_on('d.wifi_connected', 'Yes', 'No')}",
        ]
    )
    + " || CASE WHEN d.wifi_connected THEN char(10) || 'Connected Wi-Fi Network: ' || "
    "coalesce(d.wifi_ssid, 'None') ELSE '' END"
)

_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}
_DESCRIPTION = speed_description(SPEED)
_SPEED_TEXT = (
    f"CASE WHEN {SPEED} IS NULL THEN 'Speed test failed: No Connection.' ELSE 'Speed Test Result: ' || "
    f"printf('%.2f', {SPEED}) || ' Mbps (' || {_DESCRIPTION} || '). ' || CASE {_DESCRIPTION} "
    + " ".join(f"WHEN '{k}' THEN '{v}'" for k, v in _ADVICE.items())
    + " ELSE '' END END"
)

_VPN_DETAILS = (
    "'{''server_address'': ' || coalesce('''' || json_extract(d.vpn_details, '$.server_address') || '''', 'None') "
    "|| ', ''protocol'': ' || coalesce('''' || json_extract(d.vpn_details, '$.protocol') || '''', 'None') "
    "|| ', ''server_performance'': <PerformanceLevel.' || upper(json_extract(d.vpn_details, '$.server_performance')) "
    "|| ': ''' || json_extract(d.vpn_details, '$.server_performance') || '''>}'"
)
_APP = "(SELECT {expr} FROM phone_apps a WHERE a.app_name = :app_name)"
_GRANTED = (
    "(SELECT group_concat(p, {sep}) FROM ("
    + " UNION ALL ".join(
        f"SELECT {i} AS k, '{p}' AS p FROM phone_apps a WHERE a.app_name = :app_name AND a.{p}"
        for i, p in enumerate(_PERMISSIONS)
    )
    + " ORDER BY k))"
)


def _apn_value(key: str) -> str:
    """A field of the ``apn_settings`` argument, tau2's default when left out."""
    extract = f"json_extract(:apn_settings, '$.{key}')"
    return f"CASE WHEN json_type(:apn_settings, '$.{key}') IS NULL THEN {_APN_DEFAULTS[key]} ELSE {extract} END"


_APN_SCHEMA = {
    "type": "object",
    "description": "The APN settings; fields left out take their defaults.",
    "properties": {
        "apn_name": {"type": "string", "enum": ["internet", "broken"]},
        "reset_at_reboot": {"type": "boolean"},
        "mms_apn": {"type": ["string", "null"]},
        "mmsc_url": {"type": ["string", "null"]},
        "mms_proxy": {"type": ["string", "null"]},
        "mms_port": {"type": ["integer", "null"]},
    },
    "additionalProperties": False,
}
_AVAILABLE = str(list(_PERMISSIONS)).replace("'", "''")
_APP_NAME = {"app_name": string_param("The app's name, such as 'messaging'.")}


def tools() -> list[dict[str, Any]]:
    """The user's tools, in tau2's order."""
    toggles = [
        ("toggle_data", "data_enabled", "Mobile Data", True, "Turn mobile data on or off."),
        ("toggle_roaming", "roaming_enabled", "Data Roaming", True, "Turn data roaming on or off."),
        ("toggle_data_saver_mode", "data_saver_mode", "Data Saver Mode", False, "Turn Data Saver mode on or off."),
        ("toggle_wifi_calling", "wifi_calling_enabled", "Wi-Fi Calling", False, "Turn Wi-Fi Calling on or off."),
    ]
    toggle = {
        name: _write(
            name,
            description,
            [_set(f"{column} = NOT {column}"), *([NETWORK_SEARCH] if search else [])],
            f"'{what} is now ' || {_on('d.' + column)} || '.'",
        )
        for name, column, what, search, description in toggles
    }
    return [
        _read("check_status_bar", "Show what the phone's status bar shows.", STATUS_LINE),
        _read("check_network_status", "Show the phone's cellular and Wi-Fi connection status.", _NETWORK_STATUS),
        _read(
            "check_network_mode_preference",
            "Show the phone's preferred network mode.",
            "'Network Mode Preference: ' || d.network_mode_preference",
        ),
        _write(
            "set_network_mode_preference",
            "Set the type of cellular network the phone prefers (4g_5g_preferred, 4g_only, 3g_only, 2g_only).",
            [
                _set("network_mode_preference = :mode", f":mode IN {_MODES}"),
                network_search(f":mode IN {_MODES}"),
            ],
            f"CASE WHEN :mode IN {_MODES} THEN 'Preferred Network Mode set to: ' || :mode ELSE "
            "'Failed to set network mode: ''' || :mode || ''' is not a valid option. Please use one of: "
            f"{', '.join(_MODES)}' END",
            {"mode": string_param("The network mode: 4g_5g_preferred, 4g_only, 3g_only or 2g_only.")},
        ),
        _read("run_speed_test", "Measure the phone's mobile internet speed.", _SPEED_TEXT),
        _write(
            "toggle_airplane_mode",
            "Turn Airplane Mode on or off (on: every radio off, Wi-Fi and VPN disconnected).",
            [
                _set(
                    "airplane_mode = NOT airplane_mode, "
                    "network_connection_status = CASE WHEN airplane_mode THEN 'searching' "
                    "ELSE network_connection_status END, "
                    "wifi_connected = CASE WHEN airplane_mode AND NOT wifi_enabled THEN wifi_connected ELSE 0 END, "
                    "wifi_ssid = CASE WHEN airplane_mode AND NOT wifi_enabled THEN wifi_ssid END, "
                    "wifi_signal_strength = CASE WHEN airplane_mode AND NOT wifi_enabled "
                    "THEN wifi_signal_strength ELSE 'none' END, "
                    "vpn_details = CASE WHEN NOT airplane_mode AND vpn_connected THEN NULL ELSE vpn_details END, "
                    "vpn_connected = CASE WHEN NOT airplane_mode THEN 0 ELSE vpn_connected END"
                ),
                NETWORK_SEARCH,
            ],
            f"'Airplane Mode is now ' || {_on('d.airplane_mode')} || '.'",
        ),
        _read(
            "check_sim_status",
            "Show whether the SIM card works: active, missing, or locked with a PIN or PUK.",
            f"CASE {SIM_STATUS} WHEN 'active' THEN 'Your SIM card is active and working.' "
            "WHEN 'missing' THEN 'No SIM card detected in the phone.' "
            "WHEN 'locked_pin' THEN 'The SIM card is locked with a PIN code.' "
            "WHEN 'locked_puk' THEN 'The SIM card is locked with a PUK code.' "
            f"ELSE 'Unknown SIM status: ' || {SIM_STATUS} END",
        ),
        _write(
            "reseat_sim_card",
            "Take the SIM card out and put it back in.",
            [_set("sim_card_missing = 0"), NETWORK_SEARCH],
            "'SIM card re-seated successfully.'",
        ),
        toggle["toggle_data"],
        toggle["toggle_roaming"],
        _read(
            "check_data_restriction_status",
            "Show whether Data Saver mode is on.",
            "CASE WHEN d.data_saver_mode THEN 'Data Saver mode is ON (limits data usage).' "
            "ELSE 'Data Saver mode is OFF.' END",
        ),
        toggle["toggle_data_saver_mode"],
        _read(
            "check_apn_settings",
            "Show the phone's APN name and MMSC URL.",
            "'Current APN Name: ' || d.apn_name || char(10) || 'MMSC URL (for picture messages): ' || "
            "coalesce(nullif(d.mmsc_url, ''), 'Not Set') || char(10) || "
            "'(These are technical settings, usually best left unchanged.)'",
        ),
        _write(
            "set_apn_settings",
            "Set the phone's APN settings.",
            [
                _set(", ".join(f"{_APN_COLUMNS.get(k, k)} = {_apn_value(k)}" for k in _APN_DEFAULTS)),
                NETWORK_SEARCH,
            ],
            "'APN settings set to: ' || d.apn_name",
            {"apn_settings": _APN_SCHEMA},
        ),
        _write(
            "reset_apn_settings",
            "Reset the APN settings to the defaults at the next reboot.",
            [_set("apn_reset_at_reboot = 1"), NETWORK_SEARCH],
            "'APN settings will reset at reboot.'",
        ),
        _read(
            "check_wifi_status",
            "Show whether Wi-Fi is on, the network it is connected to and the signal.",
            "CASE WHEN NOT d.wifi_enabled THEN 'Wi-Fi is turned OFF.' WHEN d.wifi_connected THEN "
            "'Wi-Fi is ON and connected to ''' || coalesce(d.wifi_ssid, 'None') || '''. Signal strength: ' || "
            "d.wifi_signal_strength || '.' ELSE 'Wi-Fi is ON but not connected to any network.' END",
        ),
        _write(
            "toggle_wifi",
            "Turn the Wi-Fi radio on or off (not while Airplane Mode is on).",
            [
                _set(
                    "wifi_enabled = NOT wifi_enabled, wifi_connected = wifi_connected AND NOT wifi_enabled, "
                    "wifi_ssid = CASE WHEN wifi_enabled THEN NULL ELSE wifi_ssid END, "
                    "wifi_signal_strength = CASE WHEN wifi_enabled THEN 'none' ELSE wifi_signal_strength END",
                    "NOT airplane_mode",
                )
            ],
            "CASE WHEN d.airplane_mode THEN 'Cannot change Wi-Fi settings while Airplane Mode is ON.' "
            f"ELSE 'Wi-Fi is now ' || {_on('d.wifi_enabled')} || '.' END",
        ),
        _read(
            "check_wifi_calling_status",
            "Show whether Wi-Fi Calling is on.",
            f"'Wi-Fi Calling is currently turned ' || {_on('d.wifi_calling_enabled')} || '.'",
        ),
        toggle["toggle_wifi_calling"],
        _read(
            "check_vpn_status",
            "Show whether a VPN is on and connected, with its details.",
            "CASE WHEN d.vpn_connected AND d.vpn_details IS NOT NULL THEN 'VPN is ON and connected. Details: ' || "
            f"{_VPN_DETAILS} WHEN d.vpn_connected THEN 'VPN is ON and connected (no specific details available).' "
            "WHEN d.vpn_enabled_setting THEN 'VPN is turned ON in settings, but currently not connected.' "
            "ELSE 'VPN is turned OFF.' END",
        ),
        {
            **tool(
                "connect_vpn",
                "Connect the phone's VPN.",
                "write",
                {},
                [
                    {"kind": "query", "bind": "before", "sql": "SELECT vpn_connected AS connected FROM phone"},
                    _set(f"vpn_connected = 1, vpn_details = {_VPN_DEFAULT}", "NOT vpn_connected"),
                    {
                        "kind": "return",
                        "shape": "value",
                        "sql": "SELECT CASE WHEN :before.connected THEN 'VPN already connected.' ELSE "
                        f"'VPN connected successfully.' || char(10) || {STATUS_LINE} END FROM phone d",
                    },
                ],
            ),
            "actor": "user",
        },
        _write(
            "disconnect_vpn",
            "Disconnect the phone's VPN.",
            [
                {"kind": "query", "bind": "before", "sql": "SELECT vpn_connected AS connected FROM phone"},
                _set("vpn_connected = 0, vpn_details = NULL", "vpn_connected"),
            ],
            "CASE WHEN :before.connected THEN 'VPN disconnected successfully.' "
            "ELSE 'No active VPN connection to disconnect.' END",
        ),
        _read(
            "check_installed_apps",
            "List the apps installed on the phone.",
            "'The following apps are installed on the phone: ' || "
            "(SELECT coalesce(group_concat(app_name, ', '), '') "
            "FROM (SELECT app_name FROM phone_apps ORDER BY position))",
        ),
        _read(
            "check_app_status",
            "Show an app's status and the permissions it has.",
            f"CASE WHEN {_APP.format(expr='1')} IS NULL THEN 'App ''' || :app_name || ''' not found on this phone.' "
            f"ELSE 'Status for App: ' || :app_name || char(10) || CASE WHEN {_GRANTED.format(sep=repr(','))} IS NULL "
            "THEN ' - Permissions: None granted.' ELSE ' - Permissions Granted:' || char(10) || '   - ' || "
            f"{_GRANTED.format(sep='char(10) || ' + repr('   - '))} END END",
            _APP_NAME,
        ),
        _read(
            "check_app_permissions",
            "Show the permissions an app has.",
            f"CASE WHEN {_APP.format(expr='1')} IS NULL THEN 'App ''' || :app_name || ''' not found on this phone.' "
            f"WHEN {_GRANTED.format(sep=repr(', '))} IS NULL "
            "THEN 'App ''' || :app_name || ''' currently has no permissions granted.' "
            f"ELSE 'App ''' || :app_name || ''' has permission for: ' || {_GRANTED.format(sep=repr(', '))} || '.' END",
            _APP_NAME,
        ),
        {
            **tool(
                "grant_app_permission",
                "Give an app a permission (sms, storage, phone or network).",
                "write",
                {**_APP_NAME, "permission": string_param("The permission, in lower case, such as 'storage'.")},
                [
                    {
                        "kind": "exec",
                        "sql": "UPDATE phone_apps SET "
                        + ", ".join(
                            f"{p} = CASE WHEN lower(:permission) = '{p}' THEN 1 ELSE {p} END" for p in _PERMISSIONS
                        )
                        + " WHERE app_name = :app_name",
                    },
                    _phone_text(
                        f"CASE WHEN {_APP.format(expr='1')} IS NULL THEN 'Error. App ''' || :app_name || "
                        "''' not found. Cannot grant permission.' "
                        f"WHEN lower(:permission) NOT IN {_PERMISSIONS} THEN 'Error. Permission ''' || "
                        "lower(:permission) || ''' not tracked for app ''' || :app_name || "
                        f"''', available permissions: {_AVAILABLE}'"
                        + " ELSE 'Success. Permission ''' || lower(:permission) || ''' granted to app ''' || "
                        ":app_name || '''.' END"
                    ),
                ],
            ),
            "actor": "user",
        },
        _read(
            "can_send_mms",
            "Check whether the messaging app can send MMS messages.",
            f"CASE WHEN {CAN_SEND_MMS} THEN 'Your messaging app can send MMS messages.' "
            "ELSE 'Your messaging app cannot send MMS messages.' END",
        ),
        _write(
            "reboot_device",
            "Restart the phone (APN settings marked for reset are reset).",
            [
                {"kind": "query", "bind": "before", "sql": "SELECT apn_reset_at_reboot AS reset FROM phone"},
                _set(
                    "apn_name = 'internet', apn_reset_at_reboot = 0, mms_apn = 'mms', "
                    "mmsc_url = 'http://mms.carrier.com/mms/wapenc', mms_proxy = NULL, mms_port = NULL",
                    "apn_reset_at_reboot",
                ),
                _set("network_connection_status = 'searching'"),
                NETWORK_SEARCH,
            ],
            "CASE WHEN :before.reset THEN 'Resetting APN settings...' || char(10) ELSE '' END || "
            "'Restarting network services...'",
        ),
        _read(
            "check_payment_request",
            "Check whether the agent has sent a payment request.",
            "CASE WHEN s.payment_request IS NULL THEN 'No payment request has been made.' ELSE "
            "'You have a payment request for bill ' || json_extract(s.payment_request, '$.bill_id') || ' of ' || "
            "float_text(json_extract(s.payment_request, '$.amount_due')) || ' USD.' END",
        ),
        {
            **tool(
                "make_payment",
                "Pay the bill of the payment request the agent sent.",
                "write",
                {},
                [
                    {
                        "kind": "query",
                        "bind": "request",
                        "sql": "SELECT json_extract(payment_request, '$.bill_id') AS bill_id, "
                        "json_extract(payment_request, '$.amount_due') AS amount FROM surroundings",
                    },
                    {
                        "kind": "exec",
                        "sql": "UPDATE surroundings SET payment_request = json_set(payment_request, '$.paid', "
                        "json('true')) WHERE payment_request IS NOT NULL",
                    },
                    *SYNC_ALL,
                    {
                        "kind": "return",
                        "shape": "value",
                        "sql": "SELECT CASE WHEN :request.bill_id IS NULL THEN 'You do not have a payment request.' "
                        "ELSE 'Payment of ' || float_text(:request.amount) || ' USD has been made for bill ' || "
                        ":request.bill_id || '.' END",
                    },
                ],
            ),
            "actor": "user",
            "also_writes": ["bills"],
        },
    ]


__all__ = ["STATUS_BAR", "tools"]
