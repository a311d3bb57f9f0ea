"""The quality report reads how a request is worded: whether it says why, whether it dictates a form,
and whether it names a record by a column; and it reads a day or a time said in words."""

from __future__ import annotations

from datetime import date

import pytest

from envs.quality.requests import dictates_form, has_motive, is_stitched, miscounts, names_by_column
from envs.quality.spoken import spoken_spellings, spoken_when
from envs.quality.text import normalize, numbers_in, value_features


@pytest.mark.parametrize(
    "text",
    [
        "Hello, I need you to pause one of my package subscriptions. Thanks a lot.",
        "Hi, my email is a@b.com. I'd like to cancel my booking from March 3. Thanks!",
        "I'm Jordan Lee, date of birth 1990-01-02. Please close my ticket. Appreciate it.",
        "Please cancel it. The contact name is Jordan Lee. It is for flight AW1234.",
        "I need the email of my account changed to a.new@example.net.",
    ],
)
def test_a_request_with_no_reason_has_no_motive(text: str) -> None:
    assert not has_motive(text)


@pytest.mark.parametrize(
    "text",
    [
        "Could you pause my subscription? I'm travelling for a few weeks.",
        "Please close my ticket. It's working again.",
        "I'd like to cancel my booking, because my plans changed.",
        'Please cancel it. The reason is "Plans changed".',
        'Please appeal my ban. The comment is "I think the decision was a mistake."',
    ],
)
def test_a_reason_said_or_dictated_is_a_motive(text: str) -> None:
    assert has_motive(text)


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("Please make the project type roof. The valuation is 5017.17.", True),
        ("I'd like the method to be check.", True),
        ("Please make the new slot time 2026-03-24 10:00.", True),
        ("The start date is 2026-04-04.", True),
        ("It's a roof project. It's valued at $5,017.17.", False),
        ("I'd like to pay by check. Please move it to March 24 at 10 AM.", False),
        ("The profile name is Brandi. The address is 14 Elm Street.", False),
    ],
)
def test_details_dictated_as_a_form_are_found(text: str, form: bool) -> None:
    assert dictates_form(text) is form


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("The amount of my program refund whose refunded date is 2026-02-08", True),
        ("my banquet order with price per guest 123.09", True),
        ("my refund from February 8", False),
        ("my appeal with the hearing on February 17", False),
        ("my booking with booking reference BK-204913", False),
    ],
)
def test_records_named_by_a_column_are_found(text: str, named: bool) -> None:
    assert names_by_column(text) is named


def test_days_and_times_are_said_in_words_with_the_same_information() -> None:
    today = date(2026, 3, 2)
    assert spoken_when("2026-02-17", today) == "February 17"
    assert spoken_when("2025-11-06", today) == "November 6, 2025"  # another year keeps its year
    assert spoken_when("2026-03-24 10:00:00", today) == "March 24 at 10 AM"
    assert spoken_when("2026-03-02 13:15", today) == "March 2 at 1:15 PM"
    assert spoken_when("2026-03-02 00:30", None) == "March 2, 2026 at 12:30 AM"  # no today: the year


def test_a_record_named_by_its_day_in_words_is_told_from_its_siblings() -> None:
    """The ambiguous-goals measure reads "February 17" as the day 2026-02-17 (not only its month), so
    records named in words are no more ambiguous than those named by ISO dates."""
    said = normalize("Please withdraw my appeal with the hearing on February 17 at 9:30 AM.")
    features = value_features(("hearing_at",), "datetime", "2026-02-17 09:30:00")
    keys = {f.key[-2] for f in features if f.said_in(said, numbers_in(said))}
    assert keys == {"date", "month", "time"}
    other = value_features(("hearing_at",), "datetime", "2026-02-01 09:00:00")
    assert {f.key[-2] for f in other if f.said_in(said, numbers_in(said))} == {"month"}  # not February 1
    assert spoken_spellings("09:30") == ("9:30 am",)


@pytest.mark.parametrize(
    ("text", "stitched"),
    [
        ("I'd also like to ask for a room arrangement. It is for the same tour booking. It's a twin room.", True),
        ("Please add a guest to my tour booking. Our plans grew. It belongs with it, so I'd rather do both now.", True),
        ("I'd like to add a photo. That way everything for it is in one place.", True),
        ("I'd also like to ask for a room arrangement for the same tour booking. It's a twin room.", False),
        ("Please cancel my booking. It is for my sister, who can't come anymore.", True),
        ("Please cancel my booking. My sister can't come; it is for her.", False),
    ],
)
def test_a_request_stitched_from_parts_is_found(text: str, stitched: bool) -> None:
    assert is_stitched(text) is stitched


@pytest.mark.parametrize(
    ("text", "miscounted"),
    [
        ("Please book a table. We'll be 1 people.", True),
        ("Please shorten my leave request. I'd like 1 hours returned.", True),
        ("Please extend my stay. I need 1 extra nights.", True),
        ("Please book a table. It's just 1 person.", False),
        ("Please book a table. We'll be 2 people.", False),
        ("Please extend my stay. It's for 1 night.", False),
        ("For the start date, April 1 works for me.", False),  # a day, not a count
        ("If I were to flag my charge posted on March 1 as personal, what would I owe?", False),
        ("Please book the room for Pod 1 meetings.", False),  # a name
    ],
)
def test_a_count_of_one_said_with_a_plural_is_found(text: str, miscounted: bool) -> None:
    assert miscounts(text) is miscounted
