"""tau2-bench's 15 retail tools as SQL steps, each check in tau2's order with tau2's message, so the
first problem tau2 reports is the one reported here."""

from __future__ import annotations

from typing import Any

from .common import document_tool, string_param, tool
from .retail_data import ADDRESS_FIELDS, ORDER_JSON, PRODUCT_JSON, USER_JSON, VARIANT_JSON

_RETURN_ORDER = {
    "kind": "return",
    "shape": "value",
    "json_columns": ["document"],
    "sql": f"SELECT {ORDER_JSON} AS document FROM orders o WHERE o.order_id = :order_id",
}
_ORDER = {
    "kind": "query",
    "bind": "order",
    "sql": "SELECT * FROM orders WHERE order_id = :order_id",
    "message": "Order not found",
}
_USER_PAYMENT_METHOD = {
    "kind": "query",
    "bind": "method",
    "sql": "SELECT * FROM payment_methods WHERE payment_method_id = :payment_method_id AND user_id = :order.user_id",
    "message": "Payment method not found",
}
_PAYMENT_COUNT = {
    "kind": "query",
    "bind": "paid",
    "sql": "SELECT count(*) AS n FROM order_payments WHERE order_id = :order_id",
}


def _items_in_order(message: str) -> dict[str, Any]:
    """tau2 checks, in list order, that no item id is asked for more often than the order holds it."""
    return {
        "kind": "require",
        "mode": "empty",
        "message": message,
        "sql": """SELECT a.value AS item_id FROM json_each(:item_ids) AS a
  WHERE (SELECT count(*) FROM json_each(:item_ids) AS b WHERE b.value = a.value)
      > (SELECT count(*) FROM order_items AS i WHERE i.order_id = :order_id AND i.item_id = a.value)
  ORDER BY a.key LIMIT 1""",
    }


def _same_length(message: str) -> dict[str, Any]:
    return {
        "kind": "require",
        "message": message,
        "sql": "SELECT json_array_length(:item_ids) = json_array_length(:new_item_ids)",
    }


# The (old item, new item) pairs in list order; the old item is the order's first line with that id.
_PAIRS = """SELECT a.key AS k, a.value AS old_id, b.value AS new_id,
    (SELECT i.price FROM order_items AS i WHERE i.order_id = :order_id AND i.item_id = a.value
      ORDER BY i.position LIMIT 1) AS old_price,
    (SELECT i.product_id FROM order_items AS i WHERE i.order_id = :order_id AND i.item_id = a.value
      ORDER BY i.position LIMIT 1) AS product_id
  FROM json_each(:item_ids) AS a JOIN json_each(:new_item_ids) AS b ON a.key = b.key"""


def _new_items_exist(*, different: bool) -> dict[str, Any]:
    same = (
        "WHEN p.old_id = p.new_id THEN 'The new item id should be different from the old item id' " if different else ""
    )
    return {
        "kind": "require",
        "mode": "empty",
        "message": "{problem}",
        "sql": f"""SELECT CASE {same}WHEN v.item_id IS NULL THEN 'Variant not found'
    ELSE 'New item ' || p.new_id || ' not found or available' END AS problem
  FROM ({_PAIRS}) AS p LEFT JOIN variants AS v ON v.item_id = p.new_id AND v.product_id = p.product_id
  WHERE {"p.old_id = p.new_id OR " if different else ""}v.item_id IS NULL OR NOT v.available
  ORDER BY p.k LIMIT 1""",
    }


# tau2 adds the price differences one by one in list order: a recursive sum gives the same double.
def _price_difference(*, rounded: bool) -> dict[str, Any]:
    """Binds ``difference.amount``: the new items' prices less the old ones', rounded to cents for an
    exchange and left unrounded for a pending order's change, as tau2 does each."""
    total = "round_half_even(total, 2)" if rounded else "total"
    return {
        "kind": "query",
        "bind": "difference",
        "sql": f"""WITH RECURSIVE pairs AS ({_PAIRS}),
  running(k, total) AS (SELECT -1, 0.0 UNION ALL
    SELECT p.k, running.total + ((SELECT v.price FROM variants AS v WHERE v.item_id = p.new_id) - p.old_price)
    FROM running JOIN pairs AS p ON p.k = running.k + 1)
  SELECT {total} AS amount FROM running ORDER BY k DESC LIMIT 1""",
    }


