"""Amounts above the whole they are part of (measure 113): a balance above party times price, payments
above an order's price."""

from __future__ import annotations

from envs.quality.wholes import Whole, parts_above_whole, whole_findings, whole_of

from .whole_specs import tour_shop


def _table(spec, name):
    return next(t for t in spec.tables if t.name == name)


def test_a_whole_is_a_price_of_its_own_or_a_party_at_the_price_of_the_tour_it_books():
    spec = tour_shop()
    assert whole_of(spec, _table(spec, "eyewear_orders")) == Whole("eyewear_orders", total="total_price")
    assert whole_of(spec, _table(spec, "tour_bookings")) == Whole(
        "tour_bookings", count="party_size", unit="price_per_person", reference="tour_id", parent="tours"
    )
    # a tour's free seats are no party bought at its price
    assert whole_of(spec, _table(spec, "tours")) is None


def test_a_balance_above_the_party_at_the_price_is_counted_and_one_within_it_is_not():
    spec = tour_shop()
    found = {(f.kind, f.row.get("tour_booking_id")): f for f in whole_findings(spec, spec.seed)}
    assert found["part", "B1"].above and found["part", "B1"].whole == 2445.20
    assert not found["part", "B2"].above  # 5,000.00 of 7,335.60
    spec.seed["tour_bookings"][0]["party_size"] = 3  # the same balance on a party of three fits
    assert not next(f for f in whole_findings(spec, spec.seed) if f.row.get("tour_booking_id") == "B1").above


def test_payments_add_up_against_the_whole_and_a_refund_is_left_out():
    spec = tour_shop()
    paid = {f.row.get("tour_booking_id") or f.row.get("eyewear_order_id"): f for f in whole_findings(spec, spec.seed)}
    assert paid["B2"].amount == 21072.0 and paid["B2"].above
    assert "B1" not in {f.row.get("tour_booking_id") for f in whole_findings(spec, spec.seed) if f.kind == "paid"}
    assert paid["E1"].above and not paid["E2"].above  # each payment is below the price; their sum is not
    counts = parts_above_whole(spec)
    assert (counts.whole_parts_checked, counts.parts_above_whole) == (5, 3)


def test_a_payment_table_named_for_refunds_and_a_price_qualified_as_a_part_are_not_read():
    spec = tour_shop()
    _table(spec, "eyewear_payments").name = "eyewear_refunds"
    spec.seed["eyewear_refunds"] = spec.seed.pop("eyewear_payments")
    assert {f.table for f in whole_findings(spec, spec.seed)} == {"tour_bookings", "tour_payments"}
    orders = _table(spec, "eyewear_orders")
    orders.columns[2].name = "parts_total"  # what the parts cost is not what the order costs
    assert whole_of(spec, orders) is None


def test_a_fare_beside_a_count_of_passengers_is_one_seat_s_price():
    spec = tour_shop()
    bookings = _table(spec, "tour_bookings")
    bookings.columns[3].name = "passengers"
    bookings.columns.append(bookings.columns[4].model_copy(update={"name": "fare"}))
    assert whole_of(spec, bookings) == Whole("tour_bookings", count="passengers", unit="fare")
    for row in spec.seed["tour_bookings"]:
        row["passengers"], row["fare"] = row.pop("party_size"), 100.0
    # the payments of a party of three are held to three fares; the balance is measure 69's, by the fare
    assert [(f.table, f.whole) for f in whole_findings(spec, spec.seed) if f.table.startswith("tour")] == [
        ("tour_payments", 300.0)
    ]
    bookings.columns[3].name = "seats_left"  # no party bought at the fare: the fare is the whole
    assert whole_of(spec, bookings) == Whole("tour_bookings", total="fare")
