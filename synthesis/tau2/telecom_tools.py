"""tau2-bench's 13 telecom agent tools as SQL steps, each check in tau2's order with tau2's message.

A tool that changes a line or a bill ends with the sync tau2 runs after every call
(``telecom_device.SYNC``): the carrier's facts the phone shows (line active, roaming allowed, data
used up, a payment request) are copied onto the customer's surroundings, which is why those tools
name ``surroundings`` in ``also_writes``.
"""

from __future__ import annotations

from typing import Any

from .common import string_param, tool
from .telecom_data import BILL_JSON, CUSTOMER_JSON, DEVICE_JSON, LINE_JSON, PLAN_JSON
from .telecom_device import SYNC

_CUSTOMER_ID = string_param("The customer's id, such as 'C1001'.")
_LINE_ID = string_param("The line's id, such as 'L1001'.")
LINE_PARAMS = {"customer_id": _CUSTOMER_ID, "line_id": _LINE_ID}


def _customer(key: str = "customer_id") -> dict[str, Any]:
    return {
        "kind": "require",
        "message": "Customer with ID {" + key + "} not found",
        "sql": f"SELECT EXISTS (SELECT 1 FROM customers WHERE customer_id = :{key})",
    }


#: tau2's ``_get_target_line``: the customer, the line among theirs, then the line itself.
TARGET_LINE: list[dict[str, Any]] = [
    _customer(),
    {
        "kind": "require",
        "message": "Line {line_id} not found for customer {customer_id}",
        "sql": "SELECT EXISTS (SELECT 1 FROM customers c, json_each(c.line_ids) j "
        "WHERE c.customer_id = :customer_id AND j.value = :line_id)",
    },
    {
        "kind": "query",
        "bind": "line",
        "sql": "SELECT * FROM lines WHERE line_id = :line_id",
        "message": "Line with ID {line_id} not found",
    },
]
_PLAN = {
    "kind": "query",
    "bind": "plan",
    "sql": "SELECT * FROM plans WHERE plan_id = :line.plan_id",
    "message": "Plan with ID {line.plan_id} not found",
}


def _line_result(message: str) -> dict[str, Any]:
    return {
        "kind": "return",
        "shape": "value",
        "json_columns": ["document"],
        "sql": f"SELECT json_object('message', '{message}', 'line', {LINE_JSON}) AS document "
        "FROM lines l WHERE l.line_id = :line_id",
    }


def _text(sql: str) -> dict[str, Any]:
    return {"kind": "return", "shape": "value", "sql": sql}


def _customer_lookups() -> list[dict[str, Any]]:
    by_phone = (
        "FROM customers c WHERE c.phone_number = :phone_number OR EXISTS (SELECT 1 FROM json_each(c.line_ids) j "
        "JOIN lines l ON l.line_id = j.value WHERE l.phone_number = :phone_number)"
    )
    return [
        tool(
            "get_customer_by_phone",
            "Find the customer whose primary contact number, or one of whose lines' numbers, is the given "
            "phone number. Fails when no customer has it.",
            "read",
            {"phone_number": string_param("The phone number, such as '555-123-2002'.")},
            [
                {
                    "kind": "require",
                    "message": "Customer with phone number {phone_number} not found",
                    "sql": f"SELECT EXISTS (SELECT 1 {by_phone})",
                },
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["document"],
                    "sql": f"SELECT {CUSTOMER_JSON} AS document {by_phone} ORDER BY c.position LIMIT 1",
                },
            ],
        ),
        tool(
            "get_customer_by_id",
            "Get a customer's record by the customer id.",
            "read",
            {"customer_id": _CUSTOMER_ID},
            [
                _customer(),
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["document"],
                    "sql": f"SELECT {CUSTOMER_JSON} AS document FROM customers c WHERE c.customer_id = :customer_id",
                },
            ],
        ),
        tool(
            "get_customer_by_name",
            "Find customers by full name (any letter case) and date of birth; the list may be empty or hold "
            "several customers.",
            "read",
            {
                "full_name": string_param("The customer's full name."),
                "dob": string_param("The date of birth, as YYYY-MM-DD."),
            },
            [
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["document"],
                    "sql": f"SELECT json_group_array(json(document)) AS document FROM (SELECT {CUSTOMER_JSON} "
                    "AS document FROM customers c WHERE lower(c.full_name) = lower(:full_name) "
                    "AND c.date_of_birth = :dob ORDER BY c.position)",
                },
            ],
        ),
    ]


