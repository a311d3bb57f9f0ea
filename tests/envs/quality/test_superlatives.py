"""The words a task ranks records by ("the most seats left") and the quality report reads back."""

from __future__ import annotations

import pytest

from envs.quality.text import superlative


@pytest.mark.parametrize(
    ("column", "dated", "lowest", "highest"),
    [
        ("price", False, "lowest price", "highest price"),
        ("travel_days_left", False, "fewest travel days left", "most travel days left"),
        ("seats_left", False, "fewest seats left", "most seats left"),
        ("data_used_gb", False, "least data used", "most data used"),
        ("duration_seconds", False, "shortest duration", "longest duration"),
        ("duration_hours", False, "shortest duration", "longest duration"),
        ("weight_lbs", False, "lightest weight", "heaviest weight"),
        ("party_size", False, "smallest party size", "largest party size"),
        ("luggage_space_left", False, "least luggage space left", "most luggage space left"),
        ("points_cost", False, "lowest points cost", "highest points cost"),
        ("gross_pay", False, "lowest gross pay", "highest gross pay"),
        ("check_in_on", True, "earliest check in date", "latest check in date"),
        ("valid_until", True, "earliest valid-until date", "latest valid-until date"),
        ("pickup_by", True, "earliest pickup-by date", "latest pickup-by date"),
        ("next_due", True, "earliest next due date", "latest next due date"),
    ],
)
def test_records_are_ranked_in_the_words_a_person_uses(column: str, dated: bool, lowest: str, highest: str) -> None:
    assert superlative(column, dated, False) == lowest
    assert superlative(column, dated, True) == highest
