"""Topics to domains: requests matched to the built-in domain they need, or reported as fitting none
(with the three nearest), on the labelled set and through ``envfarm synthesize --domains FILE``."""

from __future__ import annotations

import json

import pytest

from envfarm.cli import main
from synthesis.bench.mining import LABELLED_SETS, bench_mining, load_labelled
from synthesis.domains.ontology import load_ontology
from synthesis.sources.matching import (
    DEFAULT_THRESHOLD,
    FOREIGN_WEIGHT,
    LEXICAL_NEAR_MISS_WEIGHT,
    LEXICAL_THRESHOLD,
    NEAR_MISS_WEIGHT,
    DomainMatcher,
    terms,
)
from synthesis.sources.selection import select

from ..domains import library_dict
from ..fake_llm import FakeLLM


@pytest.fixture(scope="module")
def matcher() -> DomainMatcher:
    return DomainMatcher(load_ontology())


def test_terms_are_stems_without_function_words_and_with_neighbour_pairs():
    assert terms("Please cancel my dog's grooming appointments") == [
        "cancel",
        "dog",
        "groom",
        "appoint",
        "cancel dog",
        "dog groom",
        "groom appoint",
    ]
    assert terms("I can't, won't") == []
    # one stem for the forms of a word, so a request meets an example written in another tense
    assert terms("cancelled")[0] == terms("cancel")[0] and terms("rebooked") == terms("rebook")


def test_a_word_no_domain_knows_lowers_every_similarity_by_words():
    words = DomainMatcher(load_ontology(), encoder=None)
    known = words.scores("report a problem to the city")
    with_unknown = words.scores("report a pothole to the city")
    assert max(with_unknown.values()) < max(known.values())


def test_every_built_in_domain_says_what_people_ask_for_it():
    for d in load_ontology():
        assert len(d.requests) >= 20 and len(set(d.requests)) == len(d.requests), d.id
        assert d.synonyms, d.id


@pytest.fixture(scope="module")
def benched() -> dict:
    return bench_mining()


def test_the_labelled_sets_meet_the_bar(benched):
    result = benched
    assert result["method"] == "words and meaning"
    sets = result["sets"]
    test = sets["requests"]["test"]
    assert test["fit_accuracy"] >= 0.95 and test["no_fit_recall"] >= 0.8, test
    # requests in everyday words, written apart from the domains' own examples
    test = sets["paraphrases"]["test"]
    assert test["fit_accuracy"] >= 0.9 and test["no_fit_recall"] >= 0.75, test
    # written blind, in casual words: decided right on a mix of 35 fit and 10 no-fit requests
    for name in ("heldout", "blind"):
        test = sets[name]["test"]
        assert 35 * test["fit_accuracy"] + 10 * test["no_fit_recall"] >= 38, (name, test)
    # the third, written blind after the near misses were, and run once against them: 41.9 (docs);
    # the bound leaves room for a borderline request a different BLAS may round the other way
    test = sets["third_blind"]["test"]
    assert 35 * test["fit_accuracy"] + 10 * test["no_fit_recall"] >= 40, test
    assert sets["third_blind"]["dev"]["fit_requests"] == 0
    # the fourth, written blind a session later and run once, with nothing tuned after it: 41.6 (docs)
    test = sets["fourth_blind"]["test"]
    assert 35 * test["fit_accuracy"] + 10 * test["no_fit_recall"] >= 40, test
    assert sets["fourth_blind"]["dev"]["fit_requests"] == 0 and test["fit_requests"] == 70
    assert sets["requests"]["all"]["fit_requests"] == 200 and sets["requests"]["all"]["no_fit_requests"] == 70
    assert sets["paraphrases"]["all"]["fit_requests"] == 248 and sets["paraphrases"]["all"]["no_fit_requests"] == 79
    assert sets["blind"]["dev"]["fit_requests"] == 0  # never calibrated on
    # the threshold and near-miss weight the code uses are the pair calibrated on dev
    assert result["threshold"] == DEFAULT_THRESHOLD and result["near_miss_weight"] == NEAR_MISS_WEIGHT


