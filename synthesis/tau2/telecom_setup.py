"""How a tau2 telecom task's scenario is set up and checked.

Set-up: tau2 starts each task by calling functions no participant may call (``set_user_info``,
``break_apn_settings``, ``suspend_line_for_overdue_bill``, ...), each followed by the sync of the
carrier's facts onto the phone. The importer runs them, as the SQL tools below, on an episode of a
set-up environment (the served spec plus these tools), and writes the state they reach as the task's
``initial_patch``; the served environment never holds them.

Checks: tau2's 13 assertion functions as SQL predicates on the final state; a task's check holds when
the function's value is the task's ``assert_value``, as tau2's ``met`` does.
"""

from __future__ import annotations

from typing import Any

from envs.engine.compile import sql_literal

from .common import string_param, tool
from .telecom_device import CAN_SEND_MMS, DATA_WORKING, NETWORK_SEARCH, SPEED, SYNC_ALL, speed_description
from .telecom_phone import USER_TABLES
from .telecom_tools import LINE_PARAMS, TARGET_LINE

_USER_TABLES = [t["name"] for t in USER_TABLES]
_PERMISSIONS = ("sms", "storage", "phone", "network")


def _setup(name: str, properties: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        **tool(name, f"Set-up: tau2's {name}.", "write", properties, [*steps, *SYNC_ALL]),
        "also_writes": _USER_TABLES,
    }


def _phone(sql: str, *, search: bool = False) -> list[dict[str, Any]]:
    return [{"kind": "exec", "sql": f"UPDATE phone SET {sql}"}, *([NETWORK_SEARCH] if search else [])]


_BOOL = {"type": "boolean"}
_NEW_BILL = "date(:today, 'start of month', '-1 day', 'start of month')"
_LAST_DAY = "date(:today, 'start of month', '-1 day')"


