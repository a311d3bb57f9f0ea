"""Retries with exponential backoff, and the agent-versus-infrastructure classification of failures.

Transient failures are retried: HTTP 408/409/425/429/5xx/529 from the task service or an LLM API,
and connection errors or timeouts. ``Retry-After`` (seconds or an HTTP date) and ``retry-after-ms``
are honoured. The LLM SDKs are created with ``max_retries=0`` so that this module is the one place
retries happen, and every retry is counted in the trial record.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import httpx

from .errors import AgentError, FarmAPIError, TransportError

T = TypeVar("T")
RetryHook = Callable[[BaseException, float], None]
#: Called before every retry made in this context (the runner sets it per trial to count retries).
retry_hook: ContextVar[RetryHook | None] = ContextVar("envfarm_retry_hook", default=None)
ErrorClass = Literal["agent", "infra"]
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    httpx.TransportError,
    TransportError,
    ConnectionError,
    TimeoutError,
)
#: Connection errors of optional libraries (the MCP client's HTTP, the LLM SDKs), as (module, class name).
#: Looked up only in modules already imported: an error of a library that was never imported cannot occur,
#: and the core client does not depend on these libraries.
_OPTIONAL_CONNECTION_ERRORS = (
    ("httpx2", "TransportError"),
    ("openai", "APIConnectionError"),
    ("anthropic", "APIConnectionError"),
)


def _is_connection_error(exc: BaseException) -> bool:
    if isinstance(exc, _CONNECTION_ERRORS):
        return True
    for module_name, class_name in _OPTIONAL_CONNECTION_ERRORS:
        module = sys.modules.get(module_name)
        kind = getattr(module, class_name, None) if module is not None else None
        if isinstance(kind, type) and isinstance(exc, kind):
            return True
    return False


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a transient failure.

    Attributes:
        max_attempts: attempts in all (1 = no retry).
        base_delay: the first backoff in seconds; each retry doubles it.
        max_delay: the longest backoff, and the longest ``Retry-After`` that is honoured.
        jitter: up to this share of each delay is added at random, so workers do not retry in step.

    >>> RetryPolicy(base_delay=1.0).delay(3, None)  # doctest: +SKIP
    4.2...
    """

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.1

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 1)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay)
        backoff = min(self.base_delay * 2.0 ** (attempt - 1), self.max_delay)
        return float(backoff * (1 + random.uniform(0, self.jitter)))


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an error carries, if any."""
    if isinstance(exc, FarmAPIError):
        return exc.status
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _headers_of(exc: BaseException) -> Mapping[str, str] | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) or hasattr(headers, "get") else None


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date).

    >>> parse_retry_after({"retry-after": "2"})
    2.0
    >>> parse_retry_after({"retry-after-ms": "150"})
    0.15
    """
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(email.utils.mktime_tz(parsed) - time.time(), 0.0)


def retry_after_of(exc: BaseException) -> float | None:
    """The wait an error's response asked for, if any."""
    if isinstance(exc, FarmAPIError):
        return exc.retry_after
    return parse_retry_after(_headers_of(exc))


def is_transient(exc: BaseException) -> bool:
    """Whether retrying the same request may succeed (rate limit, server error, connection)."""
    if _is_connection_error(exc):
        return True
    status = status_of(exc)
    return status is not None and status in TRANSIENT_STATUS


def classify(exc: BaseException) -> ErrorClass:
    """``agent`` for a failure of the agent itself (the trial counts); ``infra`` for everything else.

    Infrastructure and API failures never count as reward 0: they are reported and retried on resume.

    >>> classify(AgentError("gave up"))
    'agent'
    >>> classify(FarmAPIError(503, "store_unavailable", "down"))
    'infra'
    """
    return "agent" if isinstance(exc, AgentError) else "infra"


async def with_retries(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    on_retry: Callable[[BaseException, float], None] | None = None,
    retry_if: Callable[[BaseException], bool] = is_transient,
) -> T:
    """Await ``fn()``, retrying transient failures with exponential backoff.

    Args:
        fn: makes and awaits one attempt.
        policy: attempts and delays.
        on_retry: called with the error and the delay before each retry (``retry_hook`` is called too).
        retry_if: which errors are worth retrying.

    Returns:
        The first successful result.

    Raises:
        The last error, once attempts run out or an error is not retryable.
    """
    attempt = 1
    while True:
        try:
            return await fn()
        except Exception as exc:
            if attempt >= policy.max_attempts or not retry_if(exc):
                raise
            wait = policy.delay(attempt, retry_after_of(exc))
            if on_retry is not None:
                on_retry(exc, wait)
            hook = retry_hook.get()
            if hook is not None:
                hook(exc, wait)
            await asyncio.sleep(wait)
            attempt += 1
