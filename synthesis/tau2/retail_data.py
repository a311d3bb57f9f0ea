"""tau2-bench's retail data as tables: the rows of ``db.json`` and the SQL that rebuilds tau2's JSON
records from them (``ORDER_JSON``, ``USER_JSON``, ``PRODUCT_JSON``). Tool results and the exported
database use the same SQL, so they can never disagree.

tau2 keeps documents (a user holds its payment methods and the ids of its orders; an order holds its
items, fulfilments and payments). Here they are rows, with a ``position`` wherever tau2's order of a
list or dict is visible in a result.
"""

from __future__ import annotations

from typing import Any

from .common import boolean_json, money_json, ordered

ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")

TABLES: list[dict[str, Any]] = [
    {
        "name": "users",
        "primary_key": ["user_id"],
        "columns": [
            {"name": "user_id", "type": "text"},
            {"name": "position", "type": "integer", "description": "order in db.json (lookups return the first match)"},
            {"name": "first_name", "type": "text"},
            {"name": "last_name", "type": "text"},
            {"name": "address", "type": "json"},
            {"name": "email", "type": "text"},
        ],
    },
    {
        "name": "payment_methods",
        "primary_key": ["payment_method_id"],
        "columns": [
            {"name": "payment_method_id", "type": "text"},
            {"name": "user_id", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "source", "type": "text", "enum": ["credit_card", "paypal", "gift_card"]},
            {"name": "brand", "type": "text", "nullable": True},
            {"name": "last_four", "type": "text", "nullable": True},
            {"name": "balance", "type": "real", "nullable": True},
        ],
        "foreign_keys": [{"columns": ["user_id"], "table": "users", "references": ["user_id"]}],
    },
    {
        "name": "products",
        "primary_key": ["product_id"],
        "columns": [
            {"name": "product_id", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "name", "type": "text"},
        ],
    },
    {
        "name": "variants",
        "primary_key": ["item_id"],
        "columns": [
            {"name": "item_id", "type": "text"},
            {"name": "product_id", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "options", "type": "json"},
            {"name": "available", "type": "boolean"},
            {"name": "price", "type": "real"},
        ],
        "foreign_keys": [{"columns": ["product_id"], "table": "products", "references": ["product_id"]}],
    },
    {
        "name": "orders",
        "primary_key": ["order_id"],
        "columns": [
            {"name": "order_id", "type": "text"},
            {"name": "user_id", "type": "text"},
            {"name": "user_position", "type": "integer", "description": "place in the user's list of orders"},
            {"name": "address", "type": "json"},
            {"name": "status", "type": "text"},
            {"name": "cancel_reason", "type": "text", "nullable": True},
            {"name": "exchange_items", "type": "json", "nullable": True},
            {"name": "exchange_new_items", "type": "json", "nullable": True},
            {"name": "exchange_payment_method_id", "type": "text", "nullable": True},
            {
                "name": "exchange_price_difference",
                "type": "json",
                "nullable": True,
                "description": "the number as tau2 holds it: a float, or the integer 0 after an exchange of no items",
            },
            {"name": "return_items", "type": "json", "nullable": True},
            {"name": "return_payment_method_id", "type": "text", "nullable": True},
        ],
        "foreign_keys": [{"columns": ["user_id"], "table": "users", "references": ["user_id"]}],
    },
    {
        "name": "order_items",
        "primary_key": ["order_id", "position"],
        "columns": [
            {"name": "order_id", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "name", "type": "text"},
            {"name": "product_id", "type": "text"},
            {"name": "item_id", "type": "text"},
            {"name": "price", "type": "real"},
            {"name": "options", "type": "json"},
        ],
        "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
    },
    {
        "name": "fulfillments",
        "primary_key": ["order_id", "position"],
        "columns": [
            {"name": "order_id", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "tracking_id", "type": "json"},
            {"name": "item_ids", "type": "json"},
        ],
        "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
    },
    {
        "name": "order_payments",
        "primary_key": ["order_id", "position"],
        "columns": [
            {"name": "order_id", "type": "text"},
            {"name": "position", "type": "integer"},
            {"name": "transaction_type", "type": "text", "enum": ["payment", "refund"]},
            {"name": "amount", "type": "real"},
            {"name": "payment_method_id", "type": "text"},
        ],
        "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}],
    },
]

# -- the documents tau2 returns, rebuilt in SQL -----------------------------------------------------
ORDER_JSON = f"""json_object(
  'order_id', o.order_id, 'user_id', o.user_id, 'address', json(o.address),
  'items', (SELECT json_group_array(json_object('name', i.name, 'product_id', i.product_id,
              'item_id', i.item_id, 'price', {money_json("i.price")}, 'options', json(i.options)))
            FROM {ordered("order_items", "i.order_id = o.order_id", "i")}),
  'status', o.status,
  'fulfillments', (SELECT json_group_array(json_object('tracking_id', json(f.tracking_id),
                                                        'item_ids', json(f.item_ids)))
                   FROM {ordered("fulfillments", "f.order_id = o.order_id", "f")}),
  'payment_history', (SELECT json_group_array(json_object('transaction_type', p.transaction_type,
                        'amount', {money_json("p.amount")}, 'payment_method_id', p.payment_method_id))
                      FROM {ordered("order_payments", "p.order_id = o.order_id", "p")}),
  'cancel_reason', o.cancel_reason, 'exchange_items', json(o.exchange_items),
  'exchange_new_items', json(o.exchange_new_items), 'exchange_payment_method_id', o.exchange_payment_method_id,
  'exchange_price_difference', json(o.exchange_price_difference),
  'return_items', json(o.return_items), 'return_payment_method_id', o.return_payment_method_id)"""