def setup_tools() -> list[dict[str, Any]]:
    """The functions tau2's tasks call to set a scenario up; those that are also tools (``enable_roaming``,
    ``set_network_mode_preference``, ...) are called as the tools."""
    overdue = [
        {
            "kind": "query",
            "bind": "line",
            "sql": "SELECT * FROM lines WHERE line_id = :line_id",
            "message": "Line with ID {line_id} not found",
        },
        {
            "kind": "require",
            "message": "Line must be active to suspend for unpaid bill",
            "sql": "SELECT :line.status = 'Active'",
        },
        {
            "kind": "query",
            "bind": "plan",
            "sql": "SELECT * FROM plans WHERE plan_id = :line.plan_id",
            "message": "Plan with ID {line.plan_id} not found",
        },
        {
            "kind": "require",
            "message": "Amount must be positive for overdue bill",
            "sql": "SELECT :plan.price_per_month > 0",
        },
        {
            "kind": "require",
            "message": "Customer with ID {customer_id} not found",
            "sql": "SELECT EXISTS (SELECT 1 FROM customers WHERE customer_id = :customer_id)",
        },
        {
            "kind": "require",
            "message": "Customer already has an overdue bill",
            "sql": "SELECT NOT EXISTS (SELECT 1 FROM customers c, json_each(c.bill_ids) j JOIN bills b "
            "ON b.bill_id = j.value WHERE c.customer_id = :customer_id AND b.status = 'Overdue')",
        },
        {
            "kind": "exec",
            "sql": "INSERT INTO bills (bill_id, position, customer_id, period_start, period_end, issue_date, "
            "total_due, due_date, line_items, status) VALUES (:new_bill_id, "
            "(SELECT coalesce(max(position), -1) + 1 FROM bills), "
            f":customer_id, {_NEW_BILL}, {_LAST_DAY}, {_NEW_BILL}, 0.0 + :plan.price_per_month, "
            f"date({_NEW_BILL}, '+14 days'), json_array(json_object('description', 'Charge for line ' || :line_id, "
            "'amount', :plan.price_per_month, 'date', :today, 'item_type', "
            "CASE WHEN :plan.price_per_month > 0 THEN 'Charge' ELSE 'Credit' END)), 'Overdue')",
        },
        {
            "kind": "exec",
            "sql": "UPDATE customers SET bill_ids = json_insert(bill_ids, '$[#]', :new_bill_id) "
            "WHERE customer_id = :customer_id",
        },
        {
            "kind": "exec",
            "sql": "UPDATE lines SET status = 'Suspended', suspension_start_date = :today, contract_end_date = "
            f"CASE WHEN :contract_ended THEN {_LAST_DAY} ELSE contract_end_date END WHERE line_id = :line_id",
        },
    ]
    return [
        _setup(
            "set_user_info",
            {"name": string_param("name"), "phone_number": string_param("phone number")},
            [{"kind": "exec", "sql": "UPDATE surroundings SET name = :name, phone_number = :phone_number"}],
        ),
        _setup(
            "set_user_location",
            {"abroad": _BOOL},
            [{"kind": "exec", "sql": "UPDATE surroundings SET is_abroad = :abroad"}],
        ),
        _setup("turn_roaming_off", {}, _phone("roaming_enabled = 0", search=True)),
        _setup("turn_roaming_on", {}, _phone("roaming_enabled = 1", search=True)),
        _setup("turn_data_off", {}, _phone("data_enabled = 0", search=True)),
        _setup("turn_data_on", {}, _phone("data_enabled = 1")),
        _setup("turn_data_saver_mode_on", {}, _phone("data_saver_mode = 1")),
        _setup("turn_data_saver_mode_off", {}, _phone("data_saver_mode = 0")),
        _setup(
            "break_vpn",
            {},
            _phone(
                "vpn_connected = 1, vpn_details = json_set(coalesce(CASE WHEN vpn_connected THEN vpn_details END, "
                "json_object('server_address', '192.168.1.1', 'protocol', 'OpenVPN')), '$.server_performance', 'poor')"
            ),
        ),
        _setup(
            "turn_airplane_mode_on",
            {},
            _phone(
                "airplane_mode = 1, wifi_connected = 0, wifi_ssid = NULL, wifi_signal_strength = 'none', "
                "vpn_details = CASE WHEN vpn_connected THEN NULL ELSE vpn_details END, vpn_connected = 0",
                search=True,
            ),
        ),
        _setup(  # off at once, or (when it was off) on and off again: Wi-Fi and VPN then disconnect
            "turn_airplane_mode_off",
            {},
            _phone(
                "airplane_mode = 0, "
                "wifi_connected = CASE WHEN airplane_mode AND NOT wifi_enabled THEN wifi_connected ELSE 0 END, "
                "wifi_ssid = CASE WHEN airplane_mode AND NOT wifi_enabled THEN wifi_ssid END, "
                "wifi_signal_strength = CASE WHEN airplane_mode AND NOT wifi_enabled "
                "THEN wifi_signal_strength ELSE 'none' END, "
                "vpn_details = CASE WHEN NOT airplane_mode AND vpn_connected THEN NULL ELSE vpn_details END, "
                "vpn_connected = CASE WHEN NOT airplane_mode THEN 0 ELSE vpn_connected END",
                search=True,
            ),
        ),
        _setup("unseat_sim_card", {}, _phone("sim_card_missing = 1", search=True)),
        _setup(
            "lock_sim_card",
            {"mode": {"type": "string", "enum": ["pin", "puk"]}},
            _phone("sim_card_status = 'locked_' || :mode", search=True),
        ),
        _setup("break_apn_settings", {}, _phone("apn_name = 'broken'", search=True)),
        _setup("break_apn_mms_setting", {}, _phone("mmsc_url = NULL")),
        {
            **_setup(
                "set_wifi_calling",
                {"enabled": _BOOL, "mms_over_wifi": {"type": ["boolean", "null"]}},
                _phone(
                    "wifi_calling_enabled = :enabled, "
                    "wifi_calling_mms_over_wifi = coalesce(:mms_over_wifi, wifi_calling_mms_over_wifi)"
                ),
            ),
        },
        _setup(
            "remove_app_permission",
            {"app_name": string_param("app"), "permission": string_param("permission")},
            [
                {
                    "kind": "exec",
                    "sql": "UPDATE phone_apps SET "
                    + ", ".join(f"{p} = CASE WHEN lower(:permission) = '{p}' THEN 0 ELSE {p} END" for p in _PERMISSIONS)
                    + " WHERE app_name = :app_name",
                }
            ],
        ),
        _setup("simulate_network_search", {}, [NETWORK_SEARCH]),
        _setup(
            "set_data_usage",
            {**LINE_PARAMS, "data_used_gb": {"type": "number"}},
            [
                *TARGET_LINE,
                {"kind": "exec", "sql": "UPDATE lines SET data_used_gb = :data_used_gb WHERE line_id = :line_id"},
            ],
        ),
        _setup(
            "suspend_line_for_overdue_bill",
            {**LINE_PARAMS, "new_bill_id": string_param("bill id"), "contract_ended": _BOOL},
            overdue,
        ),
    ]


