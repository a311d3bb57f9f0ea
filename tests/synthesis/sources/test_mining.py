"""Topic mining from a text file: duplicates merge, distinct domains stay apart, sectors are guessed."""

from __future__ import annotations

import random

import pytest

from synthesis.sources.mining import SECTOR_KEYWORDS, Topic, guess_sector, mine_topics, tokens

TEXT = """\
# Candidate domains for the next synthesis run
Clinic appointments
clinic appointment
  CLINIC   APPOINTMENTS
Reschedule my dentist appointment at the clinic

Hotel reservations
cancel my hotel reservation
- Flight bookings
2. Change my flight booking to Friday
Freight shipping
Track a freight shipment
Online retail orders
Return an item from my online order
Payroll and employee leave
Apartment rentals
Mobile phone plans
Parking permits
Music streaming subscriptions
Electricity meter readings
Car repair garage
University course enrollment
Bank account transfers
# the end
"""


@pytest.fixture
def lines(tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path.read_text(encoding="utf-8").splitlines()


def by_name(topics: list[Topic]) -> dict[str, Topic]:
    return {t.name: t for t in topics}


def test_duplicates_and_paraphrases_merge_into_one_topic(lines):
    topics = by_name(mine_topics(lines))
    clinic = topics["Clinic appointments"]
    # exact duplicates (case and spacing) are dropped; the longer task description joins the cluster
    assert clinic.examples == [
        "Clinic appointments",
        "clinic appointment",
        "Reschedule my dentist appointment at the clinic",
    ]
    assert clinic.keywords[:2] == ["appointment", "clinic"] and clinic.slug.startswith("appointment_clinic")
    assert topics["Freight shipping"].examples == ["Freight shipping", "Track a freight shipment"]
    assert topics["Flight bookings"].examples == ["Flight bookings", "Change my flight booking to Friday"]
    assert topics["Online retail orders"].examples == ["Online retail orders", "Return an item from my online order"]


def test_distinct_topics_stay_separate_and_comments_are_ignored(lines):
    topics = mine_topics(lines)
    assert len(topics) == 14
    examples = [e for t in topics for e in t.examples]
    assert len(examples) == len(set(examples)) and not any(e.startswith("#") for e in examples)
    # hotel and flight reservations share a word but are different domains
    assert by_name(topics)["Hotel reservations"].examples == ["Hotel reservations", "cancel my hotel reservation"]
    # largest clusters first, then by name
    assert [len(t.examples) for t in topics[:5]] == [3, 2, 2, 2, 2]
    assert [t.name for t in topics[5:8]] == ["Apartment rentals", "Bank account transfers", "Car repair garage"]


def test_sector_guesses(lines):
    sectors = {t.name: t.sector for t in mine_topics(lines)}
    assert sectors == {
        "Clinic appointments": "healthcare",
        "Flight bookings": "travel",
        "Freight shipping": "logistics",
        "Hotel reservations": "hospitality",
        "Online retail orders": "retail",
        "Apartment rentals": "real_estate",
        "Bank account transfers": "finance",
        "Car repair garage": "automotive",
        "Electricity meter readings": "energy",
        "Mobile phone plans": "telecom",
        "Music streaming subscriptions": "media",
        "Parking permits": "government",
        "Payroll and employee leave": "hr",
        "University course enrollment": "education",
    }
    assert len(SECTOR_KEYWORDS) >= 12
    assert guess_sector(tokens("quantum chromodynamics lecture notes?")) == "general"


def test_output_is_deterministic_and_independent_of_line_order(lines):
    first = mine_topics(lines)
    assert mine_topics(lines) == first
    shuffled = lines[:]
    random.Random(7).shuffle(shuffled)
    again = mine_topics(shuffled)
    # the same clusters, names and order; only the order of examples follows the input
    assert [(t.name, t.sector, t.keywords, sorted(t.examples)) for t in again] == [
        (t.name, t.sector, t.keywords, sorted(t.examples)) for t in first
    ]


def test_threshold_controls_merging_and_is_validated():
    lines = ["hotel room service", "hotel room cleaning"]  # Jaccard 2/4
    assert len(mine_topics(lines, threshold=0.5)) == 1
    assert len(mine_topics(lines, threshold=0.6)) == 2
    assert mine_topics(["", "# only a comment", "the and of"]) == []
    with pytest.raises(ValueError, match="threshold"):
        mine_topics(lines, threshold=0)
