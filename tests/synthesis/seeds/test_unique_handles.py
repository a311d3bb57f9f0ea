"""A unique name drawn from few examples is numbered once the examples run out, as people number a
taken handle ("TacoTuesday2", "NightOwl_92_2"), and no two rows share one (a reviewer found one
handle used by three players)."""

from __future__ import annotations

from collections import Counter

from .generated import domain, generated_spec


def test_no_two_players_share_a_display_name() -> None:
    players = generated_spec("game_store_refunds").seed["players"]
    names = Counter(p["display_name"] for p in players)
    examples = domain("game_store_refunds").entities[0].attributes[3].examples or []
    assert len(players) > len(examples)  # the examples run out, so numbering is exercised
    assert max(names.values()) == 1
    numbered = [n for n in names if n not in examples]
    assert numbered and all(" " not in n and n[-1].isdigit() for n in numbered)
    # a handle already ending in a digit keeps its own digits apart from the number ("NightOwl_92_2")
    digit_ended = [e for e in examples if e[-1].isdigit()]
    assert digit_ended
    for example in digit_ended:
        again = [n for n in numbered if n.startswith(example)]
        assert again and all(n[len(example)] == "_" for n in again)


def test_unique_codes_are_shaped_as_printed_and_hide_the_row_number() -> None:
    """Plates read "7KDL214" and VINs 17 characters, and no code ends in its row's number (a reviewer
    read plate "332703004" on vehicle VH0004); every code of a table stays unique."""
    import re

    vehicles = generated_spec("residential_parking_permits").seed["vehicles"]
    plates = [v["plate_number"] for v in vehicles]
    assert len(set(plates)) == len(plates) > 10
    assert all(re.fullmatch(r"[1-9][A-Z]{3}\d{3}", p) for p in plates)
    assert sum(p.endswith(f"{i:03d}") for i, p in enumerate(plates, 1)) <= 1

    cars = generated_spec("vehicle_recall_repairs").seed["owned_vehicles"]
    vins = [c["vin"] for c in cars]
    assert len(set(vins)) == len(vins) and all(re.fullmatch(r"[A-HJ-NPR-Z0-9]{17}", v) for v in vins)

    policies = [p["policy_number"] for p in generated_spec("pet_insurance_claims").seed["pet_policies"]]
    assert len(set(policies)) == len(policies) and all(re.fullmatch(r"PET-\d{9}", p) for p in policies)
    assert sum(p.endswith(f"{i:03d}") for i, p in enumerate(policies, 1)) <= 1


def test_a_vin_begins_with_its_makes_manufacturer_code() -> None:
    """A reviewer read VINs of Toyota and Ford (2T1, 1FA) on cars whose make is "nissan"."""
    for domain_id, table in (("vehicle_warranty_claims", "covered_vehicles"), ("car_service_booking", "vehicles")):
        cars = generated_spec(domain_id).seed[table]
        wmi = {"toyota": "2T1", "ford": "1FA", "chevrolet": "1G1", "nissan": "1N4", "kia": "KNA", "honda": "1HG"}
        wmi |= {"hyundai": "KMH", "subaru": "JF1"}
        assert cars and all(c["vin"].startswith(wmi[c["make"]]) for c in cars)