# -- tau2's assertion functions ----------------------------------------------------------------------

_SPEED_OR_ZERO = f"coalesce({SPEED}, 0.0)"
_SPEED_WORD = f"(CASE WHEN {SPEED} IS NULL THEN 'No Connection' ELSE {speed_description(SPEED)} END)"


def _user_predicate(name: str, args: dict[str, Any]) -> str | None:
    def value(key: str) -> str:
        return sql_literal(args[key])

    predicates = {
        "assert_airplane_mode_status": lambda: f"d.airplane_mode = {value('expected_status')}",
        "assert_service_status": lambda: f"d.network_connection_status = {value('expected_status')}",
        "assert_mobile_data_status": lambda: f"{DATA_WORKING} = {value('expected_status')}",
        "assert_mobile_roaming_status": lambda: f"d.roaming_enabled = {value('expected_status')}",
        "assert_mobile_data_saver_mode_status": lambda: f"d.data_saver_mode = {value('expected_status')}",
        "assert_internet_speed": lambda: (
            f"{_SPEED_OR_ZERO} >= {value('expected_speed')}"
            + (
                ""
                if args.get("expected_desc") is None
                else f" AND lower({_SPEED_WORD}) = lower({value('expected_desc')})"
            )
        ),
        "assert_internet_not_excellent": lambda: f"lower({_SPEED_WORD}) != 'excellent'",
        "assert_can_send_mms": lambda: f"{CAN_SEND_MMS} = {value('expected_status')}",
        "assert_mobile_data_usage_exceeded": lambda: f"s.mobile_data_usage_exceeded = {value('expected_status')}",
    }
    make = predicates.get(name)
    return None if make is None else f"SELECT coalesce(({make()}), 0) FROM phone d, surroundings s"


def _agent_predicate(name: str, args: dict[str, Any]) -> str | None:
    def value(key: str) -> str:
        return sql_literal(args[key])

    def line(expr: str) -> str:
        return (
            f"SELECT coalesce((SELECT {expr} FROM customers c, json_each(c.line_ids) j JOIN lines l "
            f"ON l.line_id = j.value WHERE c.customer_id = {value('customer_id')} "
            f"AND j.value = {value('line_id')} LIMIT 1), 0)"
        )

    if name == "assert_data_refueling_amount":
        return line(f"abs(l.data_refueling_gb - {value('expected_amount')}) < 1e-6")
    if name == "assert_line_status":
        return line(f"l.status = {value('expected_status')}")
    if name == "assert_overdue_bill_exists":
        return (
            "SELECT EXISTS (SELECT 1 FROM customers c, json_each(c.bill_ids) j JOIN bills b ON b.bill_id = j.value "
            f"WHERE c.customer_id = {value('customer_id')} AND j.value = {value('overdue_bill_id')} "
            "AND b.status = 'Overdue')"
        )
    if name == "assert_no_overdue_bill":
        return (
            f"SELECT NOT EXISTS (SELECT 1 FROM bills WHERE bill_id = {value('overdue_bill_id')} AND status != 'Paid')"
        )
    return None


def assertion(check: dict[str, Any]) -> dict[str, str] | None:
    """One of tau2's ``env_assertions`` as an envfarm check (None: a function this importer does not know).
    The check holds when the function's value equals ``assert_value``."""
    args = check.get("arguments") or {}
    side = check.get("env_type")
    try:
        sql = (_user_predicate if side == "user" else _agent_predicate)(check["func_name"], args)
    except KeyError:
        return None
    if sql is None:
        return None
    wanted = bool(check.get("assert_value", True))
    described = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return {
        "description": check.get("message") or f"tau2 {check['func_name']}({described}) is {wanted}",
        "sql": f"SELECT ({sql}) = {int(wanted)}",
    }
