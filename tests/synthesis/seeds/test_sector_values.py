"""Codes, names and amounts of the logistics, media, retail and telecom domains as their trades write
them (``Attribute.format``, ``pool``, ``range_by``, ``ratio_of``): every phone and zip has its region's
form, every company and city is a real name, and the seeds hold each declared band and share."""

from __future__ import annotations

from typing import Any

import pytest

from envs.quality.money_bands import money_out_of_band
from envs.quality.trade_forms import trade_values_off_form
from synthesis.domains.enforcement import assign_enforcement
from synthesis.domains.forms import form_pattern
from synthesis.domains.ontology import load_ontology
from synthesis.tools.envgen import generate_env
from tests.measured import MEASURED

SECTORS = ("logistics", "media", "retail", "telecom")
DOMAINS = {d.id: d for d in load_ontology() if d.sector in SECTORS and d.id not in MEASURED}


def seed_of(name: str) -> Any:
    return generate_env(assign_enforcement(DOMAINS[name]), seed=0).spec


def test_every_phone_zip_company_and_city_of_the_sectors_is_declared():
    assert len(DOMAINS) == 32
    for domain in DOMAINS.values():
        for entity in domain.entities:
            for attr in entity.attributes:
                where = (domain.id, entity.name, attr.name)
                if attr.kind in ("phone", "zip"):
                    assert attr.format, where
                if attr.kind in ("company", "city"):
                    assert attr.pool, where


def test_every_domain_of_the_sectors_bands_or_forms_something_beyond_phones():
    for domain in DOMAINS.values():
        declared = [
            a
            for e in domain.entities
            for a in e.attributes
            if a.range_by or a.ratio_of or a.pool or (a.format and a.kind == "code")
        ]
        assert declared, domain.id


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_the_seed_holds_every_band_share_and_trade_form(name: str):
    spec = seed_of(name)
    bands, forms = money_out_of_band(spec), trade_values_off_form(spec)
    assert bands.amounts_out_of_band == 0 and bands.ratios_out_of_range == 0, bands
    assert forms.trade_values_off_form == 0, forms


def test_a_streaming_plan_is_priced_as_its_plan_and_a_charge_as_its_kind():
    spec = seed_of("streaming_subscriptions")
    plans = {"basic_with_ads": (6.99, 7.99), "standard": (13.99, 15.99), "premium": (19.99, 22.99)}
    rows = spec.seed["streaming_subscriptions"]
    assert {r["plan"] for r in rows} == set(plans)
    for row in rows:
        low, high = plans[row["plan"]]
        assert low <= row["monthly_price"] <= high, row
    extensions = [r for r in spec.seed["billing_charges"] if r["charge_type"] == "rental_extension"]
    assert extensions and all(r["amount"] == 1.99 for r in extensions)


def test_customs_duty_is_at_most_a_quarter_of_the_declared_value():
    spec = seed_of("customs_clearance_entries")
    entries = spec.seed["customs_entries"]
    assert entries and all(r["duty_owed"] <= 0.25 * r["declared_value"] + 0.005 for r in entries)
    entry_number = form_pattern("AXX-9999999-9")  # a filer code, the entry's serial and its check digit
    assert all(entry_number.fullmatch(r["entry_number"]) for r in entries)


def test_a_music_release_carries_a_upc_and_its_tracks_an_isrc():
    spec = seed_of("indie_music_distribution")
    assert all(len(r["upc"]) == 12 and r["upc"].isdigit() for r in spec.seed["releases"])
    isrc = form_pattern("US-{QZ|QM|RC|UM|TC}X-2{4|5}-99999")
    assert all(isrc.fullmatch(r["isrc"]) for r in spec.seed["tracks"])
