"""A record the task created, then moved on: each effect of the move starts from what the one before
it left ("set the hearing date to today", then "21 days later"), so the check on the new record
expects the hearing three weeks out, as the tool leaves it."""

from __future__ import annotations

from datetime import datetime

from synthesis.domains.ontology import load_ontology
from synthesis.tasks.checklist import Checklist


def test_a_created_records_later_effects_apply_in_order():
    domain = next(d for d in load_ontology() if d.id == "parking_citation_appeals")
    appeal = domain.entity("citation_appeal")
    assert appeal.lifecycle is not None
    hearing = next(t for t in appeal.lifecycle.transitions if t.name == "request_hearing")
    checks = Checklist(domain, datetime(2026, 3, 2, 9, 0))
    made = {"motorist_id": "PM1", "citation_id": "CI8", "statement": "Not my plate", "evidence_url": "https://x.org/a"}
    checks.created(appeal, "CA1001", made, {})
    row = {"citation_appeal_id": "CA1001", **made, "hearing_date": None, "status": "submitted"}
    checks.transition(appeal, hearing, row, {}, {})
    [(_, values, _)] = [i for i in checks.inserted if i[0] == "citation_appeals"]
    assert values["hearing_date"] == "2026-03-23" and values["status"] == "hearing"
