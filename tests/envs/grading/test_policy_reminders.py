"""A figure the policy tells the agent to speak of is no read-out: study_abroad_applications-003
(seed 101) asks agents to remind applicants that their passport must be valid for the whole term,
and a refusal that says the passport's expiry beside its reason scored 0 for reading out a figure of
the user's own row. Other figures of that row still read out."""

from __future__ import annotations

from envs.grading.unasked import reminders, unasked_figures

POLICY = """# Study abroad

## Always
- Remind applicants that their passport must be valid for the whole term abroad.
- Tell the customer the remaining balance after each payment.

## Applications
- `confirm_place_application`: Accept an offered place. Allowed only when the application is offered.
"""
APPLICANT = {
    "applicant_id": "SA8",
    "email": "w@example.com",
    "date_of_birth": "2003-01-15",
    "passport_expiry": "2026-02-10",
    "credit_total": 310.0,
}
APPLICATION = {"application_id": "AP23", "applicant_id": "SA8", "status": "draft", "submitted_on": None}
RULES = ["Accept an offered place. Allowed only when the application is offered."]
KEY = ("application_id", "AP23")


def test_the_policys_standing_reminders_are_read_from_its_always_section():
    assert reminders(POLICY) == [
        "Remind applicants that their passport must be valid for the whole term abroad.",
        "Tell the customer the remaining balance after each payment.",
    ]
    assert reminders("# A policy\n\n## Applications\n- `x`: y.\n") == []


def test_a_figure_a_reminder_asks_for_is_no_read_out():
    reads = [APPLICANT, APPLICATION]
    # without the reminder, the expiry of the user's own passport is an unasked figure
    assert unasked_figures(["2026-02-10"], reads, RULES, KEY) == ["2026-02-10"]
    assert unasked_figures(["2026-02-10"], reads, RULES, KEY, reminded=reminders(POLICY)) == []


def test_other_figures_of_the_users_row_still_read_out():
    reads = [APPLICANT, APPLICATION]
    said = ["2026-02-10", "2003-01-15"]
    assert unasked_figures(said, reads, RULES, KEY, reminded=reminders(POLICY)) == ["2003-01-15"]
    # "the remaining balance" speaks of a balance, not of every total on the row
    assert unasked_figures(["310.0"], reads, RULES, KEY, reminded=reminders(POLICY)) == ["310.0"]
