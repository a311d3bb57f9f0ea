"""Backoff, Retry-After and the classification of failures."""

from __future__ import annotations

import asyncio
import time

import pytest

from clients import AgentError, FarmAPIError, LLMAPIError, RetryPolicy, TransportError
from clients.retry import classify, is_transient, parse_retry_after, with_retries


def test_backoff_doubles_up_to_the_cap_and_honours_retry_after():
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=0.0)
    assert [policy.delay(n, None) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.delay(1, 3.5) == 3.5
    assert policy.delay(1, 600) == 5.0  # a Retry-After beyond the cap waits the cap
    assert parse_retry_after({"retry-after": "0.25"}) == 0.25
    assert parse_retry_after({"retry-after-ms": "40", "retry-after": "9"}) == 0.04
    assert 0 <= parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({}) is None


def test_with_retries_retries_transient_errors_and_counts_them():
    attempts: list[float] = []
    retries: list[float] = []

    async def flaky() -> str:
        attempts.append(time.monotonic())
        if len(attempts) == 1:
            raise FarmAPIError(429, "limit_exceeded", "slow down", retry_after=0.05)
        if len(attempts) == 2:
            raise FarmAPIError(503, "store_unavailable", "down")
        return "ok"

    policy = RetryPolicy(max_attempts=3, base_delay=0.01)
    assert asyncio.run(with_retries(flaky, policy, on_retry=lambda e, d: retries.append(d))) == "ok"
    assert retries[0] == 0.05 and attempts[1] - attempts[0] >= 0.05
    assert len(attempts) == 3


def test_with_retries_gives_up():
    async def broken() -> None:
        raise FarmAPIError(404, "task_not_found", "no")

    calls = 0

    async def down() -> None:
        nonlocal calls
        calls += 1
        raise TransportError("refused")

    with pytest.raises(FarmAPIError):
        asyncio.run(with_retries(broken, RetryPolicy(base_delay=0.0)))  # not transient: no retry
    with pytest.raises(TransportError):
        asyncio.run(with_retries(down, RetryPolicy(max_attempts=3, base_delay=0.0)))
    assert calls == 3


def test_classification():
    assert classify(AgentError("x")) == "agent"
    for exc in (FarmAPIError(500, "internal", "x"), LLMAPIError("x", status=401), TransportError("x"), KeyError("x")):
        assert classify(exc) == "infra"
    assert is_transient(FarmAPIError(529, "overloaded", "x")) and not is_transient(FarmAPIError(400, "bad", "x"))