_PAYMENTS = "order_payments (order_id, position, transaction_type, amount, payment_method_id)"


def _sorted(array: str) -> str:
    """A JSON array argument sorted, as Python's ``sorted`` orders strings (by code point)."""
    return f"(SELECT json_group_array(value) FROM (SELECT value FROM json_each(:{array}) ORDER BY value))"


_ORDER_ID = string_param("The order id, such as '#W0000000' (with the leading '#').")
_USER_ID = string_param("The user id, such as 'sara_doe_496'.")
_PAYMENT_METHOD_ID = string_param(
    "The payment method id, such as 'gift_card_0000000' or 'credit_card_0000000', from the user's or order's details."
)
_ITEM_IDS = {"type": "array", "items": {"type": "string"}, "description": "Item ids, such as '1008292230'; may repeat."}
_ITEM_SWAP = {  # the parameters of an exchange and of a pending order's item change
    "order_id": _ORDER_ID,
    "item_ids": _ITEM_IDS,
    "new_item_ids": {**_ITEM_IDS, "description": "The new item ids, in the same positions as item_ids."},
    "payment_method_id": _PAYMENT_METHOD_ID,
}
_ADDRESS = {name: string_param(f"The address's {name}.") for name in ADDRESS_FIELDS}
_ADDRESS_JSON = "json_object(" + ", ".join(f"'{f}', :{f}" for f in ADDRESS_FIELDS) + ")"