_DETAILS = [  # (first letter, table, key, alias, record SQL, what tau2 calls it)
    ("L", "lines", "line_id", "l", LINE_JSON, "Line"),
    ("D", "devices", "device_id", "d", DEVICE_JSON, "Device"),
    ("B", "bills", "bill_id", "b", BILL_JSON, "Bill"),
    ("C", "customers", "customer_id", "c", CUSTOMER_JSON, "Customer"),
    ("P", "plans", "plan_id", "p", PLAN_JSON, "Plan"),
]


def _details_tool() -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {
            "kind": "require",
            "message": "Unknown ID format or type: {id}",
            "sql": "SELECT substr(:id, 1, 1) IN ('L', 'D', 'B', 'C', 'P')",
        }
    ]
    cases = []
    for letter, table, key, alias, document, what in _DETAILS:
        steps.append(
            {
                "kind": "require",
                "message": f"{what} with ID {{id}} not found",
                "sql": f"SELECT substr(:id, 1, 1) != '{letter}' OR EXISTS (SELECT 1 FROM {table} WHERE {key} = :id)",
            }
        )
        cases.append(f"WHEN '{letter}' THEN (SELECT {document} FROM {table} {alias} WHERE {alias}.{key} = :id)")
    steps.append(
        {
            "kind": "return",
            "shape": "value",
            "json_columns": ["document"],
            "sql": f"SELECT CASE substr(:id, 1, 1) {' '.join(cases)} END AS document",
        }
    )
    return tool(
        "get_details_by_id",
        "Get the record of a line (L...), device (D...), bill (B...), customer (C...) or plan (P...) by its id.",
        "read",
        {"id": string_param("The id, such as 'L1001', 'D1001', 'B1001', 'C1001' or 'P1001'.")},
        steps,
    )


def _roaming_tool(name: str, on: bool) -> dict[str, Any]:
    word = "enabled" if on else "disabled"
    return {
        **tool(
            name,
            f"{'Enable' if on else 'Disable'} international roaming on a customer's line.",
            "write",
            LINE_PARAMS,
            [
                *TARGET_LINE,
                {
                    "kind": "exec",
                    "sql": f"UPDATE lines SET roaming_enabled = {int(on)} WHERE line_id = :line_id "
                    f"AND roaming_enabled = {int(not on)}",
                },
                *SYNC,
                _text(
                    f"SELECT CASE WHEN {'' if on else 'NOT '}:line.roaming_enabled THEN 'Roaming was already {word}' "
                    f"ELSE 'Roaming {word} successfully' END"
                ),
            ],
        ),
        "also_writes": ["surroundings"],
    }


def _bills_tool() -> dict[str, Any]:
    spec = tool(
        "get_bills_for_customer",
        "List a customer's bills, most recently issued first, at most `limit` of them (12 unless given; a "
        "negative limit leaves out that many of the oldest).",
        "read",
        {"customer_id": _CUSTOMER_ID, "limit": {"type": "integer", "description": "The most bills to list."}},
        [
            _customer(),
            {
                "kind": "require",
                "mode": "empty",
                "message": "Bill with ID {bill_id} not found",
                "sql": "SELECT j.value AS bill_id FROM customers c, json_each(c.bill_ids) j "
                "WHERE c.customer_id = :customer_id AND j.value NOT IN (SELECT bill_id FROM bills) "
                "ORDER BY j.key LIMIT 1",
            },
            {
                "kind": "return",
                "shape": "value",
                "json_columns": ["document"],
                "sql": f"SELECT json_group_array(json(document)) AS document FROM (SELECT {BILL_JSON} AS document "
                "FROM customers c, json_each(c.bill_ids) j JOIN bills b ON b.bill_id = j.value "
                "WHERE c.customer_id = :customer_id ORDER BY b.issue_date DESC, j.key LIMIT max(0, CASE WHEN "
                "coalesce(:limit, 12) >= 0 THEN coalesce(:limit, 12) ELSE (SELECT json_array_length(bill_ids) "
                "FROM customers WHERE customer_id = :customer_id) + :limit END))",
            },
        ],
    )
    spec["parameters"]["required"] = ["customer_id"]
    return spec


