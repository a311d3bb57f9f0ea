"""The blind information strategy that reads out every field of the first record of the first list
(`info-first-in-list`) passes no question of the seed-109 review's four domains: where the asked
record has a field beyond those asked and those the user named it by, its read-out says that field
for nothing and fails, while the answer a person gives passes. Where it has none
(audiobook_credit_membership-002: a charge's amount, named by its day), the read-out is the answer
(docs/formats.md, "Answers")."""

from __future__ import annotations

import pytest

from envs.quality.blind_info_adversaries import play_blind_info
from envs.quality.classes import INFORMATION, task_class

from .scoring_helpers import generated_domain, reviewed_task, score_task

HOLD = "dealership_test_drives-013"  # when a deposit hold for a named car expires; the first hold listed
DOMAINS = ("community_solar_shares", "heating_oil_deliveries", "dealership_test_drives", "travel_insurance_claims")


def test_the_hold_task_asks_when_the_listed_hold_expires() -> None:
    task = reviewed_task(HOLD)[1]
    assert "expire" in task.instruction and task.outputs == ["2026-04-03 15:45:00"]


@pytest.mark.parametrize(
    ("answer", "reward"),
    [
        (
            "Here is what I found. The deposit is 439.85. The expires at is 2026-04-03 15:45:00. The status is active.",
            0.0,
        ),
        ("Your deposit hold for the Mazda CX-5 Touring expires on April 3, 2026 at 3:45 PM.", 1.0),
        ("Your $439.85 deposit hold for the Mazda CX-5 Touring expires on April 3, 2026 at 3:45 PM.", 1.0),
    ],
)
def test_a_record_read_out_does_not_answer_when_it_expires(answer: str, reward: float) -> None:
    assert score_task(HOLD, answer) == reward


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_first_listed_record_read_out_passes_no_question_of_the_reviewed_domains(domain: str) -> None:
    env, tasks = generated_domain(domain)
    questions = [t for t in tasks if task_class(env, t) == INFORMATION]
    assert questions
    assert [t.id for t in questions if play_blind_info("info-first-in-list", env, t) == 1.0] == []
