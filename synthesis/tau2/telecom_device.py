"""tau2-bench's phone simulation as SQL: what the status bar shows, whether mobile data works, the
speed test, whether MMS can be sent, the network search that follows most changes, and the sync of
the carrier's facts onto the customer's surroundings that tau2 runs after every tool call.

Every fragment reads the one ``phone`` row as ``d`` and the one ``surroundings`` row as ``s``.
"""

from __future__ import annotations

from typing import Any

#: From one phone row ``d``: the status bar text after ``Status Bar: ``.
STATUS_BAR = """(CASE WHEN d.airplane_mode THEN '✈️ Airplane Mode' ELSE
    (CASE d.network_signal_strength WHEN 'poor' THEN '📶¹ Poor' WHEN 'fair' THEN '📶² Fair'
       WHEN 'good' THEN '📶³ Good' WHEN 'excellent' THEN '📶⁴ Excellent' ELSE '📵 No Signal' END)
    || CASE WHEN d.network_technology_connected != 'none' THEN ' | ' || d.network_technology_connected ELSE '' END
    || CASE WHEN d.data_enabled AND d.network_technology_connected != 'none'
         THEN ' | 📱 Data Enabled' || CASE WHEN d.data_saver_mode THEN ' | 🔽 Data Saver' ELSE '' END
         ELSE ' | 📵 Data Disabled' END
  END
  || CASE WHEN d.wifi_enabled AND d.wifi_connected THEN ' | ' ||
       CASE WHEN coalesce(d.wifi_ssid, '') != '' THEN '📡 Connected to ' || d.wifi_ssid ELSE '📡 Enabled' END
     ELSE '' END
  || CASE WHEN d.vpn_connected THEN ' | 🔒 VPN Connected' ELSE '' END
  || ' | 🔋 ' || d.battery_level || '%')"""

#: A step's SELECT of the status bar line that ends most user tools' results.
STATUS_LINE = f"'Status Bar: ' || {STATUS_BAR}"

#: Whether mobile data works (tau2's ``_get_mobile_data_working``).
DATA_WORKING = """(NOT d.airplane_mode AND d.network_signal_strength != 'none'
  AND d.network_connection_status != 'no_service'
  AND (NOT s.is_abroad OR (d.roaming_enabled AND s.roaming_allowed))
  AND d.data_enabled AND NOT s.mobile_data_usage_exceeded)"""

_MIDPOINT = """(CASE d.network_technology_connected WHEN '2G' THEN (0.1 + 0.4) / 2.0
  WHEN '3G' THEN (1.0 + 5.0) / 2.0 WHEN '4G' THEN (10.0 + 100.0) / 2.0 WHEN '5G' THEN (50.0 + 500.0) / 2.0
  ELSE (0.0 + 0.0) / 2.0 END)"""
_SIGNAL_FACTOR = """(CASE d.network_signal_strength WHEN 'poor' THEN 0.2 WHEN 'fair' THEN 0.5
  WHEN 'good' THEN 0.8 WHEN 'excellent' THEN 1.0 ELSE 0.0 END)"""
_BASE_FACTOR = """((CASE WHEN d.vpn_connected AND d.vpn_details IS NOT NULL
    AND json_extract(d.vpn_details, '$.server_performance') = 'poor' THEN 0.1 ELSE 1.0 END)
  * (CASE WHEN d.data_saver_mode THEN 0.2 ELSE 1.0 END))"""

#: The speed test's Mbps (NULL without a working connection), rounded as Python's ``round(x, 2)``.
SPEED = f"(CASE WHEN {DATA_WORKING} THEN round_half_even({_MIDPOINT} * {_SIGNAL_FACTOR} * {_BASE_FACTOR}, 2) END)"


def speed_description(speed: str) -> str:
    """tau2's word for a speed (``speed`` is an SQL expression that is not NULL)."""
    return (
        f"(CASE WHEN {speed} < 1 THEN 'Very Poor' WHEN {speed} < 5 THEN 'Poor' WHEN {speed} < 25 THEN 'Fair' "
        f"WHEN {speed} < 100 THEN 'Good' ELSE 'Excellent' END)"
    )


#: Whether the messaging app can send MMS (tau2's ``_can_send_mms``).
CAN_SEND_MMS = f"""({DATA_WORKING} AND d.network_technology_connected != '2G'
  AND NOT (d.wifi_calling_enabled AND d.wifi_calling_mms_over_wifi) AND d.mmsc_url IS NOT NULL
  AND coalesce((SELECT a.storage AND a.sms FROM phone_apps a WHERE a.app_name = 'messaging'), 0))"""

#: The SIM's state as tau2 reads it: a missing card first.
SIM_STATUS = "(CASE WHEN d.sim_card_missing THEN 'missing' ELSE d.sim_card_status END)"