def test_meaning_finds_what_words_miss_on_paraphrases(benched):
    by_meaning = benched
    by_words = bench_mining(meaning=False)
    assert by_words["method"] == "words" and by_words["threshold"] == LEXICAL_THRESHOLD
    assert by_words["near_miss_weight"] == LEXICAL_NEAR_MISS_WEIGHT

    def right(result: dict) -> int:
        rates = result["sets"]["paraphrases"]["test"]
        return round(rates["fit_accuracy"] * rates["fit_requests"] + rates["no_fit_recall"] * rates["no_fit_requests"])

    assert right(by_meaning) > right(by_words)


def test_a_matcher_without_the_sentence_model_matches_by_words():
    words = DomainMatcher(load_ontology(), encoder=None)
    assert words.method == "words" and words.threshold == LEXICAL_THRESHOLD
    assert words.match("my flight got cancelled and I need to be rebooked").domain == "airline_rebooking"


def test_the_issue_examples_are_no_fit_or_mapped_sensibly(matcher):
    sensible = {
        "reschedule my dog's grooming appointment": {None, "veterinary_clinic_visits"},
        "report a pothole to the city": {None},
        "my flight got cancelled and I need to be rebooked": {"airline_rebooking"},
        "my suitcase didn't arrive": {"lost_baggage_claims"},
        "dispute a charge on my credit card": {"credit_card_disputes"},
        # paraphrases that share no word with the domain's examples, and another spelling
        "can I book a fitting for four new tyres": {"tire_shop_installations"},
        "bring my pickup truck on the 3pm boat to the island": {"ferry_vehicle_crossings"},
        "my landlord still hasn't returned my deposit": {"security_deposit_settlement"},
        "my suitcase didn't arrive at the airport": {"lost_baggage_claims"},
    }
    for text, allowed in sensible.items():
        m = matcher.match(text)
        assert m.domain in allowed, (text, m)
        assert len(m.nearest) == 3 and m.nearest[0][1] >= m.nearest[1][1] >= m.nearest[2][1]


def test_a_domain_knows_every_word_of_its_own_requests(matcher):
    for domain in matcher.domains:
        for request in domain.requests:
            assert matcher.foreign_share(request, domain.id) == 0.0, (domain.id, request)


def test_a_near_miss_about_another_services_records_fits_no_domain(matcher):
    """Dev requests of the labelled sets that similarity alone gave to a domain sharing their setting:
    their confidence reached the threshold before the foreign share was taken off."""
    near_misses = {
        "there's a mistake on my credit report that I want to dispute": "credit_card_disputes",
        "My health insurer denied my MRI claim, how do I appeal?": "unemployment_weekly_claims",
    }
    for text, nearest in near_misses.items():
        m = matcher.match(text)
        assert m.nearest[0][0] == nearest and m.domain is None, (text, m)
        # what turns it away is the words it shares with other services, not its similarity
        assert matcher.foreign_share(text, nearest) > 0.4
        assert m.score + FOREIGN_WEIGHT * matcher.foreign_share(text, nearest) >= matcher.threshold, m
    # a request in the domain's own words keeps its confidence whole
    fits = matcher.match("dispute a charge on my credit card")
    assert fits.domain == "credit_card_disputes"
    assert matcher.foreign_share("dispute a charge on my credit card", "credit_card_disputes") == 0.0


def test_every_built_in_domain_lists_near_misses_it_does_not_serve():
    for d in load_ontology():
        assert 4 <= len(d.not_covered) <= 5 and len(set(d.not_covered)) == len(d.not_covered), d.id
        # a near miss is not one of its own requests
        assert not set(d.not_covered) & set(d.requests), d.id


