"""The episode loop's limits and failure classes, on the real farm."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from clients import AgentError, FarmClient, Limits, OracleAgent, SoloUser, run_eval, run_trial
from clients.agents import AgentTurn, EpisodeContext
from clients.transcript import Message

from .fakes import call

KEY = "Dr. Osei on Wednesday morning"


def records_of(config) -> list[dict]:
    return [json.loads(line) for line in (config.out / "results.jsonl").read_text().splitlines()]


def test_tool_call_budget_truncates(llm, make_config):
    llm.script(KEY, *[call(("list_providers", {}), ("list_providers", {"specialty": "cardiology"}))] * 10)
    config = make_config(agent="openai", base_url=llm.base_url, tasks="clinic-001", max_tool_calls=3)
    report = run_eval(config)
    (r,) = records_of(config)
    assert r["truncated"] and not r["terminated"] and r["error_class"] is None
    assert len(r["tool_calls"]) == 3 and r["turns"] == 2
    assert r["reward"] == 0.0  # scored as it stands: a truncated run is a failed trial, not a crash
    # every requested call is answered, the unexecuted one with the reason
    assert r["messages"][-1]["role"] == "tool" and "budget of 3 tool calls" in r["messages"][-1]["content"]
    assert report.overall.truncated == 1 and report.trials_counted == 1


def test_turn_budget_truncates(llm, make_config):
    llm.script(KEY, *[call(("list_providers", {}))] * 10)
    config = make_config(agent="openai", base_url=llm.base_url, tasks="clinic-001", max_turns=4)
    run_eval(config)
    (r,) = records_of(config)
    assert r["truncated"] and r["turns"] == 4 and len(r["tool_calls"]) == 4 and r["reward"] == 0.0


class GivesUp:
    """An agent that calls one tool, then fails."""

    name = "gives-up"

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        if len(messages) > 2:
            raise AgentError("cannot decide")
        return await OracleAgent().act(ctx, messages)

    async def aclose(self) -> None:
        pass


def test_agent_failure_counts_and_is_scored(farm_url):
    async def go():
        async with FarmClient(farm_url) as farm:
            task = await farm.get_task("clinic-001")
            return await run_trial(farm, task, GivesUp(), SoloUser(), limits=Limits())

    r = asyncio.run(go())
    assert r.error_class == "agent" and r.error_type == "AgentError" and r.error == "cannot decide"
    assert r.counts and r.reward == 0.0 and r.score is not None and len(r.tool_calls) == 1


class FailsInATaskGroup(GivesUp):
    """An agent whose failure reaches the runner wrapped, as errors inside the MCP client's task groups do."""

    async def act(self, ctx: EpisodeContext, messages: Sequence[Message]) -> AgentTurn:
        try:
            return await super().act(ctx, messages)
        except AgentError as exc:
            raise ExceptionGroup("unhandled errors in a TaskGroup", [exc]) from None


def test_an_error_wrapped_in_a_task_group_is_recorded_as_itself(farm_url):
    async def go():
        async with FarmClient(farm_url) as farm:
            task = await farm.get_task("clinic-001")
            return await run_trial(farm, task, FailsInATaskGroup(), SoloUser(), limits=Limits())

    r = asyncio.run(go())
    assert r.error_class == "agent" and r.error_type == "AgentError" and r.error == "cannot decide"
    assert r.counts and r.reward == 0.0


def test_unreachable_farm_is_an_infra_error(farm_url):
    async def go():
        async with FarmClient(farm_url) as farm:
            task = await farm.get_task("clinic-001")
        async with FarmClient("http://127.0.0.1:9", retry=_fast()) as dead:
            return await run_trial(dead, task, OracleAgent(), SoloUser())

    r = asyncio.run(go())
    assert r.error_class == "infra" and r.error_type == "TransportError" and not r.counts
    assert r.retries == 1


def _fast():
    from clients import RetryPolicy

    return RetryPolicy(max_attempts=2, base_delay=0.01)