_NO_SERVICE = f"""(d.airplane_mode OR d.apn_name = 'broken' OR {SIM_STATUS} != 'active'
  OR NOT (SELECT s.line_active FROM surroundings s))"""
_TECH = """(CASE d.network_mode_preference
  WHEN '4g_5g_preferred' THEN CASE WHEN coalesce((SELECT json_extract(s.signal_strength, '$."5G"')
    FROM surroundings s), 'none') = 'none' THEN '4G' ELSE '5G' END
  WHEN '3g_only' THEN '3G' WHEN '2g_only' THEN '2G' ELSE '4G' END)"""


def _signal_of(tech: str) -> str:
    return (
        "coalesce((SELECT json_extract(s.signal_strength, '$.\"' || " + tech + " || '\"') FROM surroundings s), 'none')"
    )


def network_search(when: str = "1") -> dict[str, Any]:
    """tau2's ``simulate_network_search``: the phone finds the network its SIM, settings, line and
    surroundings allow (an UPDATE of the phone row, aliased ``d``), when ``when`` holds."""
    return {
        "kind": "exec",
        "sql": f"""UPDATE phone AS d SET
  network_connection_status = CASE WHEN {_NO_SERVICE} THEN 'no_service' ELSE 'connected' END,
  network_technology_connected = CASE WHEN {_NO_SERVICE} THEN 'none' ELSE {_TECH} END,
  network_signal_strength = CASE WHEN {_NO_SERVICE} THEN 'none' ELSE {_signal_of(_TECH)} END
WHERE {when}""",
    }


NETWORK_SEARCH = network_search()

# -- the sync of the carrier's facts onto the customer's surroundings ---------------------------------

_LINE = (
    "(SELECT {expr} FROM lines l JOIN plans p ON p.plan_id = l.plan_id WHERE l.phone_number = s.phone_number "
    "ORDER BY l.position LIMIT 1)"
)
#: The customer whose primary number, or one of whose lines, is the phone's (tau2's look-up order).
PHONE_CUSTOMER = """(SELECT c.customer_id FROM customers c WHERE c.phone_number = s.phone_number
  OR EXISTS (SELECT 1 FROM json_each(c.line_ids) j JOIN lines l ON l.line_id = j.value
             WHERE l.phone_number = s.phone_number)
  ORDER BY c.position LIMIT 1)"""

_LINE_ACTIVE = _LINE.format(expr="l.status = 'Active'")
SYNC_LINE: dict[str, Any] = {
    "kind": "exec",
    "sql": "UPDATE surroundings AS s SET "
    f"line_active = coalesce({_LINE_ACTIVE}, s.line_active), "
    f"roaming_allowed = coalesce({_LINE.format(expr='l.roaming_enabled')}, s.roaming_allowed), "
    "mobile_data_usage_exceeded = coalesce("
    f"{_LINE.format(expr='l.data_used_gb >= p.data_limit_gb + l.data_refueling_gb')}, s.mobile_data_usage_exceeded) "
    "WHERE s.phone_number IS NOT NULL",
}
#: A paid payment request marks its bill paid and is cleared (a user tool that pays writes ``bills``).
SYNC_PAID: list[dict[str, Any]] = [
    {
        "kind": "exec",
        "sql": "UPDATE bills SET status = 'Paid' WHERE bill_id = (SELECT json_extract(s.payment_request, '$.bill_id') "
        "FROM surroundings s WHERE s.phone_number IS NOT NULL AND json_extract(s.payment_request, '$.paid'))",
    },
    {
        "kind": "exec",
        "sql": "UPDATE surroundings SET payment_request = NULL "
        "WHERE phone_number IS NOT NULL AND json_extract(payment_request, '$.paid')",
    },
]
#: Without a request pending, the customer's first bill awaiting payment becomes one.
SYNC_REQUEST: dict[str, Any] = {
    "kind": "exec",
    "sql": f"""UPDATE surroundings AS s SET payment_request = (
  SELECT json_object('bill_id', b.bill_id, 'amount_due', json(float_text(b.total_due)), 'paid', json('false'))
  FROM customers c JOIN json_each(c.bill_ids) j JOIN bills b ON b.bill_id = j.value
  WHERE c.customer_id = {PHONE_CUSTOMER} AND b.status = 'Awaiting Payment' ORDER BY j.key LIMIT 1)
WHERE s.phone_number IS NOT NULL AND s.payment_request IS NULL""",
}
#: What an agent tool that changes a line or a bill runs last (it names ``surroundings`` in ``also_writes``).
SYNC: list[dict[str, Any]] = [SYNC_LINE, SYNC_REQUEST]
#: What a tool that may pay runs last (it writes ``bills`` too).
SYNC_ALL: list[dict[str, Any]] = [SYNC_LINE, *SYNC_PAID, SYNC_REQUEST]