@pytest.mark.parametrize(
    ("meaning", "text"),
    [
        (True, "could you get my home loan approved before I make offers on houses"),
        (False, "could you sort me out with a mortgage approval before I go to open homes"),
    ],
)
def test_a_near_miss_in_the_domains_own_setting_is_turned_away(matcher, meaning, text):
    """Written for this test, like the domains' near misses but in none of them: a loan approval at an
    estate agent's shares its setting with home purchase offers, which work within a pre-approval."""
    m = matcher if meaning else DomainMatcher(load_ontology(), encoder=None)
    found = m.match(text)
    assert found.nearest[0][0] == "home_purchase_offers" and found.domain is None, found
    lead = m.near_miss_lead(text, "home_purchase_offers")
    # similarity alone would have matched it: its nearness to the near misses turns it away
    assert lead < 0 and found.score - m.near_miss_weight * lead >= m.threshold, (found, lead)


def test_a_casual_message_that_fits_is_kept_by_its_distance_from_the_near_misses(matcher):
    """Casual messages score low on every domain; far from any near miss, they still fit."""
    fits = {
        "swap my thursday arvo sesh with the physio to friday": "physical_therapy_sessions",
        "need a couple more of my blood pressure tablets, same as last time": "pharmacy_prescription_refills",
    }
    for text, domain in fits.items():
        found = matcher.match(text)
        assert found.domain == domain, (text, found)
        lead = matcher.near_miss_lead(text, domain)
        assert lead > 0 and found.score - matcher.near_miss_weight * lead < matcher.threshold, (text, lead)


def test_domains_without_near_misses_are_matched_on_similarity_alone():
    domains = [d.model_copy(update={"not_covered": []}) for d in load_ontology()]
    words = DomainMatcher(domains, encoder=None)
    text = "could you sort me out with a mortgage approval before I go to open homes"
    assert words.near_miss_lead(text, "home_purchase_offers") == 0.0


def test_a_topic_takes_its_lines_mean_foreign_share_and_near_miss_lead(matcher):
    lines = ["there's a mistake on my credit report that I want to dispute", "dispute a charge on my credit card"]
    topic = matcher.match_all(lines, name="credit")
    assert topic.nearest[0][0] == "credit_card_disputes"
    mean = {d: sum(s[d] for s in matcher.scores_many(lines)) / 2 for d in matcher.scores(lines[0])}
    best, second = sorted(mean.values())[-1], sorted(mean.values())[-2]
    foreign = sum(matcher.foreign_share(line, "credit_card_disputes") for line in lines) / 2
    assert foreign > 0.2
    lead = sum(matcher.near_miss_lead(line, "credit_card_disputes") for line in lines) / 2
    expected = best + (best - second) - FOREIGN_WEIGHT * foreign + matcher.near_miss_weight * lead
    assert topic.score == pytest.approx(expected, abs=6e-4)


def test_a_topic_matches_on_all_its_requests(matcher):
    lines = ["my suitcase never came off the carousel", "the airline lost my bag", "claim for a delayed bag"]
    assert matcher.match_all(lines, name="bags").domain == "lost_baggage_claims"
    assert matcher.match_all([], name="nothing").domain is None


def test_select_skips_or_substitutes_a_topic_nothing_fits(tmp_path):
    requests = tmp_path / "requests.txt"
    requests.write_text("my library book is overdue and I want to renew it\nreport a pothole to the city\n")
    plain = select(str(requests))
    assert [d.id for d in plain.domains] == ["library_loans"]
    decisions = {t.decision for t in plain.topics}
    assert decisions == {"built-in", "no fit: skipped"}
    skipped = next(t for t in plain.topics if t.decision == "no fit: skipped")
    assert skipped.domain is None and len(skipped.nearest) == 3
    substituted = select(str(requests), substitute=True)
    assert len(substituted.domains) == 2
    assert {t.decision for t in substituted.topics} == {"built-in", "no fit: nearest substituted"}