PAYMENT_METHOD_JSON = f"""json(CASE m.source
  WHEN 'credit_card' THEN json_object('source', m.source, 'id', m.payment_method_id,
                                      'brand', m.brand, 'last_four', m.last_four)
  WHEN 'gift_card' THEN json_object('source', m.source, 'id', m.payment_method_id, 'balance', {money_json("m.balance")})
  ELSE json_object('source', m.source, 'id', m.payment_method_id) END)"""

USER_JSON = f"""json_object(
  'user_id', u.user_id, 'name', json_object('first_name', u.first_name, 'last_name', u.last_name),
  'address', json(u.address), 'email', u.email,
  'payment_methods', (SELECT json_group_object(m.payment_method_id, {PAYMENT_METHOD_JSON})
                      FROM {ordered("payment_methods", "m.user_id = u.user_id", "m")}),
  'orders', (SELECT json_group_array(uo.order_id)
             FROM (SELECT order_id FROM orders WHERE user_id = u.user_id ORDER BY user_position) AS uo))"""

VARIANT_JSON = f"""json_object('item_id', v.item_id, 'options', json(v.options),
  'available', {boolean_json("v.available")}, 'price', {money_json("v.price")})"""

PRODUCT_JSON = f"""json_object('name', p.name, 'product_id', p.product_id,
  'variants', (SELECT json_group_object(v.item_id, {VARIANT_JSON})
               FROM {ordered("variants", "v.product_id = p.product_id", "v")}))"""

DOCUMENTS = {  # tau2 table -> (envfarm table alias, key column, document SQL, order)
    "products": ("products p", "p.product_id", PRODUCT_JSON, "p.position"),
    "users": ("users u", "u.user_id", USER_JSON, "u.position"),
    "orders": ("orders o", "o.order_id", ORDER_JSON, "o.order_id"),
}


def seed(db: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """tau2's retail ``db.json`` as seed rows."""
    rows: dict[str, list[dict[str, Any]]] = {t["name"]: [] for t in TABLES}
    for pos, (product_id, product) in enumerate(db["products"].items()):
        rows["products"].append({"product_id": product_id, "position": pos, "name": product["name"]})
        for vpos, (item_id, variant) in enumerate(product["variants"].items()):
            rows["variants"].append(
                {
                    "item_id": item_id,
                    "product_id": product_id,
                    "position": vpos,
                    "options": variant["options"],
                    "available": bool(variant["available"]),
                    "price": float(variant["price"]),
                }
            )
    order_place = {}
    for pos, (user_id, user) in enumerate(db["users"].items()):
        rows["users"].append(
            {
                "user_id": user_id,
                "position": pos,
                "first_name": user["name"]["first_name"],
                "last_name": user["name"]["last_name"],
                "address": user["address"],
                "email": user["email"],
            }
        )
        for mpos, (method_id, method) in enumerate(user["payment_methods"].items()):
            rows["payment_methods"].append(
                {
                    "payment_method_id": method_id,
                    "user_id": user_id,
                    "position": mpos,
                    "source": method["source"],
                    "brand": method.get("brand"),
                    "last_four": method.get("last_four"),
                    "balance": None if method.get("balance") is None else float(method["balance"]),
                }
            )
        order_place.update({order_id: i for i, order_id in enumerate(user["orders"])})
    for order_id, order in db["orders"].items():
        rows["orders"].append(
            {
                "order_id": order_id,
                "user_id": order["user_id"],
                "user_position": order_place.get(order_id, len(order_place)),
                "address": order["address"],
                "status": order["status"],
                **{
                    k: order.get(k) for k in ("cancel_reason", "exchange_payment_method_id", "return_payment_method_id")
                },
                # tau2's model reads every number of db.json as a float
                "exchange_price_difference": None
                if order.get("exchange_price_difference") is None
                else float(order["exchange_price_difference"]),
                **{k: order.get(k) for k in ("exchange_items", "exchange_new_items", "return_items")},
            }
        )
        for ipos, item in enumerate(order["items"]):
            rows["order_items"].append(
                {
                    "order_id": order_id,
                    "position": ipos,
                    **{k: item[k] for k in ("name", "product_id", "item_id")},
                    "price": float(item["price"]),
                    "options": item["options"],
                }
            )
        for fpos, f in enumerate(order["fulfillments"]):
            rows["fulfillments"].append(
                {"order_id": order_id, "position": fpos, "tracking_id": f["tracking_id"], "item_ids": f["item_ids"]}
            )
        for ppos, p in enumerate(order["payment_history"]):
            rows["order_payments"].append(
                {
                    "order_id": order_id,
                    "position": ppos,
                    "transaction_type": p["transaction_type"],
                    "amount": float(p["amount"]),
                    "payment_method_id": p["payment_method_id"],
                }
            )
    return rows