def tools() -> list[dict[str, Any]]:
    return [
        tool(
            "calculate",
            "Calculate a mathematical expression of numbers, + - * /, parentheses and spaces; the result is "
            "rounded to 2 decimals.",
            "read",
            {"expression": string_param("The expression, such as '2 + 2'.")},
            [
                {
                    "kind": "require",
                    "message": "Invalid characters in expression",
                    "sql": "SELECT :expression NOT GLOB '*[^0-9+*/(). -]*'",
                },
                {"kind": "query", "bind": "calc", "sql": "SELECT arithmetic_error(:expression) AS error"},
                {"kind": "require", "message": "{calc.error}", "sql": "SELECT :calc.error IS NULL"},
                {
                    "kind": "return",
                    "shape": "value",
                    "sql": "SELECT float_text(round_half_even(arithmetic(:expression), 2))",
                },
            ],
        ),
        tool(
            "cancel_pending_order",
            "Cancel a pending order, with reason 'no longer needed' or 'ordered by mistake'. Every payment is "
            "refunded: at once to a gift card, in 5-7 business days otherwise. Only after the user confirms "
            "explicitly. Returns the order.",
            "write",
            {"order_id": _ORDER_ID, "reason": string_param("'no longer needed' or 'ordered by mistake'.")},
            [
                _ORDER,
                {
                    "kind": "require",
                    "message": "Non-pending order cannot be cancelled",
                    "sql": "SELECT :order.status = 'pending'",
                },
                {
                    "kind": "require",
                    "message": "Invalid reason",
                    "sql": "SELECT :reason IN ('no longer needed', 'ordered by mistake')",
                },
                {
                    "kind": "require",
                    "mode": "empty",
                    "message": "Payment method not found",
                    "sql": """SELECT p.payment_method_id FROM order_payments AS p WHERE p.order_id = :order_id
  AND NOT EXISTS (SELECT 1 FROM payment_methods AS m
                  WHERE m.payment_method_id = p.payment_method_id AND m.user_id = :order.user_id)""",
                },
                _PAYMENT_COUNT,
                {
                    "kind": "exec",
                    "sql": """UPDATE payment_methods SET balance = round_half_even(balance +
    (SELECT sum(p.amount) FROM order_payments AS p
     WHERE p.order_id = :order_id AND p.payment_method_id = payment_methods.payment_method_id), 2)
  WHERE source = 'gift_card' AND user_id = :order.user_id AND payment_method_id IN
    (SELECT payment_method_id FROM order_payments WHERE order_id = :order_id)""",
                },
                {
                    "kind": "exec",
                    "sql": f"""INSERT INTO {_PAYMENTS}
  SELECT order_id, position + :paid.n, 'refund', amount, payment_method_id
  FROM order_payments WHERE order_id = :order_id ORDER BY position""",
                },
                {
                    "kind": "exec",
                    "sql": "UPDATE orders SET status = 'cancelled', cancel_reason = :reason WHERE order_id = :order_id",
                },
                _RETURN_ORDER,
            ],
        ),
        tool(
            "exchange_delivered_order_items",
            "Exchange items of a delivered order for other items of the same product; the price difference is "
            "paid or refunded with the given payment method. A delivered order can be returned or exchanged only "
            "once. Only after the user confirms explicitly. Returns the order.",
            "write",
            _ITEM_SWAP,
            [
                _ORDER,
                {
                    "kind": "require",
                    "message": "Non-delivered order cannot be exchanged",
                    "sql": "SELECT :order.status = 'delivered'",
                },
                _items_in_order("Number of {item_id} not found."),
                _same_length("The number of items to be exchanged should match."),
                _new_items_exist(different=False),
                _price_difference(rounded=True),
                _USER_PAYMENT_METHOD,
                {
                    "kind": "require",
                    "message": "Insufficient gift card balance to pay for the price difference",
                    "sql": "SELECT NOT (:method.source = 'gift_card' AND :method.balance < :difference.amount)",
                },
                {
                    "kind": "exec",
                    "sql": f"""UPDATE orders SET status = 'exchange requested',
    exchange_items = {_sorted("item_ids")}, exchange_new_items = {_sorted("new_item_ids")},
    exchange_payment_method_id = :payment_method_id,
    exchange_price_difference = CASE WHEN json_array_length(:item_ids) = 0 THEN '0'
                                     ELSE float_text(:difference.amount) END
  WHERE order_id = :order_id""",
                },
                _RETURN_ORDER,
            ],
        ),
        tool(
            "find_user_id_by_name_zip",
            "Find a user id by first name, last name (both case-insensitive) and zip code. Look users up by "
            "email first; use this only when the user cannot give an email or none is found.",
            "read",
            {
                "first_name": string_param("The first name, such as 'John'."),
                "last_name": string_param("The last name, such as 'Doe'."),
                "zip": string_param("The zip code, such as '12345'."),
            },
            [
                {
                    "kind": "query",
                    "bind": "user",
                    "message": "User not found",
                    "sql": """SELECT user_id FROM users WHERE lower(first_name) = lower(:first_name)
  AND lower(last_name) = lower(:last_name) AND json_extract(address, '$.zip') = :zip ORDER BY position LIMIT 1""",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT :user.user_id"},
            ],
        ),
        tool(
            "find_user_id_by_email",
            "Find a user id by email (case-insensitive).",
            "read",
            {"email": string_param("The email, such as 'something@example.com'.")},
            [
                {
                    "kind": "query",
                    "bind": "user",
                    "message": "User not found",
                    "sql": "SELECT user_id FROM users WHERE lower(email) = lower(:email) ORDER BY position LIMIT 1",
                },
                {"kind": "return", "shape": "value", "sql": "SELECT :user.user_id"},
            ],
        ),
        document_tool(
            "get_order_details",
            "Get the status and details of an order.",
            "order_id",
            _ORDER_ID,
            "orders o",
            "o.order_id",
            ORDER_JSON,
            "Order not found",
        ),
        document_tool(
            "get_product_details",
            "Get a product and its items (variants) with price and availability.",
            "product_id",
            string_param("The product id, such as '6086499569' (not an item id)."),
            "products p",
            "p.product_id",
            PRODUCT_JSON,
            "Product not found",
        ),
        document_tool(
            "get_item_details",
            "Get one item (a variant of a product): options, availability, price.",
            "item_id",
            string_param("The item id, such as '6086499569' (not a product id)."),
            "variants v JOIN products AS vp ON vp.product_id = v.product_id",
            "v.item_id",
            VARIANT_JSON,
            "Item not found",
            order="vp.position",
        ),
        document_tool(
            "get_user_details",
            "Get a user's details, including payment methods and orders.",
            "user_id",
            _USER_ID,
            "users u",
            "u.user_id",
            USER_JSON,
            "User not found",
        ),
        tool(
            "list_all_product_types",
            "List the name and product id of every product type (50), sorted by name.",
            "read",
            {},
            [
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["products"],
                    "sql": "SELECT json_group_object(name, product_id) AS products FROM "
                    "(SELECT name, product_id FROM products ORDER BY name)",
                }
            ],
        ),
        tool(
            "modify_pending_order_address",
            "Change the shipping address of a pending order. Only after the user confirms explicitly. Returns "
            "the order.",
            "write",
            {"order_id": _ORDER_ID, **_ADDRESS},
            [
                _ORDER,
                {
                    "kind": "require",
                    "message": "Non-pending order cannot be modified",
                    "sql": "SELECT instr(:order.status, 'pending') > 0",
                },
                {"kind": "exec", "sql": f"UPDATE orders SET address = {_ADDRESS_JSON} WHERE order_id = :order_id"},
                _RETURN_ORDER,
            ],
        ),
        tool(
            "modify_pending_order_items",
            "Change items of a pending order to other items of the same product; the price difference is paid "
            "or refunded with the given payment method. Can be done once per order. Only after the user "
            "confirms explicitly. Returns the order.",
            "write",
            _ITEM_SWAP,
            [
                _ORDER,
                {
                    "kind": "require",
                    "message": "Non-pending order cannot be modified",
                    "sql": "SELECT :order.status = 'pending'",
                },
                _items_in_order("{item_id} not found"),
                _same_length("The number of items to be exchanged should match"),
                _new_items_exist(different=True),
                _price_difference(rounded=False),
                _USER_PAYMENT_METHOD,
                {
                    "kind": "require",
                    "message": "Insufficient gift card balance to pay for the new item",
                    "sql": "SELECT NOT (:method.source = 'gift_card' AND :method.balance < :difference.amount)",
                },
                _PAYMENT_COUNT,
                {
                    "kind": "exec",
                    "sql": f"""INSERT INTO {_PAYMENTS}
  VALUES (:order_id, :paid.n, CASE WHEN :difference.amount > 0 THEN 'payment' ELSE 'refund' END,
          abs(:difference.amount), :payment_method_id)""",
                },
                {
                    "kind": "exec",
                    "sql": """UPDATE payment_methods SET balance = round_half_even(balance - :difference.amount, 2)
  WHERE payment_method_id = :payment_method_id AND source = 'gift_card'""",
                },
                {
                    # tau2 gives every changed line the price and options of the *last* new item (its loop
                    # reuses the variant left over from the price loop); reproduced, see docs/tau2.md.
                    "kind": "exec",
                    "for_each": "item_ids",
                    "sql": """UPDATE order_items SET item_id = json_extract(:new_item_ids, '$[' || :index || ']'),
    price = v.price, options = v.options
  FROM (SELECT price, options FROM variants WHERE item_id = json_extract(:new_item_ids, '$[#-1]')) AS v
  WHERE order_items.order_id = :order_id AND order_items.position =
    (SELECT min(position) FROM order_items WHERE order_id = :order_id AND item_id = :item)""",
                },
                {
                    "kind": "exec",
                    "sql": "UPDATE orders SET status = 'pending (item modified)' WHERE order_id = :order_id",
                },
                _RETURN_ORDER,
            ],
        ),
        tool(
            "modify_pending_order_payment",
            "Pay a pending order with another of the user's payment methods: the new method is charged and the "
            "old one refunded. Only after the user confirms explicitly. Returns the order.",
            "write",
            {"order_id": _ORDER_ID, "payment_method_id": _PAYMENT_METHOD_ID},
            [
                _ORDER,
                {
                    "kind": "require",
                    "message": "Non-pending order cannot be modified",
                    "sql": "SELECT instr(:order.status, 'pending') > 0",
                },
                _USER_PAYMENT_METHOD,
                {
                    "kind": "query",
                    "bind": "first",
                    "sql": """SELECT (SELECT count(*) FROM order_payments WHERE order_id = :order_id) AS n, p.*
  FROM order_payments AS p WHERE p.order_id = :order_id ORDER BY p.position LIMIT 1""",
                    "expect": "optional",
                },
                {
                    "kind": "require",
                    "message": "There should be exactly one payment for a pending order",
                    "sql": "SELECT :first.n = 1 AND :first.transaction_type = 'payment'",
                },
                {
                    "kind": "require",
                    "message": "The new payment method should be different from the current one",
                    "sql": "SELECT :first.payment_method_id != :payment_method_id",
                },
                {
                    "kind": "require",
                    "message": "Insufficient gift card balance to pay for the order",
                    "sql": "SELECT NOT (:method.source = 'gift_card' AND :method.balance < :first.amount)",
                },
                {
                    "kind": "query",
                    "bind": "old",
                    "message": "Payment method not found",
                    "sql": "SELECT * FROM payment_methods WHERE payment_method_id = :first.payment_method_id "
                    "AND user_id = :order.user_id",
                },
                {
                    "kind": "exec",
                    "sql": f"""INSERT INTO {_PAYMENTS}
  VALUES (:order_id, 1, 'payment', :first.amount, :payment_method_id),
         (:order_id, 2, 'refund', :first.amount, :first.payment_method_id)""",
                },
                {
                    "kind": "exec",
                    "sql": """UPDATE payment_methods SET balance = round_half_even(balance +
    CASE payment_method_id WHEN :payment_method_id THEN -:first.amount ELSE :first.amount END, 2)
  WHERE source = 'gift_card' AND payment_method_id IN (:payment_method_id, :first.payment_method_id)""",
                },
                _RETURN_ORDER,
            ],
        ),
        tool(
            "modify_user_address",
            "Change a user's default address. Only after the user confirms explicitly. Returns the user.",
            "write",
            {"user_id": _USER_ID, **_ADDRESS},
            [
                {
                    "kind": "query",
                    "bind": "user",
                    "message": "User not found",
                    "sql": "SELECT user_id FROM users WHERE user_id = :user_id",
                },
                {"kind": "exec", "sql": f"UPDATE users SET address = {_ADDRESS_JSON} WHERE user_id = :user_id"},
                {
                    "kind": "return",
                    "shape": "value",
                    "json_columns": ["document"],
                    "sql": f"SELECT {USER_JSON} AS document FROM users u WHERE u.user_id = :user_id",
                },
            ],
        ),
        tool(
            "return_delivered_order_items",
            "Return items of a delivered order; the refund goes to the original payment method or a gift card. "
            "The user gets an email on how to send the items. Only after the user confirms explicitly. Returns "
            "the order.",
            "write",
            {"order_id": _ORDER_ID, "item_ids": _ITEM_IDS, "payment_method_id": _PAYMENT_METHOD_ID},
            [
                _ORDER,
                {
                    "kind": "require",
                    "message": "Non-delivered order cannot be returned",
                    "sql": "SELECT :order.status = 'delivered'",
                },
                _USER_PAYMENT_METHOD,
                {
                    "kind": "require",
                    "message": "Payment method should be the original payment method",
                    "sql": """SELECT :method.source = 'gift_card' OR :payment_method_id =
  (SELECT payment_method_id FROM order_payments WHERE order_id = :order_id ORDER BY position LIMIT 1)""",
                },
                _items_in_order("Some item not found"),
                {
                    "kind": "exec",
                    "sql": f"""UPDATE orders SET status = 'return requested',
    return_items = {_sorted("item_ids")},
    return_payment_method_id = :payment_method_id
  WHERE order_id = :order_id""",
                },
                _RETURN_ORDER,
            ],
        ),
        tool(
            "transfer_to_human_agents",
            "Transfer the user to a human agent with a summary of the issue. Only when the user asks for one, "
            "or when the policy and tools cannot solve the issue.",
            "read",
            {"summary": string_param("A summary of the user's issue.")},
            [{"kind": "return", "shape": "value", "sql": "SELECT 'Transfer successful'"}],
        ),
    ]