def test_synthesize_reports_every_topic_decision(tmp_path, capsys):
    requests = tmp_path / "requests.txt"
    requests.write_text("my library book is overdue and I want to renew it\nreport a pothole to the city\n")
    out = tmp_path / "cat"
    args = ["synthesize", "--domains", str(requests), "--tasks-per-env", "8", "--out", str(out), "--workers", "1"]
    assert main(args) == 0
    assert "no built-in domain fits 'report a pothole to the city'" in capsys.readouterr().err
    report = json.loads((out / "synthesis-report.json").read_text())
    assert sorted(t["decision"] for t in report["topics"]) == ["built-in", "no fit: skipped"]
    assert "## Topics matched to domains" in (out / "synthesis-report.md").read_text()
    only_misfits = tmp_path / "misfits.txt"
    only_misfits.write_text("report a pothole to the city\n")
    assert main(["synthesize", "--domains", str(only_misfits), "--out", str(tmp_path / "none")]) == 1
    assert "--substitute-nearest" in capsys.readouterr().err


def test_the_labelled_sets_are_well_formed():
    ids = {d.id for d in load_ontology()}
    everything = [i for path in LABELLED_SETS.values() for i in load_labelled(path)]
    assert len({i.request.lower() for i in everything}) == len(everything)  # no request in two sets
    for name, path in LABELLED_SETS.items():
        items = load_labelled(path)
        assert all(i.domain is None or i.domain in ids for i in items)
        asked = {i.domain for i in items if i.domain}
        if name in ("requests", "paraphrases"):
            assert {i.split for i in items} == {"dev", "test"}
            assert asked == ids  # every domain asked for
        else:  # written blind: one request for each of 60 domains or more
            assert len(asked) >= 60 and {i.split for i in items} <= {"dev", "test"}


def test_with_an_llm_backend_a_topic_nothing_fits_is_written_by_the_llm(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_LLM_KEY", "sk-test")
    requests = tmp_path / "requests.txt"
    requests.write_text("my library book is overdue and I want to renew it\nreport a pothole to the city\n")
    llm = FakeLLM().start()
    try:
        llm.script(json.dumps(library_dict()))  # the fake writes a domain whose id a built-in one holds
        chosen = select(str(requests), llm_base_url=llm.base_url, llm_model="m", llm_api_key_env="FAKE_LLM_KEY")
        asked = [last["messages"][-1]["content"] for last in llm.requests]
    finally:
        llm.stop()
    assert {t.topic: t.decision for t in chosen.topics} == {
        "my library book is overdue and I want to renew it": "built-in",
        "report a pothole to the city": "no fit: written by the LLM",
    }
    assert [d.id for d in chosen.domains] == ["library_loans", "library_loans_2"]
    assert len(asked) == 1 and "pothole" in asked[0]


def test_bench_mining_prints_a_set_that_has_no_dev_part(tmp_path, monkeypatch, capsys):
    """The second blind set is all test: its empty dev part has no rates to print, and the command
    printed each rate as a percentage, so it crashed after writing its results."""
    import synthesis.bench.mining as mining

    def first(path, n, split):
        rows = [r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if r["split"] == split]
        return rows[:n]

    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in first(LABELLED_SETS["requests"], 6, "dev")), "utf-8")
    blind = tmp_path / "blind.jsonl"
    blind.write_text("".join(json.dumps(r) + "\n" for r in first(LABELLED_SETS["blind"], 6, "test")), "utf-8")
    monkeypatch.setattr(mining, "LABELLED_SETS", {"requests": dev, "blind": blind})
    out = tmp_path / "mining.json"
    assert main(["bench", "mining", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "blind test: " in printed
    assert "blind dev" not in printed and "requests dev: " in printed
    assert json.loads(out.read_text())["sets"]["blind"]["dev"]["fit_accuracy"] is None
