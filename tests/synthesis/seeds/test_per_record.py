"""A user's record holds a few records of one kind: a loan has a fine or two, an offer a few
inspections; a flight still carries any number of bookings and a member holds any number of loans."""

from __future__ import annotations

from collections import Counter

import pytest

from synthesis.domains.parent_states import stranded_children
from synthesis.seeds.seedgen import PER_RECORD, per_record_caps

from .generated import domain, generated_spec

# each had 49 to 104 rows under one parent before
DOMAINS = ("home_purchase_offers", "library_loans", "carrier_load_tendering", "debit_card_controls")


def test_only_references_to_a_users_records_are_capped():
    fines = domain("library_loans").entity("fine")
    assert per_record_caps(domain("library_loans"), fines) == {"loan_id": PER_RECORD["uses"]}  # not the member
    airline = domain("airline_rebooking")
    bookings = per_record_caps(airline, airline.entity("booking"))
    assert "flight_id" not in bookings  # a flight belongs to nobody: any number of bookings


@pytest.mark.parametrize("domain_id", DOMAINS)
def test_no_users_record_holds_more_than_its_cap(domain_id):
    d = domain(domain_id)
    seed = generated_spec(domain_id).seed
    capped = 0
    for entity in d.entities:
        for column, cap in per_record_caps(d, entity).items():
            held = Counter(r[column] for r in seed[entity.table] if r.get(column) is not None)
            capped += bool(held)
            assert max(held.values(), default=0) <= cap, (entity.name, column, held.most_common(2))
    assert capped >= 1
    checked, stranded = stranded_children(d, seed)  # the cap never puts a row under a parent that fits it not
    assert stranded <= max(1, checked // 50)
