"""Titles that name a season, a holiday or a month fit their row's date: no "Fourth of July Block
Party" in March, no "Black Friday Push" starting in April."""

from __future__ import annotations

import pytest

from synthesis.domains.seasons import _month, season_of, settle_seasons

from .generated import domain, generated_spec

# (domain, table, title column, date column): each drew seasonal titles on any date before
CASES = (
    ("podcast_ad_campaigns", "ad_campaigns", "campaign_name", "start_date"),
    ("business_license_renewals", "special_event_permits", "event_name", "event_date"),
    ("music_school_lessons", "recitals", "recital_name", "performance_date"),
)


def test_season_of_reads_phrases_quarters_and_months_but_not_other_words() -> None:
    assert season_of("Fourth of July Block Party") == frozenset({6, 7})
    assert season_of("Black Friday Push") == frozenset({11})
    assert season_of("Q1 Retargeting") == frozenset({1, 2, 3})
    assert season_of("Fall Harvest Street Fair") == frozenset({9, 10, 11})
    assert season_of("Chicago client visit, March") == frozenset({3, 4})
    assert season_of("Waterfall Hike") is None
    assert season_of("Food Truck Friday") is None
    assert season_of("May I help") is None  # "may" is no month here


@pytest.mark.parametrize(("domain_id", "table", "title", "date"), CASES)
def test_generated_titles_fit_their_dates(domain_id: str, table: str, title: str, date: str) -> None:
    rows = generated_spec(domain_id).seed[table]
    seasonal = [r for r in rows if season_of(r[title])]
    assert seasonal  # the domain still uses its seasonal titles, where they fit
    wrong = [(r[title], r[date]) for r in seasonal if _month(r[date]) not in (season_of(r[title]) or ())]
    assert wrong == []


def test_a_title_out_of_season_is_redrawn_from_the_fitting_examples() -> None:
    spec = generated_spec("podcast_ad_campaigns").model_copy(deep=True)
    row = spec.seed["ad_campaigns"][0]
    row["campaign_name"], row["start_date"] = "Black Friday Push", "2026-04-19"
    assert settle_seasons(domain("podcast_ad_campaigns"), spec) == 1
    assert row["start_date"] == "2026-04-19"
    assert season_of(row["campaign_name"]) in (None, frozenset({3, 4, 5}), frozenset({4, 5, 6}), frozenset({4, 5}))
    assert settle_seasons(domain("podcast_ad_campaigns"), spec) == 0