def _payment_request_tool() -> dict[str, Any]:
    return {
        **tool(
            "send_payment_request",
            "Send the customer a payment request for one of their bills; the bill then awaits payment. Fails "
            "when another bill of theirs already awaits payment. It does not check whether the bill is paid.",
            "write",
            {"customer_id": _CUSTOMER_ID, "bill_id": string_param("The bill's id, such as 'B1001'.")},
            [
                _customer(),
                {
                    "kind": "require",
                    "message": "A bill is already awaiting payment for this customer",
                    "sql": "SELECT NOT EXISTS (SELECT 1 FROM customers c, json_each(c.bill_ids) j JOIN bills b "
                    "ON b.bill_id = j.value WHERE c.customer_id = :customer_id AND b.status = 'Awaiting Payment')",
                },
                {
                    "kind": "require",
                    "message": "Bill {bill_id} not found for customer {customer_id}",
                    "sql": "SELECT EXISTS (SELECT 1 FROM customers c, json_each(c.bill_ids) j "
                    "WHERE c.customer_id = :customer_id AND j.value = :bill_id)",
                },
                {
                    "kind": "exec",
                    "sql": "UPDATE bills SET status = 'Awaiting Payment' WHERE bill_id = :bill_id",
                    "min_changes": 1,
                    "message": "Bill with ID {bill_id} not found",
                },
                *SYNC,
                _text("SELECT 'Payment request sent to the customer for bill ' || :bill_id"),
            ],
        ),
        "also_writes": ["surroundings"],
    }


# tau2 writes a number argument as Python's str() does: 2 for an integer, 2.0 for a float.
_GB_TEXT = "CASE typeof(:gb_amount) WHEN 'integer' THEN CAST(:gb_amount AS TEXT) ELSE float_text(:gb_amount) END"
_DRAFT = (
    "(SELECT b.bill_id FROM customers c, json_each(c.bill_ids) j JOIN bills b ON b.bill_id = j.value "
    "WHERE c.customer_id = :customer_id AND b.status = 'Draft' ORDER BY j.key LIMIT 1)"
)
_NEXT_MONTH = "date(:today, 'start of month', '+32 days', 'start of month')"


def _refuel_tool() -> dict[str, Any]:
    charge = ":gb_amount * :plan.data_refueling_price_per_gb"
    item = (
        f"json_object('description', 'Data refueling: ' || ({_GB_TEXT}) || ' GB at $' || "
        f"float_text(:plan.data_refueling_price_per_gb) || '/GB', 'amount', json(float_text({charge})), "
        f"'date', :today, 'item_type', CASE WHEN {charge} < 0 THEN 'Credit' ELSE 'Charge' END)"
    )
    return {
        **tool(
            "refuel_data",
            "Add data (in GB) to a customer's line for the current cycle, charged at the plan's refuelling price "
            "on the customer's next (draft) bill.",
            "write",
            {**LINE_PARAMS, "gb_amount": {"type": "number", "description": "The data to add, in GB."}},
            [
                *TARGET_LINE,
                {"kind": "require", "message": "Refuel amount must be positive", "sql": "SELECT :gb_amount > 0"},
                _PLAN,
                {
                    "kind": "exec",
                    "sql": "UPDATE lines SET data_refueling_gb = data_refueling_gb + :gb_amount "
                    "WHERE line_id = :line_id",
                },
                {  # no draft bill: a new one for next month
                    "kind": "exec",
                    "sql": "INSERT INTO bills (bill_id, position, customer_id, period_start, period_end, issue_date, "
                    "total_due, due_date, line_items, status) "
                    f"SELECT new_id('B-'), (SELECT coalesce(max(position), -1) + 1 FROM bills), :customer_id, "
                    f"{_NEXT_MONTH}, date({_NEXT_MONTH}, '+1 month', '-1 day'), {_NEXT_MONTH}, 0.0, "
                    f"date({_NEXT_MONTH}, '+14 days'), '[]', 'Draft' WHERE {_DRAFT} IS NULL",
                },
                {
                    "kind": "exec",
                    "sql": "UPDATE customers SET bill_ids = json_insert(bill_ids, '$[#]', "
                    "(SELECT bill_id FROM bills ORDER BY position DESC LIMIT 1)) "
                    f"WHERE customer_id = :customer_id AND {_DRAFT} IS NULL",
                },
                {
                    "kind": "exec",
                    "sql": f"UPDATE bills SET line_items = json_insert(line_items, '$[#]', {item}), "
                    f"total_due = total_due + {charge} WHERE bill_id = {_DRAFT}",
                },
                *SYNC,
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["document"],
                    "sql": "SELECT json_object('message', 'Successfully added ' || "
                    f"({_GB_TEXT}) || ' GB of data for line ' || :line_id || ' for $' || "
                    f"printf('%.2f', round_half_even({charge}, 2)), "
                    "'new_data_refueling_gb', float_text(l.data_refueling_gb), "
                    f"'charge', float_text({charge})) AS document FROM lines l WHERE l.line_id = :line_id",
                },
            ],
        ),
        "also_writes": ["surroundings"],
    }


