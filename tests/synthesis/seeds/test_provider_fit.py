"""A visit fits who gives it: a reviewer found a cleaning booked with an orthodontist and hygiene staff
doing crowns. The dental domain keys an appointment's visit type by its dentist's specialty
(``values_by``), so seeded rows and the appointments tasks create both fit."""

from __future__ import annotations

from .generated import domain, generated_spec

_FITS = {
    "general": {"cleaning", "filling", "crown", "consultation", "extraction"},
    "hygiene": {"cleaning", "consultation"},
    "orthodontics": {"consultation"},
    "oral_surgery": {"extraction", "consultation"},
}


def test_the_ontology_keys_visit_types_by_specialty() -> None:
    appointment = next(e for e in domain("dental_clinic_appointments").entities if e.name == "appointment")
    visit_type = next(a for a in appointment.attributes if a.name == "visit_type")
    assert visit_type.keyed is not None and visit_type.keyed[0] == "dentist.specialty"
    assert {k: set(v) for k, v in visit_type.keyed[1].items()} == _FITS


def test_every_seeded_appointment_fits_its_dentist() -> None:
    seed = generated_spec("dental_clinic_appointments").seed
    specialty = {d["dentist_id"]: d["specialty"] for d in seed["dentists"]}
    pairs = {(specialty[a["dentist_id"]], a["visit_type"]) for a in seed["appointments"]}
    assert len({s for s, _ in pairs}) >= 3  # several specialties are exercised
    assert all(visit in _FITS[s] for s, visit in pairs)
