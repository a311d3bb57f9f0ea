"""A chain never amends a record after filing it (measure 47): a certification is corrected before it
is submitted, not after."""

from __future__ import annotations

import pytest

from envs import Environment
from envs.formats.spec import EnvSpec
from synthesis.tasks.chain import Chain, ChainBroken
from tests.envs.quality.test_written import OFFICE


def _chain() -> tuple[Environment, Chain]:
    env = Environment(EnvSpec.model_validate(OFFICE))
    return env, Chain.start(env, "P1")


def test_an_edit_after_the_record_was_filed_breaks_the_chain() -> None:
    env, chain = _chain()
    try:
        chain.call("submit_certification", certification_id="W1")
        trial = chain.trial(env, "update_hours_worked", {"certification_id": "W1", "hours_worked": 1})
        assert not isinstance(trial, Exception) and trial.amends_final
        with pytest.raises(ChainBroken, match="after it was filed"):
            chain.call("update_hours_worked", certification_id="W1", hours_worked=1)
    finally:
        chain.close()


def test_the_edit_first_then_the_filing_is_a_chain() -> None:
    _, chain = _chain()
    try:
        chain.call("update_hours_worked", certification_id="W1", hours_worked=1)
        chain.call("submit_certification", certification_id="W1")
        chain.call("update_hours_worked", certification_id="W2", hours_worked=3)  # another record: no amendment
        assert len(chain.calls) == 3
    finally:
        chain.close()


def test_a_write_leaving_a_date_to_come_in_the_past_breaks_the_chain() -> None:
    _, chain = _chain()
    try:
        chain.call("retry_payment", subscription_id="S2")  # billed next 2026-04-19: believable
        with pytest.raises(ChainBroken, match="not after the clock"):
            chain.call("retry_payment", subscription_id="S1")  # 2026-02-21, on a clock in March
    finally:
        chain.close()