def tools() -> list[dict[str, Any]]:
    """The agent's tools, in tau2's order."""
    suspend = tool(
        "suspend_line",
        "Suspend an active line of a customer (at most 6 months; a $5/month holding fee applies).",
        "write",
        {**LINE_PARAMS, "reason": string_param("Why the line is suspended.")},
        [
            *TARGET_LINE,
            {"kind": "require", "message": "Line must be active to suspend", "sql": "SELECT :line.status = 'Active'"},
            {
                "kind": "exec",
                "sql": "UPDATE lines SET status = 'Suspended', suspension_start_date = :today WHERE line_id = :line_id",
            },
            *SYNC,
            _line_result("Line suspended successfully. $5/month holding fee will apply."),
        ],
    )
    resume = tool(
        "resume_line",
        "Resume a suspended (or pending-activation) line of a customer.",
        "write",
        LINE_PARAMS,
        [
            *TARGET_LINE,
            {
                "kind": "require",
                "message": "Line must be suspended to resume",
                "sql": "SELECT :line.status IN ('Suspended', 'Pending Activation')",
            },
            {
                "kind": "exec",
                "sql": "UPDATE lines SET status = 'Active', suspension_start_date = NULL WHERE line_id = :line_id",
            },
            *SYNC,
            _line_result("Line resumed successfully"),
        ],
    )
    usage = tool(
        "get_data_usage",
        "Get a line's data use in the current billing cycle: GB used, the plan's limit, GB refuelled, and "
        "the cycle's end date.",
        "read",
        LINE_PARAMS,
        [
            *TARGET_LINE,
            _PLAN,
            {
                "kind": "return",
                "shape": "value",
                "json_columns": ["document"],
                "sql": "SELECT json_object('line_id', :line_id, 'data_used_gb', float_text(:line.data_used_gb), "
                "'data_limit_gb', float_text(:plan.data_limit_gb), "
                "'data_refueling_gb', float_text(:line.data_refueling_gb), "
                "'cycle_end_date', date(:today, 'start of month', '+1 month', '-1 day')) AS document",
            },
        ],
    )
    transfer = tool(
        "transfer_to_human_agents",
        "Transfer the customer to a human agent with a summary of the issue: only when the customer asks for "
        "one, or when the policy and these tools cannot solve the issue.",
        "read",
        {"summary": string_param("A summary of the customer's issue.")},
        [_text("SELECT 'Transfer successful'")],
    )
    return [
        *_customer_lookups(),
        _details_tool(),
        {**suspend, "also_writes": ["surroundings"]},
        {**resume, "also_writes": ["surroundings"]},
        _bills_tool(),
        _payment_request_tool(),
        usage,
        _roaming_tool("enable_roaming", True),
        _roaming_tool("disable_roaming", False),
        transfer,
        _refuel_tool(),
    ]
